"""Where run-time files live: inside the installed package, or at the top of a source checkout."""

from __future__ import annotations

from pathlib import Path

_PKG = Path(__file__).resolve().parent
_CANDIDATES = (_PKG / "_bundled", _PKG.parent)

DEMO_RECORDING = "fixtures/demo/demo-cluster.gtrec"


def bundled_path(relative: str) -> Path:
    """The path of a bundled file ('themes/app.tcss', 'fixtures/demo/...'), installed or not."""
    for base in _CANDIDATES:
        p = base / relative
        if p.exists():
            return p
    return _CANDIDATES[0] / relative


def demo_recording() -> Path:
    return bundled_path(DEMO_RECORDING)


def themes_dir() -> Path:
    return bundled_path("themes")
