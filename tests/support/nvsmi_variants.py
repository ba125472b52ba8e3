"""Real nvidia-smi logs of every format, taken from the fixtures the way operators keep them.

The capture bundles (fixtures/nvidia-smi/exporter-*.txt) hold each state's verbatim `nvidia-smi -q` and
`--query-gpu` output; cutting those sections out gives what `nvidia-smi -q -l` and `--query-gpu -l` would
have written to a file on that machine (the idle poll, then the load poll). Slicing is done here with plain
string operations, not with the importer under test.
"""

from __future__ import annotations

from pathlib import Path

NVSMI = Path(__file__).resolve().parents[2] / "fixtures" / "nvidia-smi"
BAR = "#" * 80
CAPTURES = sorted(NVSMI.glob("exporter-*.txt"))
XMLS = sorted(NVSMI.glob("*.xml"))


def section_outputs(capture: Path, command_prefix: str) -> list[str]:
    """The output of every section whose command starts with ``command_prefix``, in file order."""
    text = capture.read_text()
    out = []
    for block in text.split(BAR + "\n# ")[1:]:
        head, _, body = block.partition(BAR + "\n")
        command = next((ln[4:] for ln in head.splitlines() if ln.startswith("# $ ")), "")
        if command.startswith(command_prefix):
            out.append(body.rstrip("\n") + "\n\n")
    return out


def q_text_stream(capture: Path) -> str:
    """The `-q` outputs of a capture back to back, as `nvidia-smi -q -l N` writes them."""
    return "".join(section_outputs(capture, "nvidia-smi -q"))


def csv_log(capture: Path) -> str:
    """The `--query-gpu` outputs of a capture as one log: the header once, then each poll's rows."""
    polls = [s.strip("\n").splitlines() for s in section_outputs(capture, "nvidia-smi --query-gpu=")]
    header = polls[0][0]
    return "\n".join([header, *(row for poll in polls for row in poll[1:])]) + "\n"


def xml_stream(xml: Path, count: int = 3) -> str:
    """A `-q -x -l` log: the same document ``count`` times, back to back."""
    doc = xml.read_text()
    return (doc + ("" if doc.endswith("\n") else "\n")) * count


def csv_rows(capture: Path) -> list[dict[str, str]]:
    """Each `--query-gpu` row of a capture as field name -> the cell exactly as printed (units included)."""
    polls = [s.strip("\n").splitlines() for s in section_outputs(capture, "nvidia-smi --query-gpu=")]
    header = [c.strip().split(" [")[0] for c in polls[0][0].split(",")]
    return [dict(zip(header, (c.strip() for c in row.split(",")), strict=True)) for p in polls for row in p[1:]]


def csv_of(rows: list[dict[str, str]], fields: list[str], units: dict[str, str] | None = None) -> str:
    """A `--query-gpu=FIELDS --format=csv` log of ``rows``, as nvidia-smi prints it (header with units)."""
    units = units or {}
    head = ", ".join(f"{f} [{units[f]}]" if f in units else f for f in fields)
    return head + "\n" + "".join(", ".join(r[f] for f in fields) + "\n" for r in rows)
