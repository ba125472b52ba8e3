"""Batch scripts: the ``#SBATCH`` header lines and plain ``export NAME=VALUE`` lines, read without running them."""

from __future__ import annotations

import re
from collections.abc import Sequence

from gputui.core.scheduler.parse.normalise import RawOptions, build_request
from gputui.core.scheduler.parse.options import parse_tokens, tokenize
from gputui.core.scheduler.request import JobRequest

_EXPORT = re.compile(r"^\s*export\s+([A-Za-z_][A-Za-z0-9_]*)=(.*)$")


def _strip_comment(text: str) -> str:
    # Slurm ends an #SBATCH line's options at a '#' preceded by white space
    m = re.search(r"\s#", text)
    return text[: m.start()] if m else text


def _export_value(text: str) -> str:
    v = text.strip()
    words = tokenize(v) if v else [""]
    return words[0] if words else ""


def script_tokens(text: str) -> tuple[list[str], dict[str, str]]:
    """The option words of the ``#SBATCH`` header and the ``export`` assignments of the body.

    As in sbatch, the header ends at the first line that is neither blank nor a comment. Exported values are
    taken literally: ``$VAR`` is not expanded.
    """
    words: list[str] = []
    exports: dict[str, str] = {}
    in_header = True
    for i, line in enumerate(text.splitlines()):
        stripped = line.strip()
        if i == 0 and stripped.startswith("#!"):
            continue
        if in_header and stripped.startswith("#SBATCH"):
            words.extend(tokenize(_strip_comment(stripped[len("#SBATCH") :])))
            continue
        if not stripped or stripped.startswith("#"):
            continue
        in_header = False
        m = _EXPORT.match(line)
        if m:
            exports[m.group(1)] = _export_value(m.group(2))
    return words, exports


def parse_script(text: str, extra: str | Sequence[str] = (), *, slurm: bool = False) -> JobRequest:
    """A request from a batch script; ``extra`` options (as given to sbatch) override the script's; ``slurm`` as
    in :func:`~gputui.core.scheduler.parse.options.parse_options`."""
    words, exports = script_tokens(text)
    extra_words = tokenize(extra) if isinstance(extra, str) else list(extra)
    raw = parse_tokens(words, RawOptions(mps_any=slurm), lenient=slurm)
    raw.command = []  # a word after the header options in an #SBATCH line is not a command
    raw.environment = {**exports, **raw.environment}
    raw = parse_tokens(extra_words, raw, lenient=slurm)
    return build_request(raw)
