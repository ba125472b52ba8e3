"""The scheduler package loads its modules on first use: a leaf import stays light, every public name resolves."""

from __future__ import annotations

import subprocess
import sys

import gputui.core.scheduler as scheduler


def test_every_public_name_resolves_to_its_module() -> None:
    for name in scheduler.__all__:
        value = getattr(scheduler, name)
        assert value.__module__.startswith("gputui.core.scheduler."), name


def test_unknown_name_is_an_attribute_error() -> None:
    try:
        scheduler.no_such_thing  # noqa: B018
    except AttributeError as e:
        assert "no_such_thing" in str(e)
    else:
        raise AssertionError("expected AttributeError")


def test_a_leaf_import_does_not_load_the_whole_scheduler() -> None:
    code = (
        "import sys, gputui.core.scheduler.errors, gputui.core.scheduler.config\n"
        "print(sorted(m for m in sys.modules if m.startswith('gputui.core.scheduler.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['gputui.core.scheduler.config', 'gputui.core.scheduler.errors']"


def test_no_lazy_name_is_shadowed_by_a_submodule() -> None:
    """Importing a submodule sets it as a package attribute, which would hide a lazy name spelt the same."""
    from pathlib import Path

    submodules = {p.stem for p in Path(scheduler.__file__).parent.glob("*.py")}
    assert not submodules & set(scheduler.__all__)
