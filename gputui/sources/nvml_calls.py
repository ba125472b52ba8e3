"""The one place every NVML call goes through: errors become N/A or a lost GPU, never an exception upward.

NotSupported, NoPermission and FunctionNotFound (and a function the installed nvidia-ml-py lacks) mean
N/A; they are logged once per (function, GPU) and not asked again, since they do not change while the
GPU stays as it is. GpuIsLost, Unknown and ResetRequired raise :class:`GpuLost` for the caller to mark
that GPU; the other GPUs carry on.
"""

from __future__ import annotations

import sys
from collections.abc import Hashable, Sequence
from typing import Any


class _Log:
    """The gputui.nvml logger, imported on first use: a one-shot poll skips logging's import. Until something
    has imported logging nobody can have lowered the root logger's level from WARNING, so an info line would be
    dropped: it is dropped without the import."""

    def info(self, *args: Any) -> None:
        if "logging" in sys.modules:
            self.__getattr__("info")(*args)

    def __getattr__(self, name: str) -> Any:
        import logging

        return getattr(logging.getLogger("gputui.nvml"), name)


log: Any = _Log()

# NVML return codes (nvml.h); fixed by the driver ABI, so any NVML module double can use them.
NOT_SUPPORTED = 3
NO_PERMISSION = 4
NOT_FOUND = 6
INSUFFICIENT_SIZE = 7
DRIVER_NOT_LOADED = 9
FUNCTION_NOT_FOUND = 13
GPU_IS_LOST = 15
RESET_REQUIRED = 16
LIB_RM_VERSION_MISMATCH = 18
UNINITIALIZED = 1
UNKNOWN = 999

#: Answers that stay the same for as long as the GPU does: asked once, then N/A without a call.
STABLE_NA = frozenset({NOT_SUPPORTED, NO_PERMISSION, FUNCTION_NOT_FOUND})
#: The GPU (or, for the node-wide codes, the driver) stopped answering.
LOST = frozenset({GPU_IS_LOST, UNKNOWN, RESET_REQUIRED, DRIVER_NOT_LOADED, UNINITIALIZED, LIB_RM_VERSION_MISMATCH})
#: Expected misses (an empty MIG device slot): N/A without a log line.
QUIET = frozenset({NOT_FOUND})

_ABSENT = object()


class GpuLost(Exception):
    """NVML reported the GPU (``gpu``; None: the whole driver) lost or in an unknown state."""

    def __init__(self, gpu: int | None, reason: str, code: int | None = None) -> None:
        super().__init__(reason)
        self.gpu = gpu
        self.reason = reason
        self.code = code


def text(value: Any) -> Any:
    """NVML strings arrive as bytes or str depending on the nvidia-ml-py version."""
    return value.decode(errors="replace") if isinstance(value, bytes) else value


class NvmlCalls:
    """Calls functions of an NVML module by name, counting them and mapping their errors."""

    def __init__(self, nvml: Any) -> None:
        self.nvml = nvml
        self.count = 0  # NVML calls made, for the benchmark
        self.last_error: str | None = None  # why the latest call that gave N/A did (NVML's words)
        self._why: dict[tuple[str, int | None, Hashable], str] = {}  # why each lasting N/A is one
        self._na: set[tuple[str, int | None, Hashable]] = set()
        self._logged: set[tuple[str, int | None]] = set()
        self._variant: dict[tuple[str, ...], str] = {}
        err = getattr(nvml, "NVMLError", None)
        self._nvml_error: type[BaseException] = err if isinstance(err, type) else _NoSuchError
        mismatch = getattr(nvml, "NVMLLibraryMismatchError", None)
        self._mismatch: type[BaseException] = mismatch if isinstance(mismatch, type) else _NoSuchError

    def __call__(self, name: str, gpu: int | None, *args: Any, key: Hashable = None) -> Any:
        """``nvml.<name>(*args)``, or None for N/A; raises GpuLost. ``key`` tells apart calls whose N/A is
        remembered separately (a MIG device's handle, a clock type)."""
        value = self._call(name, gpu, args, key)
        return None if value is _ABSENT else value

    def first(self, names: Sequence[str], gpu: int | None, *args: Any, key: Hashable = None) -> Any:
        """Call the newest of several versions of a function (``names`` newest first) that the driver has.

        A newer version that raises Uninitialized while an older one answers cannot be called here: pynvml's
        own code for it needs the C library, which a fake that patches pynvml's functions (as gpustat's
        tests do) has not loaded. It is skipped from then on, as a missing one is."""
        group = tuple(names)
        chosen = self._variant.get(group)
        uninitialised: list[GpuLost] = []
        for name in (chosen,) if chosen else group:
            try:
                value = self._call(name, gpu, args, key, quiet_absent=True)
            except GpuLost as e:
                if e.code != UNINITIALIZED or chosen or name == group[-1]:
                    raise
                uninitialised.append(e)
                continue
            if value is not _ABSENT:
                self._variant[group] = name
                for skipped in uninitialised:
                    self._note(skipped.reason.split(":", 1)[0], None, "needs the C library, which is not loaded")
                return value
        if uninitialised:
            raise uninitialised[0]
        self._note(group[0], None, "neither it nor an older version (" + ", ".join(group[1:]) + ") is available")
        return None

    def absent(self, name: str) -> bool:
        """Whether the NVML module lacks ``name`` (or it was found missing from the driver)."""
        return (name, None, None) in self._na or getattr(self.nvml, name, None) is None

    def is_na(self, name: str, gpu: int | None, key: Hashable = None) -> bool:
        """Whether ``name`` on ``gpu`` gave a lasting N/A (NotSupported, NoPermission), so is not asked again."""
        return (name, gpu, key) in self._na or (name, None, None) in self._na

    def why(self, name: str, gpu: int | None, key: Hashable = None) -> str | None:
        """NVML's words for a lasting N/A of ``name`` on ``gpu`` (or of the function everywhere), if it is one."""
        return self._why.get((name, gpu, key)) or self._why.get((name, None, None))

    def forget(self, gpu: int | None) -> None:
        """Ask everything again for ``gpu`` (it came back, or its MIG mode changed)."""
        self._na = {k for k in self._na if k[1] != gpu}
        self._why = {k: v for k, v in self._why.items() if k[1] != gpu}
        self._logged = {k for k in self._logged if k[1] != gpu}

    # ---------------------------------------------------------------------------------------
    def _call(self, name: str, gpu: int | None, args: tuple, key: Hashable, quiet_absent: bool = False) -> Any:
        if (name, None, None) in self._na:
            return _ABSENT
        if (name, gpu, key) in self._na:
            return None
        fn = getattr(self.nvml, name, None)
        if fn is None:
            return self._absent(name, "not in the installed nvidia-ml-py", quiet_absent)
        self.count += 1
        try:
            value = fn(*args)
        except self._mismatch:
            return self._absent(name, "not in this driver", quiet_absent)
        except self._nvml_error as e:
            code = getattr(e, "value", None)
            if code in LOST:
                raise GpuLost(gpu, f"{name}: {e}", code) from None
            if code in QUIET:
                return None
            if code == FUNCTION_NOT_FOUND:
                return self._absent(name, str(e), quiet_absent)
            if code in STABLE_NA:
                self._na.add((name, gpu, key))
                self._why[(name, gpu, key)] = str(e)
            self.last_error = str(e)
            self._note(name, gpu, str(e))
            return None
        return text(value)

    def _absent(self, name: str, why: str, quiet: bool) -> Any:
        self._na.add((name, None, None))  # missing from the library or the driver: no GPU has it
        self._why[(name, None, None)] = why
        self.last_error = why
        if not quiet:
            self._note(name, None, why)
        return _ABSENT

    def _note(self, name: str, gpu: int | None, why: str) -> None:
        if (name, gpu) in self._logged:
            return
        self._logged.add((name, gpu))
        where = "all GPUs" if gpu is None else f"GPU {gpu}"
        log.info("NVML %s on %s: %s; shown as N/A", name, where, why)


class _NoSuchError(Exception):
    """Stands in for an exception class the NVML module does not define, so that no handler matches."""
