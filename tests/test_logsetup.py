"""The log: JSON lines for machines (each parses; table, hand, seq), a console for people."""

from __future__ import annotations

import io
import json
import logging
import os
import re
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import structlog

from controller.config.tabletoml import LogFormat, LogLevel, LogSettings, SettingsError
from controller.logs import logsetup
from controller.logs.logsetup import LEADING_FIELDS, HandTag, configure_logging, reset_logging


@pytest.fixture(autouse=True)
def _reset() -> Iterator[None]:
    """Each test starts from structlog's defaults and leaves no handler (or file) behind."""
    reset_logging()
    yield
    reset_logging()


def json_lines(text: str) -> list[dict[str, Any]]:
    """Every line of ``text`` parsed as one JSON object (fails on any line that is not)."""
    assert text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]


def test_json_lines_carry_time_level_table_hand_seq_and_event() -> None:
    """One JSON object a line: UTC ISO time, level, table, hand once the logger's HandTag has
    one, seq, event, fields."""
    out = io.StringIO()
    configure_logging(LogSettings(format=LogFormat.JSON), table_id="AC-07", stream=out)
    tag = HandTag()
    log = structlog.get_logger("controller.poker.engine").bind(hand=tag)
    log.info("table_opened", seats=[1, 2, 3])
    tag.number = 41
    log.info("card_read", seat=2, card="As")
    log.warning("alarm", reason="card not in the active deck")
    tag.number = None
    log.info("between_hands")
    lines = json_lines(out.getvalue())
    assert [line["event"] for line in lines] == [
        "table_opened",
        "card_read",
        "alarm",
        "between_hands",
    ]
    assert [line["seq"] for line in lines] == [1, 2, 3, 4]
    assert all(line["table"] == "AC-07" for line in lines)
    assert ["hand" in line for line in lines] == [False, True, True, False]
    assert lines[1]["hand"] == 41
    assert [line["level"] for line in lines] == ["info", "info", "warning", "info"]
    assert lines[1]["seat"] == 2
    assert lines[1]["card"] == "As"
    assert lines[0]["logger"] == "controller.poker.engine"
    for line in lines:
        stamp = datetime.fromisoformat(line["timestamp"])
        assert stamp.utcoffset() is not None
        assert stamp.utcoffset() == UTC.utcoffset(None)
        assert line["timestamp"].endswith("Z")
        leading = [key for key in line if key in LEADING_FIELDS]
        assert leading == [key for key in LEADING_FIELDS if key in line]
        assert list(line)[: len(leading)] == leading


def test_standard_library_records_come_out_the_same_way() -> None:
    """A library's logging record (pyserial, pyudev) is a JSON line with the same context:
    the table, not a hand (a hand is a controller's, and a library serves no controller)."""
    out = io.StringIO()
    configure_logging(LogSettings(format=LogFormat.JSON), table_id="T1", stream=out)
    logging.getLogger("pyudev.monitor").warning("device %s removed", "ttyACM0", extra={"n": 1})
    (line,) = json_lines(out.getvalue())
    assert line["event"] == "device ttyACM0 removed"
    assert (line["logger"], line["level"], line["table"]) == ("pyudev.monitor", "warning", "T1")
    assert "hand" not in line
    assert line["n"] == 1
    assert line["seq"] == 1


@pytest.mark.parametrize("level", list(LogLevel))
def test_the_level_filters_both_kinds_of_lines(level: LogLevel) -> None:
    """Lines below the configured level are dropped, from structlog and from logging alike."""
    out = io.StringIO()
    configure_logging(LogSettings(level=level, format=LogFormat.JSON), table_id="T", stream=out)
    names = ["debug", "info", "warning", "error", "critical"]
    for name in names:
        getattr(structlog.get_logger("s"), name)(f"s_{name}")
        getattr(logging.getLogger("l"), name)(f"l_{name}")
    kept = names[names.index(level.value) :]
    assert [line["event"] for line in json_lines(out.getvalue())] == [
        f"{kind}_{name}" for name in kept for kind in ("s", "l")
    ]


def test_an_exception_is_one_line_with_a_structured_traceback() -> None:
    """A traceback stays on its line, as data, without the frames' local variables."""
    out = io.StringIO()
    configure_logging(LogSettings(format=LogFormat.JSON), table_id="T", stream=out)
    secret = "do not log me"
    try:
        raise ValueError(secret[:0] + "bad frame")
    except ValueError:
        structlog.get_logger("x").exception("driver_failed")
    (line,) = json_lines(out.getvalue())
    assert line["level"] == "error"
    (exception,) = line["exception"]
    assert exception["exc_type"] == "ValueError"
    assert exception["exc_value"] == "bad frame"
    assert secret not in out.getvalue()


def test_a_line_that_asks_for_its_stack_carries_it_on_the_same_line() -> None:
    """stack_info=True puts the caller's stack in the line's ``stack`` field, one line still;
    a line that does not ask carries none (nor an exception)."""
    out = io.StringIO()
    configure_logging(LogSettings(format=LogFormat.JSON), table_id="T", stream=out)
    log = structlog.get_logger("x")
    log.info("where_am_i", stack_info=True)
    log.info("plain")
    asked, plain = json_lines(out.getvalue())
    assert "test_a_line_that_asks_for_its_stack" in asked["stack"]
    assert "stack_info" not in asked
    assert not {"stack", "exception"} & plain.keys()


def test_console_format_is_for_people() -> None:
    """format = "console": structlog's ConsoleRenderer, not JSON, with the same fields."""
    out = io.StringIO()
    configure_logging(LogSettings(format=LogFormat.CONSOLE), table_id="T9", stream=out)
    tag = HandTag()
    tag.number = 5
    structlog.get_logger("c").bind(hand=tag).info("card_read", seat=4)
    text = out.getvalue()
    assert text.count("\n") == 1
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)
    assert "card_read" in text
    assert "seat=4" in text
    assert "table=T9" in text
    assert "hand=5" in text
    assert "\x1b[" not in text  # no colours into a stream that is not a terminal


def test_auto_is_json_when_not_at_a_terminal() -> None:
    """format = "auto" writes JSON lines to a pipe, a file or journald."""
    out = io.StringIO()
    configure_logging(LogSettings(), table_id="T", stream=out)
    structlog.get_logger().info("hello")
    assert json_lines(out.getvalue())[0]["event"] == "hello"


def at_a_terminal(settings: LogSettings) -> str:
    """What one line logged with ``settings`` to a terminal (a pty) looks like there."""
    master, slave = os.openpty()
    try:
        with os.fdopen(slave, "w", encoding="utf-8", closefd=True) as terminal:
            configure_logging(settings, table_id="T", stream=terminal)
            structlog.get_logger().info("at_the_table", seat=1)
            terminal.flush()
            reset_logging()
        return os.read(master, 4096).decode("utf-8")
    finally:
        os.close(master)


def test_auto_is_the_console_at_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """format = "auto" at a terminal (a pty here) writes the coloured console form."""
    monkeypatch.delenv("NO_COLOR", raising=False)
    text = at_a_terminal(LogSettings())
    assert "at_the_table" in text
    assert "\x1b[" in text  # colours for a person
    assert not text.lstrip().startswith("{")


@pytest.mark.parametrize("log_format", [LogFormat.AUTO, LogFormat.CONSOLE])
def test_no_color_set_and_not_empty_turns_the_colours_off(
    monkeypatch: pytest.MonkeyPatch, log_format: LogFormat
) -> None:
    """https://no-color.org: NO_COLOR set to anything but "" means no ANSI colour, even at a
    terminal; set empty it means nothing."""
    monkeypatch.setenv("NO_COLOR", "1")
    plain = at_a_terminal(LogSettings(format=log_format))
    assert "at_the_table" in plain
    assert "seat=1" in plain
    assert "\x1b[" not in plain
    monkeypatch.setenv("NO_COLOR", "")
    assert "\x1b[" in at_a_terminal(LogSettings(format=log_format))


def test_each_logger_carries_its_own_hand_tag() -> None:
    """Two controllers in one process: each logger's lines carry its own tag's hand (the
    number is no process-wide value), and a line's own ``hand=`` wins over the tag."""
    out = io.StringIO()
    configure_logging(LogSettings(format=LogFormat.JSON), table_id="T", stream=out)
    first, second = HandTag(), HandTag()
    one = structlog.get_logger("controller.table").bind(hand=first)
    two = structlog.get_logger("controller.table").bind(hand=second)
    first.number = 7
    one.info("a")
    two.info("b")
    second.number = 2
    one.info("c")
    two.info("d")
    one.info("e", hand=99)
    lines = json_lines(out.getvalue())
    assert [(line["event"], line.get("hand")) for line in lines] == [
        ("a", 7),
        ("b", None),
        ("c", 7),
        ("d", 2),
        ("e", 99),
    ]
    assert "hand" not in lines[1]


def test_a_log_file_gets_json_lines_and_is_closed_on_reset(tmp_path: Path) -> None:
    """log.file: lines are appended to the file; reset_logging closes it."""
    path = tmp_path / "tablectl.log"
    path.write_text('{"earlier": true}\n', encoding="utf-8")
    configure_logging(LogSettings(file=path), table_id="T", stream=io.StringIO())
    structlog.get_logger().info("appended")
    reset_logging()
    lines = json_lines(path.read_text(encoding="utf-8"))
    assert lines[0] == {"earlier": True}
    assert lines[1]["event"] == "appended"


def test_a_log_file_that_cannot_be_opened_names_the_key(tmp_path: Path) -> None:
    """A log file in a folder that does not exist is refused, naming log.file."""
    path = tmp_path / "missing" / "tablectl.log"
    with pytest.raises(SettingsError, match=r"log\.file = .*expected a file to append to"):
        configure_logging(LogSettings(file=path), table_id="T")


def test_lines_from_many_threads_never_mix_and_seq_follows_the_lines() -> None:
    """The drivers log from their own threads: each line stays whole, seq counts the lines."""
    out = io.StringIO()
    configure_logging(LogSettings(format=LogFormat.JSON), table_id="T", stream=out)

    def talk(name: str) -> None:
        log = structlog.get_logger(name)
        for number in range(100):
            log.info("read", number=number, padding="x" * 50)

    threads = [threading.Thread(target=talk, args=(f"t{n}",)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    lines = json_lines(out.getvalue())
    assert [line["seq"] for line in lines] == list(range(1, 401))
    for name in ("t0", "t1", "t2", "t3"):
        assert [line["number"] for line in lines if line["logger"] == name] == list(range(100))


def test_reconfiguring_replaces_the_handler() -> None:
    """A second configure_logging writes to the new output only, numbering from 1 again."""
    first, second = io.StringIO(), io.StringIO()
    configure_logging(LogSettings(format=LogFormat.JSON), table_id="A", stream=first)
    configure_logging(LogSettings(format=LogFormat.JSON), table_id="B", stream=second)
    structlog.get_logger().info("once")
    assert first.getvalue() == ""
    (line,) = json_lines(second.getvalue())
    assert (line["table"], line["seq"]) == ("B", 1)


def test_the_time_of_each_line_is_the_utc_clock_to_the_microsecond() -> None:
    """timestamp: the UTC time the line was logged, with microseconds."""
    out = io.StringIO()
    configure_logging(LogSettings(format=LogFormat.JSON), table_id="T", stream=out)
    before = datetime.now(UTC)
    structlog.get_logger("t").info("tick")
    after = datetime.now(UTC)
    (line,) = json_lines(out.getvalue())
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", line["timestamp"])
    assert before <= datetime.fromisoformat(line["timestamp"]) <= after


class LogClock:
    """The ``time`` module as controller.logs.logsetup sees it, its time the test's (``now``)."""

    gmtime = staticmethod(time.gmtime)
    strftime = staticmethod(time.strftime)

    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)

    def time_ns(self) -> int:
        since = self.now - datetime(1970, 1, 1, tzinfo=UTC)
        return since // timedelta(microseconds=1) * 1000 + 999  # below a microsecond: cut


def test_the_time_of_each_line_follows_the_clock_across_seconds_minutes_and_days(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """timestamp: the date and time of day are formatted once a second, not at every line; a
    line in the same second keeps them, one in a new second (a new minute, a new day) has the
    new ones, to the microsecond. The clock is the test's: the lines fall where it says, in no
    time on the wall clock. A standard library line (pyserial's) is stamped by the same clock."""
    clock = LogClock()
    monkeypatch.setattr(logsetup, "time", clock)
    out = io.StringIO()
    configure_logging(LogSettings(format=LogFormat.JSON), table_id="T", stream=out)
    log = structlog.get_logger("t")
    moments = [
        "2026-11-29T23:59:58.999999Z",
        "2026-11-29T23:59:59.000000Z",
        "2026-11-29T23:59:59.500001Z",
        "2026-11-30T00:00:00.000001Z",
        "2026-11-30T00:00:00.999999Z",
        "2026-11-30T00:01:00.000000Z",
    ]
    for moment in moments:
        clock.now = datetime.fromisoformat(moment)
        log.info("tick")
    clock.now = datetime.fromisoformat("2026-12-01T10:00:00.000002Z")
    logging.getLogger("serial").warning("port busy")
    stamps = [line["timestamp"] for line in json_lines(out.getvalue())]
    assert stamps == [*moments, "2026-12-01T10:00:00.000002Z"]
