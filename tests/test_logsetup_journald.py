"""The log under journald: the ``<N>`` priority prefix, and the native protocol's fields read
from a datagram socket of the test's own (docs/app.md, The log)."""

from __future__ import annotations

import fcntl
import json
import logging
import os
import socket
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

import pytest
import structlog

from controller.config.tabletoml import LogFormat, LogSettings
from controller.logs import journald
from controller.logs.logsetup import HandTag, configure_logging, reset_logging

pytestmark = pytest.mark.fast


@pytest.fixture(autouse=True)
def _reset() -> Iterator[None]:
    reset_logging()
    yield
    reset_logging()


@pytest.fixture
def stderr_file(tmp_path: Path) -> Iterator[TextIO]:
    """A stream with a descriptor, standing for the service's standard error."""
    with (tmp_path / "stderr").open("w", encoding="utf-8") as stream:
        yield stream


def name_journal_stream(monkeypatch: pytest.MonkeyPatch, stream: TextIO) -> None:
    """Set JOURNAL_STREAM as systemd does: DEVICE:INODE of the stream journald reads."""
    found = os.fstat(stream.fileno())
    monkeypatch.setenv("JOURNAL_STREAM", f"{found.st_dev}:{found.st_ino}")


def written(stream: TextIO) -> list[str]:
    stream.flush()
    return Path(stream.name).read_text(encoding="utf-8").splitlines()


def log_three(tag: HandTag) -> None:
    log = structlog.get_logger("controller.table").bind(hand=tag)
    log.info("table_opened")
    tag.number = 12
    log.warning("alarm", reason="a card of the other deck")
    logging.getLogger("serial").error("port gone")


def test_under_journald_each_line_starts_with_its_syslog_priority(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stderr_file: TextIO
) -> None:
    """With no native socket, journald's stream gets <6> info, <4> warning, <3> error (RFC 5424
    priorities, read by journald as SyslogLevelPrefix=), then the JSON line."""
    name_journal_stream(monkeypatch, stderr_file)
    configure_logging(
        LogSettings(), table_id="AC-07", stream=stderr_file, journal_socket=tmp_path / "none"
    )
    log_three(HandTag())
    lines = written(stderr_file)
    assert [line[:3] for line in lines] == ["<6>", "<4>", "<3>"]
    events = [json.loads(line[3:]) for line in lines]
    assert [e["event"] for e in events] == ["table_opened", "alarm", "port gone"]
    assert events[1]["hand"] == 12


def test_no_prefix_at_a_stream_journald_does_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stderr_file: TextIO
) -> None:
    """JOURNAL_STREAM naming another stream (a child that inherited the variable, not the
    stream), or none, or a log file: bare JSON lines."""
    other = tmp_path / "other"
    other.write_text("", encoding="utf-8")
    found = os.stat(other)
    for value in (f"{found.st_dev}:{found.st_ino}", "garbage", None):
        if value is None:
            monkeypatch.delenv("JOURNAL_STREAM", raising=False)
        else:
            monkeypatch.setenv("JOURNAL_STREAM", value)
        configure_logging(LogSettings(), table_id="T", stream=stderr_file)
        structlog.get_logger().warning("plain")
    assert [json.loads(line)["event"] for line in written(stderr_file)] == ["plain"] * 3
    name_journal_stream(monkeypatch, stderr_file)
    log_file = tmp_path / "tablectl.log"
    configure_logging(LogSettings(file=log_file), table_id="T", stream=stderr_file)
    structlog.get_logger().warning("to_the_file")
    reset_logging()
    assert json.loads(log_file.read_text(encoding="utf-8"))["event"] == "to_the_file"


def fields_of(data: bytes) -> dict[str, str]:
    """A native journal entry's fields (https://systemd.io/JOURNAL_NATIVE_PROTOCOL/)."""
    fields: dict[str, str] = {}
    while data:
        line, newline, rest = data.partition(b"\n")
        assert newline, data
        if b"=" in line:
            key, _, value = line.partition(b"=")
            fields[key.decode()] = value.decode()
            data = rest
        else:  # KEY\n, 64-bit little-endian length, the bytes, \n
            (size,) = struct.unpack("<Q", rest[:8])
            fields[line.decode()] = rest[8 : 8 + size].decode()
            assert rest[8 + size : 9 + size] == b"\n"
            data = rest[9 + size :]
    return fields


@pytest.fixture
def journal_socket(tmp_path: Path) -> Iterator[tuple[Path, socket.socket]]:
    """A datagram socket standing for journald's, bound in tmp_path."""
    path = tmp_path / "journal.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(str(path))
        sock.settimeout(5)
        yield path, sock


def received(sock: socket.socket, *, sealed: bool = False) -> dict[str, str]:
    """The next entry sent: in a datagram, or (``sealed``) in a sealed memfd passed with one."""
    data, fds, _flags, _address = socket.recv_fds(sock, 1 << 20, 1)
    assert bool(fds) == sealed
    if fds:
        (fd,) = fds
        try:
            assert fcntl.fcntl(fd, fcntl.F_GET_SEALS) & fcntl.F_SEAL_WRITE  # journald's demand
            os.lseek(fd, 0, os.SEEK_SET)
            chunks = []
            while chunk := os.read(fd, 1 << 16):
                chunks.append(chunk)
        finally:
            os.close(fd)
        assert data == b""
        data = b"".join(chunks)
    return fields_of(data)


def test_native_protocol_sends_priority_table_hand_and_the_json_line(
    monkeypatch: pytest.MonkeyPatch,
    stderr_file: TextIO,
    journal_socket: tuple[Path, socket.socket],
) -> None:
    """Under journald with its socket there: one datagram a line, PRIORITY, TABLE_ID, HAND
    (once the controller has a hand), SYSLOG_IDENTIFIER and MESSAGE (the JSON line); nothing
    on the stream."""
    path, sock = journal_socket
    name_journal_stream(monkeypatch, stderr_file)
    configure_logging(LogSettings(), table_id="AC-07", stream=stderr_file, journal_socket=path)
    log_three(HandTag())
    opened, alarm, library = (received(sock) for _ in range(3))
    assert {key: opened[key] for key in opened if key != "MESSAGE"} == {
        "PRIORITY": "6",
        "SYSLOG_IDENTIFIER": "tablectl",
        "TABLE_ID": "AC-07",
    }
    assert (alarm["PRIORITY"], alarm["HAND"], alarm["TABLE_ID"]) == ("4", "12", "AC-07")
    line: dict[str, Any] = json.loads(alarm["MESSAGE"])
    assert (line["event"], line["hand"], line["reason"]) == (
        "alarm",
        12,
        "a card of the other deck",
    )
    assert (library["PRIORITY"], json.loads(library["MESSAGE"])["event"]) == ("3", "port gone")
    assert "HAND" not in library
    assert written(stderr_file) == []


def test_a_line_too_big_for_a_datagram_goes_in_a_sealed_memfd(
    monkeypatch: pytest.MonkeyPatch,
    stderr_file: TextIO,
    journal_socket: tuple[Path, socket.socket],
) -> None:
    """A line past the socket's datagram limit (a long traceback) is not lost: it is passed
    as a sealed memfd, as sd_journal_send does."""
    path, sock = journal_socket
    name_journal_stream(monkeypatch, stderr_file)
    configure_logging(LogSettings(), table_id="T", stream=stderr_file, journal_socket=path)
    padding = "x" * (4 << 20)  # far past net.core.wmem_max's usual 208 KiB
    structlog.get_logger().info("huge", padding=padding)
    entry = received(sock, sealed=True)
    assert json.loads(entry["MESSAGE"])["padding"] == padding
    assert entry["PRIORITY"] == "6"


def test_journald_gone_after_start_sends_the_line_to_its_stream(
    monkeypatch: pytest.MonkeyPatch, stderr_file: TextIO, tmp_path: Path
) -> None:
    """journald's socket vanishing while the table runs (journald restarting): the line goes to
    the stream journald reads, with its priority, instead of being lost."""
    path = tmp_path / "journal.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    name_journal_stream(monkeypatch, stderr_file)
    configure_logging(
        LogSettings(format=LogFormat.JSON), table_id="T", stream=stderr_file, journal_socket=path
    )
    sock.close()
    path.unlink()
    structlog.get_logger().error("after_the_restart")
    (line,) = written(stderr_file)
    assert line.startswith("<3>")
    assert json.loads(line[3:])["event"] == "after_the_restart"


def test_an_entry_frames_a_value_with_a_newline() -> None:
    """KEY=value, or KEY, newline, the 64-bit little-endian length, the bytes (a newline in a
    value cannot end it early)."""
    data = journald.entry({"MESSAGE": "two\nlines", "PRIORITY": "6"})
    assert data == b"MESSAGE\n" + struct.pack("<Q", 9) + b"two\nlines\nPRIORITY=6\n"
    assert fields_of(data) == {"MESSAGE": "two\nlines", "PRIORITY": "6"}
    assert journald.priority("critical") == 2
    assert journald.priority("debug") == 7
    assert journald.priority("notset") == journald.NOTICE
