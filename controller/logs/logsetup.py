"""The controller's log: structlog, one event a line, for journald, a log shipper or a person.

``configure_logging(settings, table_id=...)`` sets up structlog and the standard
library's ``logging`` together, so the controller's events and those of the
libraries it uses (pyserial, pyudev, transitions) come out the same way:

- JSON lines (``format = "json"``, or ``"auto"`` when the output is not a
  terminal: journald, a file, a pipe): one JSON object a line, with
  ``timestamp`` (ISO 8601, UTC), ``level``, ``table`` (the table id), ``hand``
  (the hand number, on a controller's lines once it has a hand), ``seq`` (the line's
  number since start-up, so a shipper can see a line lost or reordered),
  ``event`` and the event's own fields;
- structlog's ConsoleRenderer (``format = "console"``, or ``"auto"`` at a terminal),
  coloured at a terminal unless ``NO_COLOR`` is set and not empty (https://no-color.org).

Under journald (standard error is the stream ``JOURNAL_STREAM`` names:
``controller.logs.journald``) each line goes to journald's native socket with the
fields ``PRIORITY``, ``TABLE_ID``, ``HAND`` and ``SYSLOG_IDENTIFIER`` beside
``MESSAGE`` (the line), so ``journalctl -p warning`` and ``journalctl HAND=41``
work; if that socket is not there, each line goes to the stream with its syslog
priority as a ``<N>`` prefix. A terminal, a file and a pipe get the bare lines.

The hand number is each controller's own: ``HandTag``, bound into the
controller's logger when it is built and set as its hands start, is read by one
processor at every line; before the controller's first hand its lines carry no
``hand``. Lines of the drivers and libraries carry the table, not the hand.
``reset_logging()`` removes what ``configure_logging`` installed (and closes a
log file); tests and a re-configuration use it.
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import sys
import time
import traceback
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Final, TextIO

import structlog
from structlog.typing import EventDict, Processor, WrappedLogger

from controller.config.settings import LogFormat, LogLevel, LogSettings
from controller.logs import journald
from controller.tomlcheck import Problem, SettingsError

#: The fields every JSON line starts with, in this order; the event's own fields follow.
LEADING_FIELDS: Final = ("timestamp", "level", "table", "hand", "seq", "logger", "event")

_LEVELS: Final = {
    LogLevel.DEBUG: logging.DEBUG,
    LogLevel.INFO: logging.INFO,
    LogLevel.WARNING: logging.WARNING,
    LogLevel.ERROR: logging.ERROR,
    LogLevel.CRITICAL: logging.CRITICAL,
}

#: Marks the handler configure_logging installs on the root logger, to find it again.
_HANDLER_NAME: Final = "tablectl"


class _Stamp:
    """Adds the table id and the line's sequence number, at the moment the line is written."""

    def __init__(self, table_id: str | None) -> None:
        self.table_id = table_id
        # Called under the logging handler's lock, so numbers follow the order of the lines.
        self._numbers: Iterator[int] = itertools.count(1)

    def __call__(self, logger: WrappedLogger, name: str, event_dict: EventDict) -> EventDict:
        if self.table_id is not None:
            event_dict["table"] = self.table_id
        own = event_dict.get("seq")
        if own is not None:
            # A device sentence's number (docs/protocol.md 4: the drivers log ``seq=``) is
            # kept beside the line's own number, not written over by it.
            event_dict["sentence_seq"] = own
        event_dict["seq"] = next(self._numbers)
        return event_dict


#: A traceback as structured data; without the frames' local variables, which could carry
#: anything (and make a line kilobytes long).
_TRACEBACKS: Final = structlog.processors.ExceptionRenderer(
    structlog.tracebacks.ExceptionDictTransformer(show_locals=False)
)


def _traceback(logger: WrappedLogger, name: str, event_dict: EventDict) -> EventDict:
    # Asked only of a line that carries one: the announcement of every card pays a look-up.
    if "exc_info" in event_dict:
        return _TRACEBACKS(logger, name, event_dict)
    return event_dict


_STACK: Final = structlog.processors.StackInfoRenderer()


def _stack(logger: WrappedLogger, name: str, event_dict: EventDict) -> EventDict:
    # As _traceback: structlog's renderer only for a line that asked for its stack.
    if "stack_info" in event_dict:
        return _STACK(logger, name, event_dict)
    return event_dict


#: One encoder for every JSON line: ``json.dumps(..., default=str)`` builds a new one a call.
_JSON: Final = json.JSONEncoder(default=str)


def _json_line(logger: WrappedLogger, name: str, event_dict: EventDict) -> str:
    """The line: leading fields first, the rest as given; what has no JSON form as its str()."""
    ordered = {}
    for key in LEADING_FIELDS:  # a loop, not a comprehension: no frame of its own a line
        if key in event_dict:
            ordered[key] = event_dict.pop(key)
    ordered.update(event_dict)
    return _JSON.encode(ordered)


def _level_name(logger: WrappedLogger, name: str, event_dict: EventDict) -> EventDict:
    # structlog's add_log_level says "warning" for both warn() and warning(); stdlib records
    # need the same lowercase names.
    level = event_dict.get("level")
    if isinstance(level, str):
        event_dict["level"] = level.lower()
    return event_dict


#: The level a structlog method writes (``exception`` logs at error, ``warn`` at warning).
_METHOD_LEVELS: Final = {
    "debug": "debug",
    "info": "info",
    "warning": "warning",
    "warn": "warning",
    "error": "error",
    "exception": "error",
    "critical": "critical",
    "fatal": "critical",
}


class HandTag:
    """The hand one controller is dealing, for its log lines: bound into its logger
    (``logger.bind(hand=tag)``) and set as each hand starts. A line carries ``hand`` only
    once ``number`` is set: none before the controller's first hand."""

    __slots__ = ("number",)

    def __init__(self) -> None:
        self.number: int | None = None

    def __repr__(self) -> str:
        # What structlog's unconfigured default prints (a test without configure_logging).
        return repr(self.number)


class _UtcStamp:
    """ISO 8601 UTC with microseconds (``2026-11-29T19:46:06.055118Z``); the date and time of
    day are formatted once a second, not at every line."""

    def __init__(self) -> None:
        self._second: tuple[int, str] = (-1, "")

    def __call__(self, logger: WrappedLogger, name: str, event_dict: EventDict) -> EventDict:
        second, micro = divmod(time.time_ns() // 1000, 1_000_000)
        cached, prefix = self._second
        if second != cached:
            prefix = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
            self._second = (second, prefix)  # one tuple: a thread never reads half of it
        event_dict["timestamp"] = f"{prefix}.{micro:06d}Z"
        return event_dict


def _structlog_fields(stamp: _UtcStamp) -> Processor:
    """Hand, level, logger name and time of a structlog line, in one step: the line's hot
    path (the announcement of every card) pays one call, not five."""

    def fields(logger: WrappedLogger, name: str, event_dict: EventDict) -> EventDict:
        hand = event_dict.get("hand")
        if hand.__class__ is HandTag:  # a controller's tag; a line's own ``hand=`` is kept
            number = hand.number
            if number is None:
                del event_dict["hand"]
            else:
                event_dict["hand"] = number
        event_dict["level"] = _METHOD_LEVELS.get(name, name)
        event_dict["logger"] = logger.name
        return stamp(logger, name, event_dict)

    return fields


def configure_logging(
    settings: LogSettings,
    *,
    table_id: str | None,
    stream: TextIO | None = None,
    journal_socket: Path = journald.SOCKET,
) -> logging.Handler:
    """Send every log line (structlog's and the standard library's) to the configured output.

    The output is ``settings.file`` (appended to) when set, else ``stream``
    (standard error by default, which systemd hands to journald: then the lines go to
    ``journal_socket``, see the module's text). ``table_id`` None (a command that serves
    no table, ``enroll``) leaves ``table`` out. Returns the handler installed;
    ``reset_logging`` removes it.
    """
    reset_logging()
    sink, at_terminal = _sink(settings, table_id, stream, journal_socket)
    console = settings.format is LogFormat.CONSOLE or (
        settings.format is LogFormat.AUTO and at_terminal
    )
    handler = _LineHandler(sink)

    timestamper = _UtcStamp()
    # The standard library's records (pyserial's, pyudev's) pass through these; structlog's
    # own lines get the same fields from _structlog_fields.
    shared: list[Processor] = [
        structlog.stdlib.add_log_level,
        _level_name,
        structlog.stdlib.add_logger_name,
        timestamper,
    ]
    stamp = _Stamp(table_id)  # one count for both kinds of lines
    final: list[Processor]
    if console:
        colors = at_terminal and not no_color()
        final = [stamp, structlog.dev.ConsoleRenderer(colors=colors)]
    else:
        # One line per event: a traceback becomes a structured field, never extra lines.
        final = [stamp, _traceback, _json_line]
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=[*shared, structlog.stdlib.ExtraAdder()],
            processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, *final],
        )
    )
    level = _LEVELS[settings.level]
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(level)

    structlog.configure(
        # The last processor's dict goes to _LineLogger's method whole, as keywords.
        processors=[_structlog_fields(timestamper), _stack],
        logger_factory=_LineLoggerFactory(handler, final),
        # The level is one setting ([log] level), fixed at start: a method below it is a bare
        # ``return None``, and no per-line look-up of the standard library's level.
        wrapper_class=structlog.make_filtering_bound_logger(level),
        # Not cached: a logger made before configure_logging still follows it.
        cache_logger_on_first_use=False,
    )
    return handler


def no_color(environ: Mapping[str, str] | None = None) -> bool:
    """https://no-color.org: ``NO_COLOR`` set and not empty turns colour off."""
    return bool((os.environ if environ is None else environ).get("NO_COLOR"))


def _sink(
    settings: LogSettings, table_id: str | None, stream: TextIO | None, journal_socket: Path
) -> tuple[_StreamSink | _JournalSink, bool]:
    """Where the lines go, and whether that is a terminal."""
    if settings.file is not None:
        try:
            appended: TextIO = settings.file.open("a", encoding="utf-8")
        except OSError as exc:
            reason = exc.strerror or str(exc)
            problem = Problem(
                "log.file", str(settings.file), f"expected a file to append to: {reason}"
            )
            raise SettingsError("log", [problem]) from None
        # A file is read by a machine, or later by a person: bare lines, never colours.
        return _StreamSink(appended, priorities=False, owned=True), False
    out = stream if stream is not None else sys.stderr
    if not journald.is_journal_stream(out):
        return _StreamSink(out, priorities=False, owned=False), _is_terminal(out)
    # journald reads the stream: it files a line by its <N> prefix (SyslogLevelPrefix=).
    fallback = _StreamSink(out, priorities=True, owned=False)
    if not journald.listening(journal_socket):
        return fallback, False
    return _JournalSink(journald.JournalSocket(journal_socket), table_id, fallback), False


class _StreamSink:
    """Lines to a stream; under journald each begins with its syslog priority (``<4>``)."""

    def __init__(self, stream: TextIO, *, priorities: bool, owned: bool) -> None:
        self.stream = stream
        self.priorities = priorities
        self._owned = owned  # a log file is ours to close; standard error is not

    def write(self, line: str, level: str, hand: int | None) -> None:
        """Write one line (the caller holds the handler's lock)."""
        if self.priorities:
            line = f"<{journald.priority(level)}>{line}"
        self.stream.write(line + "\n")
        self.stream.flush()

    def close(self) -> None:
        """Close a log file."""
        if self._owned:
            self.stream.close()


#: journald's SYSLOG_IDENTIFIER of every entry: ``journalctl -t tablectl``.
IDENTIFIER: Final = "tablectl"


class _JournalSink:
    """Lines to journald's native socket, each with its priority, table and hand as fields."""

    def __init__(
        self, sock: journald.JournalSocket, table_id: str | None, fallback: _StreamSink
    ) -> None:
        self.socket = sock
        self.common = {"SYSLOG_IDENTIFIER": IDENTIFIER}
        if table_id is not None:
            self.common["TABLE_ID"] = table_id
        self.fallback = fallback

    def write(self, line: str, level: str, hand: int | None) -> None:
        """Send one line (the caller holds the handler's lock)."""
        fields = {"MESSAGE": line, "PRIORITY": str(journald.priority(level)), **self.common}
        if hand is not None:
            fields["HAND"] = str(hand)
        try:
            self.socket.send(journald.entry(fields))
        except OSError:
            # journald's socket went away (a restart): its stream may still take the line.
            self.fallback.write(line, level, hand)

    def close(self) -> None:
        """Close the socket."""
        self.socket.close()


class _LineHandler(logging.Handler):
    """The root logger's handler: a standard library record, formatted, to the sink."""

    def __init__(self, sink: _StreamSink | _JournalSink) -> None:
        super().__init__()
        self.sink = sink
        self.name = _HANDLER_NAME

    def emit(self, record: logging.LogRecord) -> None:
        # Handler.handle holds the lock here, as _LineLogger does for structlog's lines.
        try:
            self.sink.write(self.format(record), record.levelname.lower(), None)
        except Exception:
            self.handleError(record)

    def close(self) -> None:
        try:
            self.sink.close()
        finally:
            super().close()


class _LineLogger:
    """Where structlog's own events go: rendered and written to the handler's sink under
    the handler's lock, as a standard library record is (so ``seq`` follows the lines across
    both kinds), but without building a ``logging.LogRecord``: the standard library's path
    built two per line and cost about 0.12 ms a line, most of the controller's time per
    card (docs/performance.md, The controller application)."""

    def __init__(self, handler: _LineHandler, final: list[Processor], name: str) -> None:
        if handler.lock is None:
            raise ValueError(f"log handler {handler!r}: expected the lock a Handler makes")
        # Taken directly, not through acquire() and release(): calls a line fewer.
        self._lock = handler.lock
        self._sink = handler.sink
        self._final = final
        self.name = name

    def _write(self, method: str, event_dict: EventDict) -> None:
        hand = event_dict.get("hand")
        level = event_dict.get("level", method)
        with self._lock:
            try:
                rendered: Any = event_dict
                for processor in self._final:
                    rendered = processor(self, method, rendered)
                self._sink.write(str(rendered), level, hand if isinstance(hand, int) else None)
            except Exception:
                # A line that cannot be written must not stop the table: as logging.Handler's
                # handleError does, say so on standard error and carry on.
                if logging.raiseExceptions:
                    traceback.print_exc(file=sys.stderr)

    def debug(self, /, **event_dict: Any) -> None:
        self._write("debug", event_dict)

    def info(self, /, **event_dict: Any) -> None:
        self._write("info", event_dict)

    def warning(self, /, **event_dict: Any) -> None:
        self._write("warning", event_dict)

    def error(self, /, **event_dict: Any) -> None:
        self._write("error", event_dict)

    def critical(self, /, **event_dict: Any) -> None:
        self._write("critical", event_dict)

    warn = warning
    exception = error
    fatal = critical


class _LineLoggerFactory:
    """structlog's logger factory: a ``_LineLogger`` for the handler configure_logging made."""

    def __init__(self, handler: _LineHandler, final: list[Processor]) -> None:
        self._handler = handler
        self._final = final
        # structlog asks again at every line (loggers are not cached: see configure); one
        # _LineLogger per name serves them all.
        self._loggers: dict[str, _LineLogger] = {}

    def __call__(self, *args: Any) -> _LineLogger:
        name = args[0] if args and isinstance(args[0], str) else "root"
        logger = self._loggers.get(name)
        if logger is None:
            logger = self._loggers.setdefault(name, _LineLogger(self._handler, self._final, name))
        return logger


def _is_terminal(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def reset_logging() -> None:
    """Undo ``configure_logging``: remove and close its handler, restore structlog's defaults."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        if handler.name == _HANDLER_NAME:
            root.removeHandler(handler)
            handler.close()
    root.setLevel(logging.WARNING)
    structlog.reset_defaults()
