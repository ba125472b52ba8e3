"""`python -m gputui.bench torn_recording [--mb 500] [--gpus 64]`: open a large recording that has no index.

A recorder killed mid-write leaves a file without its index and trailer, so the reader rebuilds the index by
walking every record. This builds such a file of about ``--mb`` megabytes (one real 300-frame segment of a
busy cluster, repeated with its timestamps moved on, then cut in the middle of a record), and in a fresh
process opens it, reads its last frame and `gputui snapshot`s it, reporting the time and the peak memory of
that process (ru_maxrss), so the figure is the reader's alone.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_CHILD = """
import json, resource, sys, time
t0 = time.perf_counter()
from gputui.sources.recording import RecordingReader
r = RecordingReader(sys.argv[1])
last = r.frame(r.frame_count - 1)
took = time.perf_counter() - t0
print(json.dumps({"frames": r.frame_count, "torn": r.torn, "open_and_last_s": took,
                  "maxrss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "gpus": last.gpu_count}))
"""


def build(path: Path, megabytes: int, gpus: int) -> None:
    from gputui.bench._ui_cluster import busy_frames
    from gputui.sources.recording import RecordingWriter
    from gputui.sources.recording.fileformat import HEAD, pack_record, read_header

    seg_path = path.with_suffix(".seg")
    with RecordingWriter(seg_path, keyframe_interval=300) as w:
        for snap in busy_frames(300, nodes=max(1, gpus // 8)):
            w.append(snap)
    data = seg_path.read_bytes()
    seg_path.unlink()
    header_end = read_header(data, "seg")[1]
    records = []
    pos = header_end
    while pos + HEAD.size <= len(data):
        kind, length, ts, _crc = HEAD.unpack_from(data, pos)
        if kind in (b"K", b"D"):
            records.append((kind, ts, data[pos + HEAD.size : pos + HEAD.size + length]))
        pos += HEAD.size + length
    span = records[-1][1] - records[0][1] + 1.0
    with open(path, "wb") as out:
        out.write(data[:header_end])
        shift = 0.0
        while out.tell() < megabytes * 1_000_000:
            out.write(b"".join(pack_record(k, ts + shift, p) for k, ts, p in records))
            shift += span
        k, ts, p = records[1]
        out.write(pack_record(k, ts + shift, p)[: HEAD.size + len(p) // 2])  # torn: cut inside a record


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m gputui.bench torn_recording")
    ap.add_argument("--mb", type=int, default=500)
    ap.add_argument("--gpus", type=int, default=64)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "torn.gtrec"
        t0 = time.perf_counter()
        build(path, args.mb, args.gpus)
        size = path.stat().st_size
        print(f"built a torn recording of {size / 1e6:.0f} MB in {time.perf_counter() - t0:.1f} s")
        out = subprocess.run([sys.executable, "-c", _CHILD, str(path)], capture_output=True, text=True, check=True)
        res = json.loads(out.stdout)
        print(f"open (index rebuilt by a streaming scan) and read the last frame: {res['open_and_last_s']:.1f} s, "
              f"{res['frames']} frames, torn {res['torn']}, peak memory {res['maxrss_mib']:.0f} MiB "
              f"({size / 1e6 / res['open_and_last_s']:.0f} MB/s)")  # fmt: skip
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main(sys.argv[1:]))
