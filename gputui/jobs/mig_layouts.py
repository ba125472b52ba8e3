"""The MIG layouts that `mig apply --simulate` gave a replay's GPUs, kept per queue in the state directory
(``mig-layouts.json``, 0600) so that the dashboard, the scheduler and later commands see them until reset."""

from __future__ import annotations

import json
from pathlib import Path

from gputui.core.migplan.reslice import LayoutSpec, apply_layouts
from gputui.core.model import ClusterSnapshot
from gputui.statedir import write_private_file

FILE_NAME = "mig-layouts.json"


class MigLayouts:
    """One queue's re-sliced GPUs: read again when the file changes, written atomically."""

    def __init__(self, root: Path, cluster: str) -> None:
        self.path = root / FILE_NAME
        self.cluster = cluster
        self._stamp: tuple[int, int] | None = None
        self._layouts: dict[tuple[str, int], LayoutSpec] = {}

    def _read_all(self) -> dict:
        try:
            data = json.loads(self.path.read_text())
        except FileNotFoundError:
            return {}
        except (OSError, ValueError):
            return {}  # a damaged file re-slices nothing; the next apply writes a good one
        return data if isinstance(data, dict) else {}

    def layouts(self) -> dict[tuple[str, int], LayoutSpec]:
        try:
            st = self.path.stat()
            stamp = (st.st_mtime_ns, st.st_size)
        except OSError:
            self._stamp, self._layouts = None, {}
            return {}
        if stamp != self._stamp:
            self._stamp = stamp
            out: dict[tuple[str, int], LayoutSpec] = {}
            mine = self._read_all().get(self.cluster, {})
            for key, insts in mine.items() if isinstance(mine, dict) else ():
                node, _, index = str(key).rpartition("/")
                try:
                    out[(node, int(index))] = tuple((int(g), str(p), int(s)) for g, p, s in insts)
                except (TypeError, ValueError):
                    continue
            self._layouts = out
        return self._layouts

    def apply(self, snap: ClusterSnapshot) -> ClusterSnapshot:
        return apply_layouts(snap, self.layouts())

    def save(self, changes: dict[tuple[str, int], LayoutSpec]) -> None:
        data = self._read_all()
        mine = data.get(self.cluster)
        mine = dict(mine) if isinstance(mine, dict) else {}
        for (node, index), spec in changes.items():
            mine[f"{node}/{index}"] = [list(x) for x in spec]
        data[self.cluster] = mine
        write_private_file(self.path, json.dumps(data, indent=1).encode())

    def reset(self) -> bool:
        """Forget this queue's layouts; whether there were any."""
        data = self._read_all()
        had = bool(data.pop(self.cluster, None))
        if had:
            write_private_file(self.path, json.dumps(data, indent=1).encode())
        return had
