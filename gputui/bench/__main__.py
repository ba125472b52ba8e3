"""`python -m gputui.bench NAME [ARGS]`: run the benchmark NAME, a module (or package) of gputui.bench or of one
of its groups (``sources``, ``fuzz``), which are folders of benchmarks, not benchmarks themselves."""

from __future__ import annotations

import importlib
import pkgutil
import sys

import gputui.bench

GROUPS = ("sources", "fuzz")


def benchmarks() -> dict[str, str]:
    """Each benchmark's name -> its module."""
    found: dict[str, str] = {}
    for m in pkgutil.iter_modules(gputui.bench.__path__):
        if m.name.startswith("_"):
            continue
        if m.name in GROUPS:
            group = importlib.import_module(f"gputui.bench.{m.name}")
            for sub in pkgutil.iter_modules(group.__path__):
                if not sub.name.startswith("_"):
                    found[sub.name] = f"gputui.bench.{m.name}.{sub.name}"
        else:
            found[m.name] = f"gputui.bench.{m.name}"
    return found


def main(argv: list[str]) -> int:
    found = benchmarks()
    if not argv or argv[0] not in found:
        print(f"usage: python -m gputui.bench {{{','.join(sorted(found))}}} [ARGS]", file=sys.stderr)
        return 2
    mod = importlib.import_module(found[argv[0]])
    return int(mod.main(argv[1:]) or 0)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
