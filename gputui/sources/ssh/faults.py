"""What went wrong with a host, from what ssh and the remote side said: a fault kind and its one-line reason."""

from __future__ import annotations

from gputui.core.plain_text import sanitise
from gputui.sources.ssh.remote import MISSING, MISSING_STATUS

SSH_FAILED = 255  # ssh's own exit status for a connection or authentication failure
MAX_REASON = 200

# (words in ssh's message, fault kind), first match wins
_PATTERNS = (
    ("Permission denied", "auth"),
    ("Too many authentication failures", "auth"),
    ("Host key verification failed", "host-key"),
    ("REMOTE HOST IDENTIFICATION HAS CHANGED", "host-key"),
    ("No ED25519 host key is known", "host-key"),
    ("host key is known", "host-key"),
    (MISSING, "no-nvidia-smi"),
    ("nvidia-smi: not found", "no-nvidia-smi"),
    ("nvidia-smi: command not found", "no-nvidia-smi"),
    ("Could not resolve hostname", "unreachable"),
    ("Connection refused", "unreachable"),
    ("Connection timed out", "unreachable"),
    ("No route to host", "unreachable"),
    ("Network is unreachable", "unreachable"),
    ("Connection reset", "unreachable"),
    ("Connection closed", "unreachable"),
    ("timed out", "unreachable"),
    ("kex_exchange_identification", "unreachable"),
    ("Broken pipe", "unreachable"),
)


def reason_line(stderr: str) -> str:
    """The line of ssh's stderr that says the most (its last non-blank one, warnings skipped), one line, sanitised."""
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    useful = [ln for ln in lines if not ln.startswith("Warning: Permanently added")]
    for line in reversed(useful):
        if any(words in line for words, _ in _PATTERNS):
            return sanitise(line)[:MAX_REASON]
    return sanitise(useful[-1])[:MAX_REASON] if useful else ""


def classify(status: int | None, stderr: str) -> tuple[str, str]:
    """(kind, reason) for a session that ended with exit ``status`` (None: still running, stopped by us) and
    ``stderr``."""
    reason = reason_line(stderr)
    for words, kind in _PATTERNS:
        if words in stderr:
            if kind == "no-nvidia-smi":
                reason = "nvidia-smi not found on the host's PATH"
            return kind, reason or words
    if status == MISSING_STATUS:
        return "no-nvidia-smi", reason or "nvidia-smi not found on the host's PATH"
    if status == SSH_FAILED:
        return "unreachable", reason or "ssh failed (exit status 255)"
    what = f"nvidia-smi exited with status {status}" if status is not None else "the stream ended"
    return "stopped", f"{what}: {reason}" if reason else what
