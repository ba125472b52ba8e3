"""A plain `pip install .` must carry the run-time files: MIG tables, themes, the demo recording."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import REPO


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    out = tmp_path_factory.mktemp("wheel")
    p = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(REPO)],
        capture_output=True,
        text=True,
    )
    if p.returncode != 0:
        pytest.fail(f"building the wheel failed: {p.stderr[-2000:]}")
    (whl,) = out.glob("gputui-*.whl")
    return zipfile.ZipFile(whl)


def test_the_wheel_carries_the_run_time_files(wheel: zipfile.ZipFile) -> None:
    names = set(wheel.namelist())
    for needed in (
        "gputui/core/data/mig_profiles.json",
        "gputui/_bundled/fixtures/demo/demo-cluster.gtrec",
        "gputui/_bundled/themes/app.tcss",
    ):
        assert needed in names, needed
    demo = wheel.read("gputui/_bundled/fixtures/demo/demo-cluster.gtrec")
    assert demo == (REPO / "fixtures/demo/demo-cluster.gtrec").read_bytes()
    assert not any(n.startswith(("tests/", "fixtures/nvidia-smi")) for n in names)
    entry = wheel.read(next(n for n in names if n.endswith("entry_points.txt"))).decode()
    assert "gputui = gputui.cli:main" in entry


def test_resources_prefer_the_installed_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gputui.resources as res

    bundled = tmp_path / "_bundled"
    (bundled / "themes").mkdir(parents=True)
    monkeypatch.setattr(res, "_CANDIDATES", (bundled, REPO))
    assert res.themes_dir() == bundled / "themes"
    assert res.demo_recording() == REPO / "fixtures/demo/demo-cluster.gtrec"
