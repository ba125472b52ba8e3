"""Files that are not nvidia-smi logs, or are built to hurt a parser, fail fast with one line."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

import gputui.sources.nvsmi.xml_stream as xml_stream
from gputui.core.errors import SourceError
from gputui.sources.nvsmi import load_nvsmi_log, sniff_nvsmi

ROOT = Path(__file__).resolve().parents[2] / "fixtures"
NVSMI = ROOT / "nvidia-smi"
HOSTILE = ROOT / "hostile"
EXPECTED = "(expected `nvidia-smi -q -x` XML, `nvidia-smi -q` text or `--query-gpu` CSV)"
NOT_A_LOG = EXPECTED[:-1] + "; a header-less CSV needs --fields)"


def refused(path: Path, **kwargs: object) -> str:
    """The one-line message loading ``path`` fails with; it must come quickly."""
    start = time.perf_counter()
    with pytest.raises(SourceError) as e:
        load_nvsmi_log(path, **kwargs)  # type: ignore[arg-type]
    assert time.perf_counter() - start < 5
    message = str(e.value)
    assert "\n" not in message and message.startswith(str(path))
    return message


@pytest.mark.parametrize("name", ["billion-laughs.xml", "external-entity-file.xml", "external-entity-http.xml"])
def test_entity_declarations_are_refused(name: str) -> None:
    path = HOSTILE / name
    assert refused(path) == f"{path}: XML declares entities; refusing to expand them"


def test_an_external_dtd_is_never_loaded() -> None:
    # the DOCTYPE points at /etc/passwd and the body references an entity it would define
    (gpu,) = load_nvsmi_log(HOSTILE / "external-dtd-undeclared-entity.xml").frames[0].nodes[0].gpus
    assert gpu.name == "NVIDIA A100-SXM4-80GB"
    assert gpu.uuid == "GPU-00000000-0000-0000-0000-000000000001"


def test_absurd_nesting_is_refused(tmp_path: Path) -> None:
    depth = 100_000
    path = tmp_path / "deep.xml"
    path.write_text(
        '<?xml version="1.0"?>\n<nvidia_smi_log>' + "<gpu>" * depth + "</gpu>" * depth + "</nvidia_smi_log>"
    )
    assert refused(path) == f"{path}: XML nested deeper than 64 levels; not an nvidia-smi log"


def test_an_oversized_document_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(xml_stream, "MAX_DOCUMENT_BYTES", 4096)
    monkeypatch.setattr(xml_stream, "CHUNK_BYTES", 1024)
    path = tmp_path / "big.xml"
    path.write_text('<?xml version="1.0"?>\n<nvidia_smi_log><gpu id="' + "x" * 100_000 + '"/></nvidia_smi_log>')
    assert "larger than" in refused(path)


def test_other_xml_is_not_a_log() -> None:
    path = HOSTILE / "foreign-root.xml"
    assert refused(path) == f"{path}: not an nvidia-smi log (XML root element <svg>, expected <nvidia_smi_log>)"


def test_help_query_gpu_is_not_a_log() -> None:
    path = NVSMI / "netdata-help-query-gpu.txt"
    assert sniff_nvsmi(path) is None
    assert refused(path) == f"{path}: not an nvidia-smi log {NOT_A_LOG}"


def test_binary_empty_and_missing_files(tmp_path: Path) -> None:
    binary = tmp_path / "data.bin"
    binary.write_bytes(bytes(range(256)) * 64)
    assert refused(binary) == f"{binary}: not an nvidia-smi log {NOT_A_LOG}"
    assert refused(binary, fields=["name"]) == f"{binary}: not an nvidia-smi log {NOT_A_LOG}"
    empty = tmp_path / "empty.xml"
    empty.write_bytes(b"")
    assert refused(empty) == f"{empty}: empty file {EXPECTED}"
    missing = tmp_path / "nope.xml"
    assert refused(missing).startswith(f"{missing}: cannot open")
    assert refused(tmp_path).startswith(f"{tmp_path}: not a file")


def test_a_line_without_end_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "long.csv"
    path.write_text("timestamp, index, name\n2026/07/14 09:00:27.792, 0, " + "x" * 200_000)
    assert "longer than" in refused(path)


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("telegraf-a100-sxm4-v12.xml", "xml"),
        ("telegraf-dual-a5000-v13.xml", "xml"),
        ("netdata-tesla-p100.xml", "xml"),
        ("netdata-tesla-p100.csv", "csv"),
        ("exporter-h100-mig-590.48.01.txt", "capture"),
        ("exporter-l40s-595.80.txt", "capture"),
        ("netdata-help-query-gpu.txt", None),
        ("SOURCES.md", None),
    ],
)
def test_sniffing_the_fixtures(name: str, kind: str | None) -> None:
    assert sniff_nvsmi(NVSMI / name) == kind


def test_sniffing_hostile_xml_still_says_xml() -> None:
    # sniffing only looks; refusing is the loader's job
    assert sniff_nvsmi(HOSTILE / "billion-laughs.xml") == "xml"
    assert sniff_nvsmi(HOSTILE / "foreign-root.xml") == "xml"  # its DOCTYPE claims nvidia_smi_log
