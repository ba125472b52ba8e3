"""The dashboard's model (``gputui.dashboard``) loads without Textual or Rich: the UI shell draws it."""

from __future__ import annotations

import subprocess
import sys


def test_dashboard_imports_no_textual_or_rich() -> None:
    code = (
        "import sys, pkgutil, importlib, gputui.dashboard as d\n"
        "for m in pkgutil.walk_packages(d.__path__, 'gputui.dashboard.'): importlib.import_module(m.name)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich') or m.startswith('gputui.ui'))\n"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""
