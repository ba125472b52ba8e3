"""The per-user state directory (XDG): private to the user, created 0700, its files 0600.

``GPUTUI_STATE_DIR`` overrides the location (tests, several independent setups); otherwise
``$XDG_STATE_HOME/gputui``, else ``~/.local/state/gputui``, as the XDG base directory specification says.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from gputui.core.errors import GputuiError

ENV_VAR = "GPUTUI_STATE_DIR"
DIR_MODE = 0o700
FILE_MODE = 0o600


class StateDirError(GputuiError):
    """The state directory cannot be created or is not safely ours."""


def state_dir_path() -> Path:
    """Where the state directory is, without creating it."""
    override = os.environ.get(ENV_VAR)
    if override:
        return Path(override).expanduser()
    xdg = os.environ.get("XDG_STATE_HOME", "")
    # the specification says a relative path is invalid and must be ignored
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "gputui"
    return Path.home() / ".local" / "state" / "gputui"


def make_private_dir(path: Path) -> Path:
    """Create ``path`` (and its parents) with mode 0700, or tighten an existing one that is ours."""
    try:
        path.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
        st = path.lstat()
    except OSError as e:
        raise StateDirError(f"cannot create state directory {path}: {e.strerror or e}") from None
    if not stat.S_ISDIR(st.st_mode):
        raise StateDirError(f"state directory {path} is not a directory")
    if st.st_uid != os.getuid():
        raise StateDirError(f"state directory {path} belongs to another user (uid {st.st_uid})")
    if stat.S_IMODE(st.st_mode) & 0o022:
        # Another user may already have written into it: refused, not quietly tightened.
        raise StateDirError(
            f"state directory {path} is writable by other users (mode {stat.S_IMODE(st.st_mode):04o}); "
            f"check what is in it, then make it private with: chmod 700 {path}"
        )
    if stat.S_IMODE(st.st_mode) != DIR_MODE:
        try:
            path.chmod(DIR_MODE)
        except OSError as e:
            raise StateDirError(f"cannot make state directory {path} private: {e.strerror or e}") from None
    return path


def check_private(path: Path, what: str) -> None:
    """Refuse ``path`` (a state directory or database) unless it is ours and no other user can write it."""
    try:
        st = path.stat()
    except OSError:
        return  # not there (yet): whoever creates it makes it private
    if st.st_uid != os.geteuid():
        raise StateDirError(f"{what} {path} belongs to another user (uid {st.st_uid}); not opened")
    if stat.S_IMODE(st.st_mode) & 0o022:
        raise StateDirError(
            f"{what} {path} is writable by other users (mode {stat.S_IMODE(st.st_mode):04o}); not opened: "
            f"check it, then chmod go-w {path}"
        )


def state_dir() -> Path:
    """The state directory, created private to the user if missing."""
    return make_private_dir(state_dir_path())


def create_private_file(path: Path, truncate: bool = False) -> int:
    """Open ``path`` for writing, created 0600 whatever the umask; returns the descriptor."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC | (os.O_TRUNC if truncate else os.O_APPEND)
    fd = os.open(path, flags, FILE_MODE)
    try:
        os.fchmod(fd, FILE_MODE)  # an existing file keeps its old mode otherwise
    except OSError:
        os.close(fd)
        raise
    return fd


def write_private_file(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (a temporary file renamed over it), mode 0600."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = create_private_file(tmp, truncate=True)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
