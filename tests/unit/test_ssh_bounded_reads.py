"""What a host writes between the SSH source's markers is read with a bound: the XML document, the process list
and a login banner each end the session as garbage past their limit, and a session that ends mid-way ends with
its own reason. Driven with a scripted session in place of ssh (the real sshd runs in tests/ssh)."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterator

import pytest

from gputui.sources.ssh import reader
from gputui.sources.ssh.reader import HostReader, _Ended
from gputui.sources.ssh.remote import PS_MARK, START_MARK
from gputui.sources.ssh.settings import SshSettings


class _Script:
    """A session that writes the given lines, then ends (readline gives b"")."""

    def __init__(self, lines: Iterator[bytes]) -> None:
        self.lines = lines

    async def readline(self) -> bytes:
        await asyncio.sleep(0)  # a real read yields: the time limit of _run can then end a read without end
        return next(self.lines, b"")

    async def ended(self) -> _Ended:
        return _Ended("stream", "the session ended")


def _reader() -> HostReader:
    return HostReader("gpu01", SshSettings(), lambda host, node: None, clock=lambda: 0.0)


def _run(coro: object) -> object:
    return asyncio.run(asyncio.wait_for(coro, 20))  # type: ignore[arg-type]


def test_an_endless_process_list_is_garbage_not_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader, "MAX_PS_BYTES", 1 << 12)
    lines = itertools.chain([b"<nvidia_smi_log/>\n", PS_MARK.encode() + b"\n"], itertools.repeat(b"1 2 python\n"))
    with pytest.raises(_Ended) as e:
        _run(_reader()._read_detail(_Script(lines)))  # type: ignore[arg-type]
    assert e.value.kind == "garbage" and "process list over" in e.value.reason


def test_an_endless_xml_document_is_garbage(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader, "MAX_XML_BYTES", 1 << 12)
    with pytest.raises(_Ended) as e:
        _run(_reader()._read_detail(_Script(itertools.repeat(b"<gpu>\n"))))  # type: ignore[arg-type]
    assert e.value.kind == "garbage" and "XML document over" in e.value.reason


def test_an_endless_banner_is_garbage() -> None:
    with pytest.raises(_Ended) as e:
        _run(_reader()._skip_banner(_Script(itertools.repeat(b"welcome\n"))))  # type: ignore[arg-type]
    assert e.value.kind == "garbage" and "before nvidia-smi's" in e.value.reason


def test_the_banner_is_dropped_up_to_the_start_mark() -> None:
    script = _Script(iter([b"motd\n", START_MARK.encode() + b"\n", b"next\n"]))
    _run(_reader()._skip_banner(script))  # type: ignore[arg-type]
    assert _run(script.readline()) == b"next\n"


def test_a_session_ending_before_the_end_mark_ends_with_its_reason() -> None:
    lines = iter([b"<nvidia_smi_log/>\n", PS_MARK.encode() + b"\n", b"1 2 python\n"])
    with pytest.raises(_Ended) as e:
        _run(_reader()._read_detail(_Script(lines)))  # type: ignore[arg-type]
    assert (e.value.kind, e.value.reason) == ("stream", "the session ended")  # before END_MARK came
