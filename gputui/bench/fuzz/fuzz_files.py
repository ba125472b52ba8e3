"""`python -m gputui.bench fuzz_files [N]`: damaged copies of recordings and nvidia-smi logs, read back.

Each copy is a fixture with damage of one kind: bytes flipped, a run of bytes zeroed, or the file cut short,
at a random place (seeded, so a run is repeatable). A recording is opened and every frame read; a log is
loaded. The invariants: nothing raises but GputuiError (0 tracebacks); every frame the reader gives equals the
frame recorded at that time (0 silently wrong frames; a damaged one raises RecordingError naming it); no read
takes more than a few seconds (0 hangs); and ``gputui snapshot`` on the copy exits 0 or 2 with no control
character in what it prints. N copies per fixture (default 300).
"""

from __future__ import annotations

import io
import random
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path

from gputui.core.model import ClusterSnapshot

KINDS = ("flip", "zero", "cut")
RAW_CONTROLS = [chr(c) for c in range(32) if c != 10] + [chr(c) for c in range(0x7F, 0xA0)]


def damage(data: bytes, kind: str, rng: random.Random, start: int = 0) -> bytes:
    """``data`` with one damage of ``kind`` at a random place after ``start``."""
    out = bytearray(data)
    at = rng.randrange(start, len(out))
    if kind == "flip":
        for i in range(rng.randint(1, 3)):
            j = min(len(out) - 1, at + i * rng.randint(0, 64))
            out[j] ^= 1 << rng.randrange(8)
    elif kind == "zero":
        out[at : at + rng.randint(1, 64)] = bytes(min(len(out) - at, 64))[: len(out[at : at + 64])]
    else:
        del out[at:]
    return bytes(out)


@dataclass
class Tally:
    copies: int = 0
    refused: int = 0  # opening said one line (no intact frame, not a recording)
    frames_read: int = 0
    frames_damaged: int = 0  # frames that raised RecordingError naming them
    wrong: int = 0
    tracebacks: list[str] = field(default_factory=list)
    slowest: float = 0.0


def originals(path: Path) -> dict[float, ClusterSnapshot]:
    from gputui.sources.recording import RecordingReader

    r = RecordingReader(path)
    try:
        return {r.timestamp(i): r.frame(i) for i in range(r.frame_count)}
    finally:
        r.close()


def check_recording(path: Path, truth: dict[float, ClusterSnapshot], tally: Tally) -> None:
    from gputui.core.errors import GputuiError
    from gputui.sources.recording import RecordingReader

    try:
        r = RecordingReader(path)
    except GputuiError:
        tally.refused += 1
        return
    try:
        for i in range(r.frame_count):
            try:
                snap = r.frame(i)
            except GputuiError as e:
                assert f"frame {i}" in str(e) or "frame" in str(e), str(e)
                tally.frames_damaged += 1
                continue
            tally.frames_read += 1
            if truth.get(snap.timestamp) != snap:
                tally.wrong += 1
    finally:
        r.close()


def check_snapshot_cmd(path: Path, tally: Tally) -> None:
    from gputui.cli import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["snapshot", str(path)])
    text = out.getvalue() + err.getvalue()
    if code not in (0, 2) or "Traceback" in text:
        tally.tracebacks.append(f"{path.name}: exit {code}: {text[-300:]!r}")
    raw = [c for c in RAW_CONTROLS if c in text]
    if raw:
        tally.tracebacks.append(f"{path.name}: raw control characters {raw!r} written")


def run_recording(fixture: Path, copies: int, seed: int, work: Path, with_cli: bool = True) -> Tally:
    from gputui.sources.recording.fileformat import read_header

    data = fixture.read_bytes()
    _, first = read_header(data[: 64 * 1024], str(fixture))
    truth = originals(fixture)

    def check(target: Path, n: int, tally: Tally) -> None:
        check_recording(target, truth, tally)
        if with_cli and n % 5 == 0:
            check_snapshot_cmd(target, tally)

    return _damaged_copies(fixture, data, copies, seed, work, check, start=first, suffix=".gtrec")


def run_log(fixture: Path, copies: int, seed: int, work: Path) -> Tally:
    from gputui.core.errors import GputuiError
    from gputui.sources.nvsmi import load_nvsmi_log

    def check(target: Path, n: int, tally: Tally) -> None:
        try:
            load_nvsmi_log(target)
            tally.frames_read += 1
        except GputuiError:
            tally.refused += 1

    return _damaged_copies(fixture, fixture.read_bytes(), copies, seed, work, check, suffix=fixture.suffix)


def _damaged_copies(
    fixture: Path,
    data: bytes,
    copies: int,
    seed: int,
    work: Path,
    check: Callable[[Path, int, Tally], None],
    *,
    suffix: str,
    start: int = 0,
) -> Tally:
    """``copies`` damaged copies of ``data`` (the damage kinds in turn, seeded), each written under ``work``, read by
    ``check`` and removed; whatever else ``check`` raises is counted as a traceback."""
    rng = random.Random(seed)
    tally = Tally()
    for n in range(copies):
        kind = KINDS[n % len(KINDS)]
        target = work / f"{fixture.stem}-{n}-{kind}{suffix}"
        target.write_bytes(damage(data, kind, rng, start=start))
        t0 = time.perf_counter()
        try:
            check(target, n, tally)
        except Exception as e:  # noqa: BLE001 - counted: the point of the run
            tally.tracebacks.append(f"{target.name}: {type(e).__name__}: {e}")
        tally.slowest = max(tally.slowest, time.perf_counter() - t0)
        tally.copies += 1
        target.unlink()
    return tally


def main(argv: list[str]) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m gputui.bench fuzz_files")
    ap.add_argument("count", nargs="?", type=int, default=300, help="damaged copies of each fixture")
    copies = ap.parse_args(argv).count
    root = Path(__file__).resolve().parents[3] / "fixtures"
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for fixture in [root / "demo" / "demo-cluster.gtrec"]:
            t = run_recording(fixture, copies, 1, work)
            print(f"{fixture.name}: {t.copies} damaged copies, {t.refused} refused, {t.frames_read} frames read, "
                  f"{t.frames_damaged} damaged frames named, {t.wrong} wrong, {len(t.tracebacks)} tracebacks, "
                  f"slowest {t.slowest:.2f} s")  # fmt: skip
            bad += t.wrong + len(t.tracebacks)
            for line in t.tracebacks[:5]:
                print("  ", line)
        for fixture in sorted((root / "nvidia-smi").glob("*.[cx][sm][vl]")):
            t = run_log(fixture, max(1, copies // 10), 2, work)
            print(f"{fixture.name}: {t.copies} copies, {t.refused} refused, {len(t.tracebacks)} tracebacks, "
                  f"slowest {t.slowest:.2f} s")  # fmt: skip
            bad += len(t.tracebacks)
            for line in t.tracebacks[:3]:
                print("  ", line)
    return 1 if bad else 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main(sys.argv[1:]))
