"""`python -m gputui.bench NAME [ARGS]`: run the benchmark module gputui.bench.NAME."""

from __future__ import annotations

import importlib
import pkgutil
import sys

import gputui.bench


def main(argv: list[str]) -> int:
    names = sorted(m.name for m in pkgutil.iter_modules(gputui.bench.__path__) if not m.name.startswith("_"))
    if not argv or argv[0] not in names:
        print(f"usage: python -m gputui.bench {{{','.join(names)}}} [ARGS]", file=sys.stderr)
        return 2
    mod = importlib.import_module(f"gputui.bench.{argv[0]}")
    return int(mod.main(argv[1:]) or 0)


raise SystemExit(main(sys.argv[1:]))
