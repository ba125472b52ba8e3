"""The user's settings: ``$XDG_CONFIG_HOME/gputui/config.toml`` (usually ``~/.config/gputui/config.toml``).

Read as data only (TOML, nothing is evaluated or expanded). Every key is optional; an option given on the command
line wins over the file. A file that cannot be used (not TOML, an unknown key, a value of the wrong kind) is
reported in one line and ignored as a whole: gputui starts with its defaults, and the file is left as it was.

    theme = "gputui-light"      # the dashboard's colour theme
    interval = 2                # seconds between polls of a live source
    readonly = true             # hide every action that changes something
    paused = false              # a replay starts paused on its first frame
    source = "demo"             # what commands open when no SOURCE / --source is given

    [overview]
    hide = ["power", "mode"]    # overview columns to leave out: model, util, mem, temp, power, mode, badges

    [hosts]
    ssh = ["gpu[01-16]", "dgx01"]   # what `gputui ssh` (and source = "ssh") reads over SSH

    [ssh]
    config = "~/.ssh/config.gpus"   # an ssh_config used instead of ~/.ssh/config (ssh -F); default: ssh's own
    connect_timeout = 10            # seconds (ssh's ConnectTimeout)
    detail = 15                     # seconds between full nvidia-smi -q -x documents (names, processes, MIG)
    values = 0.5                    # seconds between value rows (default: the poll interval)

    [idle]
    threshold = 5               # the idle radar: a held GPU under this utilisation (per cent) ...
    window = "10m"              # ... for this long is idle (the dashboard and `gputui idle`)
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

#: the overview's columns a user may leave out (node, GPU and the holder always show)
OVERVIEW_COLUMNS = ("model", "util", "mem", "temp", "power", "mode", "badges")
#: the largest config file read (a config is a few lines; anything bigger is not one)
MAX_BYTES = 64 * 1024
_TOP: dict[str, tuple[type, ...]] = {
    "theme": (str,), "interval": (int, float), "readonly": (bool,), "paused": (bool,), "source": (str,),
}  # fmt: skip


@dataclass(frozen=True)
class Config:
    theme: str | None = None
    interval: float | None = None
    readonly: bool | None = None
    paused: bool | None = None
    source: str | None = None
    hide: tuple[str, ...] = field(default=())
    ssh_hosts: tuple[str, ...] = field(default=())
    ssh_config: str | None = None
    ssh_connect_timeout: int | None = None
    ssh_detail: float | None = None
    ssh_values: float | None = None
    idle_threshold: int | None = None
    idle_window_s: float | None = None


def config_path() -> str:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "gputui", "config.toml")  # a string: pathlib's import is not needed to read it


def load_config(path: str | Path | None = None) -> tuple[Config, str | None]:
    """The settings in ``path`` (default: config_path()), and the one line that says why they were ignored."""
    path = config_path() if path is None else path
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return Config(), None
    except OSError as e:
        return Config(), f"{path}: cannot read it ({e.strerror}); using the defaults"
    import tomllib

    try:
        if len(raw) > MAX_BYTES:
            raise ValueError(f"larger than {MAX_BYTES // 1024} KiB")
        return _parse(tomllib.loads(raw.decode("utf-8"))), None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, ValueError, RecursionError) as e:
        why = "nested too deeply" if isinstance(e, RecursionError) else str(e).splitlines()[0][:200]
        if "integer string conversion" in why:
            why = "a number with too many digits"
        return Config(), f"{path}: {why}; ignoring the file"


def _parse(data: dict[str, object]) -> Config:
    values: dict[str, object] = {}
    for key, value in data.items():
        if key == "overview":
            values["hide"] = _overview(value)
            continue
        if key == "hosts":
            values["ssh_hosts"] = _hosts(value)
            continue
        if key == "ssh":
            values.update(_ssh(value))
            continue
        if key == "idle":
            values["idle_threshold"], values["idle_window_s"] = _idle(value)
            continue
        kind = _TOP.get(key)
        if kind is None:
            raise ValueError(f"unknown key {key!r} (known: {', '.join([*_TOP, 'overview', 'hosts', 'ssh', 'idle'])})")
        if not isinstance(value, kind) or (bool not in kind and isinstance(value, bool)):
            raise ValueError(f"{key}: expected {'a number' if key == 'interval' else kind[0].__name__}")
        if key == "interval":
            if not 0 < float(value) <= 3600:  # type: ignore[arg-type]
                raise ValueError("interval: expected seconds, more than 0 and at most 3600")
            value = float(value)  # type: ignore[arg-type]
        values[key] = value
    return Config(**values)  # type: ignore[arg-type]


def _overview(value: object) -> tuple[str, ...]:
    if not isinstance(value, dict):
        raise ValueError("overview: expected a table ([overview])")
    unknown = set(value) - {"hide"}
    if unknown:
        raise ValueError(f"overview: unknown key {sorted(unknown)[0]!r} (known: hide)")
    hide = value.get("hide", [])
    if not isinstance(hide, list) or not all(isinstance(h, str) for h in hide):
        raise ValueError("overview.hide: expected a list of column names")
    bad = [h for h in hide if h not in OVERVIEW_COLUMNS]
    if bad:
        raise ValueError(f"overview.hide: no column {bad[0]!r} (columns: {', '.join(OVERVIEW_COLUMNS)})")
    return tuple(hide)


def _hosts(value: object) -> tuple[str, ...]:
    if not isinstance(value, dict):
        raise ValueError("hosts: expected a table ([hosts] with ssh = [...])")
    unknown = set(value) - {"ssh"}
    if unknown:
        raise ValueError(f"hosts: unknown key {sorted(unknown)[0]!r} (known: ssh)")
    hosts = value.get("ssh", [])
    if not isinstance(hosts, list) or not all(isinstance(h, str) for h in hosts):
        raise ValueError('hosts.ssh: expected a list of host names or ranges ("gpu[01-16]")')
    return tuple(hosts)


def _ssh(value: object) -> dict[str, object]:
    if not isinstance(value, dict):
        raise ValueError("ssh: expected a table ([ssh])")
    known: dict[str, type | tuple[type, ...]] = {
        "config": str, "connect_timeout": int, "detail": (int, float), "values": (int, float),
    }  # fmt: skip
    out: dict[str, object] = {}
    for key, v in value.items():
        kind = known.get(key)
        if kind is None:
            raise ValueError(f"ssh: unknown key {key!r} (known: {', '.join(known)})")
        if not isinstance(v, kind) or isinstance(v, bool):
            raise ValueError(f"ssh.{key}: expected {'a path' if key == 'config' else 'a number of seconds'}")
        if key == "connect_timeout" and not 1 <= int(v) <= 600:  # type: ignore[call-overload]
            raise ValueError("ssh.connect_timeout: expected seconds, 1 to 600")
        if key == "detail" and not 1 <= float(v) <= 3600:  # type: ignore[arg-type]
            raise ValueError("ssh.detail: expected seconds, 1 to 3600")
        if key == "values" and not 0.1 <= float(v) <= 3600:  # type: ignore[arg-type]
            raise ValueError("ssh.values: expected seconds, 0.1 to 3600")
        out[f"ssh_{key}"] = float(v) if key in ("detail", "values") else v  # type: ignore[arg-type]
    return out


def _idle(value: object) -> tuple[int | None, float | None]:
    from gputui.core.errors import TimeFormatError
    from gputui.core.timefmt import parse_duration

    if not isinstance(value, dict):
        raise ValueError("idle: expected a table ([idle])")
    unknown = set(value) - {"threshold", "window"}
    if unknown:
        raise ValueError(f"idle: unknown key {sorted(unknown)[0]!r} (known: threshold, window)")
    threshold = value.get("threshold")
    if threshold is not None and (type(threshold) is not int or not 1 <= threshold <= 100):
        raise ValueError("idle.threshold: expected a whole per cent from 1 to 100")
    window = value.get("window")
    if window is None:
        return threshold, None
    if type(window) in (int, float):
        seconds = float(window)
    elif isinstance(window, str):
        try:
            seconds = parse_duration(window)
        except TimeFormatError as e:
            raise ValueError(f"idle.window: {e}") from None
    else:
        raise ValueError('idle.window: expected a duration such as "10m" or seconds')
    if not 0 <= seconds <= 366 * 86400:
        raise ValueError("idle.window: out of range")
    return threshold, seconds


def apply_config(args: argparse.Namespace, config: Config) -> None:
    """Fill what the command line left unset from ``config`` (the command line always wins): the source for every
    command that takes one, the dashboard's own settings for the dashboard."""
    if hasattr(args, "source") and args.source is None and config.source is not None:
        args.source = config.source
    if getattr(args, "command", None) == "idle":
        if args.threshold is None and config.idle_threshold is not None:
            args.threshold = str(config.idle_threshold)
        if args.window is None and config.idle_window_s is not None:
            args.window = f"{config.idle_window_s:g}s"
        return
    if getattr(args, "command", "ui") not in (None, "ui"):
        return
    for name in ("theme", "interval"):
        if hasattr(args, name) and getattr(args, name) is None and getattr(config, name) is not None:
            setattr(args, name, getattr(config, name))
    for name in ("readonly", "paused"):
        if hasattr(args, name) and not getattr(args, name) and getattr(config, name):
            setattr(args, name, True)
    args.hide_columns = config.hide
    args.idle_radar = (config.idle_threshold, config.idle_window_s)
