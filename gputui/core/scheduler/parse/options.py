"""Slurm option strings (as typed after ``srun`` / ``sbatch``) to :class:`JobRequest`.

Only the options that matter to GPU placement are interpreted; a short list of harmless ones is accepted and
recorded as ignored; anything else is refused with the option's name. Nothing is expanded or executed.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

from gputui.core.numbers import cut, shown
from gputui.core.scheduler.errors import RequestError
from gputui.core.scheduler.parse.gres import parse_gpu_ids, parse_gpu_spec, parse_gres
from gputui.core.scheduler.parse.hostlist import expand_hostlist
from gputui.core.scheduler.parse.normalise import RawOptions, build_request
from gputui.core.scheduler.parse.timespec import parse_begin, parse_time_limit
from gputui.core.scheduler.request import DEPENDENCY_TYPES, JobRequest

# canonical long name -> takes a value ("yes" / "no" / "optional")
_LONG = {
    "gpus": "yes", "gres": "yes", "gpus-per-node": "yes", "nodes": "yes", "exclusive": "optional",
    "nodelist": "yes", "exclude": "yes", "time": "yes", "mem-per-gpu": "yes", "job-name": "yes",
    "priority": "yes", "nice": "optional", "dependency": "yes", "gpu-ids": "yes", "export": "yes",
    "ntasks": "yes", "ntasks-per-node": "yes", "cpus-per-task": "yes", "cpus-per-gpu": "yes", "mem": "yes",
    "mem-per-cpu": "yes", "gpu-mem": "yes", "gpu-milli": "yes", "cpu-milli": "yes", "constraint": "yes",
    "hold": "no", "begin": "yes", "gpus-per-task": "yes",
}  # fmt: skip
_SHORT = {"G": "gpus", "N": "nodes", "w": "nodelist", "x": "exclude", "t": "time", "J": "job-name",
          "n": "ntasks", "c": "cpus-per-task", "C": "constraint"}  # fmt: skip
# Options that do not change where a job goes; accepted so that ordinary batch scripts parse.
_IGNORED_LONG = {
    "output", "error", "chdir", "account", "partition", "qos", "comment", "mail-type", "mail-user",
    "open-mode", "input",
}  # fmt: skip
_IGNORED_SHORT = {"o": "output", "e": "error", "D": "chdir", "A": "account", "p": "partition", "q": "qos",
                  "i": "input"}  # fmt: skip
_COUNTS = {"ntasks": "ntasks", "ntasks-per-node": "ntasks_per_node", "cpus-per-task": "cpus_per_task",
           "cpus-per-gpu": "cpus_per_gpu"}  # fmt: skip
_SIZES = {"mem-per-gpu": "mem_per_gpu_mib", "mem-per-cpu": "mem_per_cpu_mib", "gpu-mem": "gpu_mem_mib"}
_IGNORED_FLAGS = {"requeue", "no-requeue", "verbose", "quiet", "wait", "parsable"}


def tokenize(text: str) -> list[str]:
    """Shell-like words without any expansion; an unbalanced quote is a request error."""
    try:
        return shlex.split(text, comments=False, posix=True)
    except ValueError as e:
        raise RequestError(f"cannot split options: {e}") from None


MAX_MIB = 1 << 40  # 1 EiB in MiB: more than any node has, far from the store's integer limit


def mem_mib(text: str, option: str, zero_ok: bool = False) -> int:
    m = re.fullmatch(r"(\d{1,12})([KMGT]?)B?", text.strip(), re.IGNORECASE)
    if not m and re.fullmatch(r"\d{13,}[KMGT]?B?", text.strip(), re.IGNORECASE):
        raise RequestError(f"{option}: size {shown(text.strip())} is too large")
    if not m:
        raise RequestError(f"{option}: cannot read size {shown(text)} (use e.g. 8G or 8000M)")
    n, unit = int(m.group(1)), (m.group(2) or "M").upper()
    mib = {"K": n // 1024, "M": n, "G": n * 1024, "T": n * 1024 * 1024}[unit]
    if mib == 0 and zero_ok and n == 0:
        return 0
    if mib > MAX_MIB:
        raise RequestError(f"{option}: size {shown(text.strip())} is too large (at most 1024P)")
    if mib <= 0:
        raise RequestError(f"{option}: size must be positive, not {shown(text)}")
    return mib


def _constraint(text: str, option: str) -> tuple[tuple[str, ...], ...]:
    """``a|b`` (either) and ``a&b`` (both), ``&`` binding tighter; features are compared in lower case."""
    t = text.strip()
    if not t:
        raise RequestError(f"{option}: empty constraint")
    if re.search(r"[\[\]()*,]", t):
        raise RequestError(f"{option}: only features joined by | (or) and & (and) are supported, not {shown(text)}")
    out = []
    for alt in t.split("|"):
        names = tuple(f.strip().lower() for f in alt.split("&"))
        for f in names:
            if not re.fullmatch(r"[A-Za-z0-9_.+\-]+", f):
                raise RequestError(f"{option}: bad feature name {shown(f)} in {shown(text)}")
        out.append(names)
    return tuple(out)


def _int(text: str, option: str, lo: int, hi: int) -> int:
    if not re.fullmatch(r"[+-]?\d{1,12}", text.strip()):
        raise RequestError(f"{option}: {shown(text)} is not a whole number")
    v = int(text)
    if not lo <= v <= hi:
        raise RequestError(f"{option}: {v} is out of range {lo}..{hi}")
    return v


def _dependencies(text: str, option: str) -> tuple[tuple[str, int], ...]:
    if "?" in text:
        raise RequestError(f"{option}: '?' (any-of) dependencies are not supported")
    out: list[tuple[str, int]] = []
    for part in text.split(","):
        kind, _, ids = part.strip().partition(":")
        kind = kind.lower()
        if kind not in DEPENDENCY_TYPES:
            raise RequestError(
                f"{option}: unsupported dependency type {shown(kind)} (use {', '.join(DEPENDENCY_TYPES)})"
            )
        if not ids:
            raise RequestError(f"{option}: {kind} needs a job id, as in {kind}:123")
        for jid in ids.split(":"):
            if not re.fullmatch(r"\d{1,18}", jid):
                raise RequestError(f"{option}: bad job id {shown(jid)}")
            out.append((kind, int(jid)))
    return tuple(out)


def _exports(text: str, option: str) -> list[tuple[str, str]]:
    out = []
    for part in text.split(","):
        part = part.strip()
        if part.upper() in ("ALL", "NONE", "NIL") or not part:
            continue
        name, eq, value = part.partition("=")
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise RequestError(f"{option}: bad variable name {shown(name)}")
        if eq:
            out.append((name, value))
    return out


def _apply(raw: RawOptions, name: str, value: str | None) -> None:
    opt = f"--{name}"
    if name == "gpus":
        raw.gpus = parse_gpu_spec(value or "", opt)
    elif name == "gpus-per-node":
        raw.gpus_per_node = parse_gpu_spec(value or "", opt)
    elif name == "gres":
        raw.gres = parse_gres(value or "", opt)
    elif name == "gpu-ids":
        raw.gpu_ids = parse_gpu_ids(value or "", opt)
    elif name == "nodes":
        v = (value or "").strip()
        if "-" in v:  # min-max: we allocate the minimum, as Slurm does when it can
            v = v.split("-", 1)[0]
        raw.nodes = _int(v, opt, 1, 1_000_000)
    elif name == "exclusive":
        if value is not None:
            raise RequestError(f"{opt}: only plain --exclusive is supported, not --exclusive={value}")
        raw.exclusive = True
    elif name == "nodelist":
        raw.nodelist = expand_hostlist(value or "", opt)
    elif name == "exclude":
        raw.exclude = expand_hostlist(value or "", opt)
    elif name == "time":
        raw.time_limit_s = parse_time_limit(value or "", opt)
    elif name in _SIZES:
        setattr(raw, _SIZES[name], mem_mib(value or "", opt))
    elif name == "mem":
        raw.mem_mib = mem_mib(value or "", opt, zero_ok=True)
    elif name in _COUNTS:
        setattr(raw, _COUNTS[name], _int(value or "", opt, 1, 1_000_000))
    elif name == "cpu-milli":
        raw.cpu_milli = _int(value or "", opt, 1, 1_000_000_000)
    elif name == "gpu-milli":
        raw.gpu_milli = _int(value or "", opt, 1, 999)
    elif name == "constraint":
        raw.constraint = _constraint(value or "", opt)
    elif name == "job-name":
        raw.name = value or ""
    elif name == "priority":
        raw.priority = _int(value or "", opt, 0, 2**32)
    elif name == "nice":
        raw.nice = 100 if value is None else _int(value, opt, -2147483645, 2147483645)
    elif name == "dependency":
        raw.dependencies = _dependencies(value or "", opt)
    elif name == "hold":
        raw.held = True
    elif name == "begin":
        raw.begin = parse_begin(value or "", opt)
    elif name == "gpus-per-task":
        raw.gpus_per_task = parse_gpu_spec(value or "", opt)
    elif name == "export":
        raw.environment.update(_exports(value or "", opt))


def _value_after(tokens: Sequence[str], i: int, flag: str) -> str:
    """The word after ``tokens[i]``: the value of ``flag``, given as a word of its own."""
    if i + 1 >= len(tokens):
        raise RequestError(f"{flag} needs a value")
    return tokens[i + 1]


def _unknown(tokens: Sequence[str], i: int, flag: str, attached: bool, raw: RawOptions) -> int:
    """Lenient mode: record an option gputui does not model (with its value, if a word of its own follows)."""
    raw.ignored.append(flag)
    if not attached and i + 1 < len(tokens) and not tokens[i + 1].startswith("-"):
        return i + 1
    return i


def parse_tokens(tokens: Sequence[str], raw: RawOptions | None = None, lenient: bool = False) -> RawOptions:
    """Read option words into ``raw`` (later options override earlier ones, as in Slurm).

    ``lenient``: an option gputui does not know is recorded in ``ignored`` instead of refused (for a workload
    manager that decides itself and is handed the options untouched).
    """
    raw = raw if raw is not None else RawOptions()
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok == "--":
            raw.command = list(tokens[i + 1 :])
            break
        if tok.startswith("--") and len(tok) > 2:
            name, eq, value = tok[2:].partition("=")
            if name in _IGNORED_FLAGS:
                raw.ignored.append(tok)
            elif name in _IGNORED_LONG:
                if not eq:
                    _value_after(tokens, i, f"--{name}")
                    i += 1
                raw.ignored.append(f"--{name}")
            else:
                takes = _LONG.get(name)
                if takes is None and lenient:
                    i = _unknown(tokens, i, f"--{name}", bool(eq), raw) + 1
                    continue
                if takes is None:
                    raise RequestError(f"unsupported option {cut('--' + name)}")
                if takes == "yes" and not eq:
                    value = _value_after(tokens, i, f"--{name}")
                    i += 1
                _apply(raw, name, value if (eq or takes == "yes") else None)
        elif tok.startswith("-") and len(tok) > 1 and not re.fullmatch(r"-\d.*", tok):
            letter, attached = tok[1], tok[2:]
            if attached.startswith("="):
                attached = attached[1:]
            long_name = _IGNORED_SHORT.get(letter) or _SHORT.get(letter)
            if long_name is None and lenient:
                i = _unknown(tokens, i, f"-{letter}", bool(attached), raw) + 1
                continue
            if long_name is None:
                raise RequestError(f"unsupported option {cut('-' + letter)}")
            if not attached:
                attached = _value_after(tokens, i, f"-{letter}")
                i += 1
            if letter in _IGNORED_SHORT:
                raw.ignored.append(f"--{long_name}")
            else:
                _apply(raw, long_name, attached)
        else:
            raw.command = list(tokens[i:])  # the first word that is no option starts the command
            break
        i += 1
    return raw


def parse_options(text: str | Sequence[str], *, slurm: bool = False) -> JobRequest:
    """A request from an option string (``"--gpus=8 -t 1:00:00 python train.py"``) or a list of words.

    ``slurm``: the request goes to Slurm, which decides: unknown options are listed in ``ignored`` rather than
    refused, and ``mps:N`` is a count of the cluster's MPS GRES (not a percentage capped at 100).
    """
    tokens = tokenize(text) if isinstance(text, str) else list(text)
    raw = RawOptions(mps_any=slurm)
    return build_request(parse_tokens(tokens, raw, lenient=slurm))
