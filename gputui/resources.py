"""Where run-time files live: inside the installed package, or at the top of a source checkout."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

# Paths as strings until asked for: a live one-shot (`gputui snapshot` on NVML) needs none, nor pathlib's import
_PKG = os.path.dirname(os.path.realpath(__file__))
_CANDIDATES = (os.path.join(_PKG, "_bundled"), os.path.dirname(_PKG))

DEMO_RECORDING = "fixtures/demo/demo-cluster.gtrec"


def bundled_path(relative: str) -> Path:
    """The path of a bundled file ('themes/app.tcss', 'fixtures/demo/...'), installed or not."""
    from pathlib import Path

    for base in _CANDIDATES:
        p = Path(base, relative)
        if p.exists():
            return p
    return Path(_CANDIDATES[0], relative)


def demo_recording() -> Path:
    return bundled_path(DEMO_RECORDING)


def themes_dir() -> Path:
    return bundled_path("themes")
