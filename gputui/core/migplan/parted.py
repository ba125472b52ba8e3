"""The proposed layouts as a mig-parted configuration (NVIDIA/mig-parted's ``version: v1`` YAML), one named config
per node: ``nvidia-mig-parted apply -f FILE -c gputui-NODE`` on that node reaches the same instance counts.

mig-parted takes counts per profile, not placements, and re-creates a changed GPU's instances all at once, so it
suits GPUs that are drained first; the nvidia-smi commands keep running instances where they are.
"""

from __future__ import annotations

import re
from collections import Counter

from gputui.core.migplan.layouts import Slot

_NAME = re.compile(r"[^A-Za-z0-9._-]")


def config_name(node: str) -> str:
    return "gputui-" + _NAME.sub("-", node)


def yaml_config(per_node: dict[str, list[tuple[int, tuple[Slot, ...]]]]) -> str:
    """``per_node``: node -> [(GPU index, layout)]; GPUs with equal counts share one entry."""
    if not per_node:
        return "version: v1\nmig-configs: {}\n"
    lines = ["version: v1", "mig-configs:"]
    for node, gpus in per_node.items():
        lines.append(f"  {config_name(node)}:")
        groups: dict[tuple[tuple[str, int], ...], list[int]] = {}
        for index, layout in sorted(gpus):
            counts = tuple(sorted(Counter(s.profile for s in layout).items()))
            groups.setdefault(counts, []).append(index)
        for counts, indices in groups.items():
            lines.append(f"    - devices: [{', '.join(str(i) for i in indices)}]")
            lines.append("      mig-enabled: true")
            if not counts:
                lines.append("      mig-devices: {}")
                continue
            lines.append("      mig-devices:")
            for profile, n in counts:
                lines.append(f'        "{profile}": {n}')
    return "\n".join(lines) + "\n"


def parse_counts(text: str) -> dict[str, dict[int, dict[str, int]]]:
    """Read back what :func:`yaml_config` writes (config -> GPU index -> profile counts), for the tests and for
    ``mig apply``; only that subset of YAML is understood."""
    out: dict[str, dict[int, dict[str, int]]] = {}
    config: str | None = None
    devices: list[int] = []
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line or line.startswith(("version:", "mig-configs:")):
            continue
        if m := re.fullmatch(r"  ([A-Za-z0-9._-]+):", line):
            config = m.group(1)
            out[config] = {}
        elif m := re.fullmatch(r"    - devices: \[([0-9, ]*)\]", line):
            devices = [int(x) for x in m.group(1).split(",") if x.strip()]
            assert config is not None
            for d in devices:
                out[config][d] = {}
        elif m := re.fullmatch(r'        "([^"]+)": (\d+)', line):
            assert config is not None
            for d in devices:
                out[config][d][m.group(1)] = int(m.group(2))
        elif line.strip() in ("mig-enabled: true", "mig-devices:", "mig-devices: {}"):
            continue
        else:
            raise ValueError(f"unexpected line in a mig-parted config: {line!r}")
    return out
