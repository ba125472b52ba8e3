"""bench/gpm_check.py, the check for a machine with a GPU: it answers without a driver, and only reads."""

from __future__ import annotations

import re
import subprocess
import sys

from conftest import REPO

SCRIPT = REPO / "bench" / "gpm_check.py"


def test_without_a_driver_it_says_so_and_exits_0() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--seconds", "0"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "no NVIDIA driver answered" in done.stdout or "GPU 0:" in done.stdout


def test_it_calls_no_nvml_setter_and_no_mig_or_mps_control() -> None:
    text = SCRIPT.read_text()
    code = "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith("#"))
    calls = set(re.findall(r"nvml\.(nvml\w+)", code))
    assert calls and all(re.match(r"nvml(DeviceGet|GpmQuery|SystemGet)", c) for c in calls), calls
    for forbidden in ("Set", "Create", "Destroy", "Reset", "mps-control", '"mig"', "-mig", "--gpu-reset", "-pm"):
        assert forbidden not in code.split('"""', 2)[2], forbidden
