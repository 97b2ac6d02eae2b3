"""The controller's log: structlog, one event a line, for journald, a log shipper or a person.

``configure_logging(settings, table_id=...)`` sets up structlog and the standard
library's ``logging`` together, so the controller's events and those of the
libraries it uses (pyserial, pyudev, transitions) come out the same way:

- JSON lines (``format = "json"``, or ``"auto"`` when the output is not a
  terminal: journald, a file, a pipe): one JSON object a line, with
  ``timestamp`` (ISO 8601, UTC), ``level``, ``table`` (the table id), ``hand``
  (the hand number, once the controller has bound one), ``seq`` (the line's
  number since start-up, so a shipper can see a line lost or reordered),
  ``event`` and the event's own fields;
- structlog's ConsoleRenderer (``format = "console"``, or ``"auto"`` at a terminal).

The hand number is bound with ``bind_hand(n)`` (a value of this module, read by
one processor: structlog's ``merge_contextvars`` looks through every context
variable at every line), so every line logged while hand ``n`` is dealt carries
it, from any module and any thread: a table's inputs are handled on the drivers'
threads and the loop's, one at a time, and a process runs one table.
``reset_logging()`` removes what ``configure_logging`` installed (and closes a
log file); tests and a re-configuration use it.
"""

from __future__ import annotations

import itertools
import json
import logging
import sys
import time
import traceback
from collections.abc import Iterator
from typing import Any, Final, TextIO

import structlog
from structlog.typing import EventDict, Processor, WrappedLogger

from controller.settings import LogFormat, LogLevel, LogSettings
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

    def __init__(self, table_id: str) -> None:
        self.table_id = table_id
        # Called under the logging handler's lock, so numbers follow the order of the lines.
        self._numbers: Iterator[int] = itertools.count(1)

    def __call__(self, logger: WrappedLogger, name: str, event_dict: EventDict) -> EventDict:
        event_dict["table"] = self.table_id
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


class _Hand:
    """The hand being dealt, as ``bind_hand`` set it (None between hands)."""

    number: int | None = None


def _add_hand(logger: WrappedLogger, name: str, event_dict: EventDict) -> EventDict:
    hand = _Hand.number
    if hand is not None:
        event_dict.setdefault("hand", hand)  # a line's own ``hand=`` wins, as with structlog
    return event_dict


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
        hand = _Hand.number
        if hand is not None:
            event_dict.setdefault("hand", hand)
        event_dict["level"] = _METHOD_LEVELS.get(name, name)
        event_dict["logger"] = logger.name
        return stamp(logger, name, event_dict)

    return fields


def configure_logging(
    settings: LogSettings, *, table_id: str, stream: TextIO | None = None
) -> logging.Handler:
    """Send every log line (structlog's and the standard library's) to the configured output.

    The output is ``settings.file`` (appended to) when set, else ``stream``
    (standard error by default, which systemd hands to journald). Returns the
    handler installed; ``reset_logging`` removes it.
    """
    reset_logging()
    handler: logging.StreamHandler[Any]
    if settings.file is not None:
        try:
            handler = logging.FileHandler(settings.file, mode="a", encoding="utf-8")
        except OSError as exc:
            reason = exc.strerror or str(exc)
            problem = Problem(
                "log.file", str(settings.file), f"expected a file to append to: {reason}"
            )
            raise SettingsError("log", [problem]) from None
        at_terminal = False  # a file is read by a machine, or later by a person
    else:
        out = stream if stream is not None else sys.stderr
        handler = logging.StreamHandler(out)
        at_terminal = _is_terminal(out)
    console = settings.format is LogFormat.CONSOLE or (
        settings.format is LogFormat.AUTO and at_terminal
    )
    handler.name = _HANDLER_NAME

    timestamper = _UtcStamp()
    # The standard library's records (pyserial's, pyudev's) pass through these; structlog's
    # own lines get the same fields from _structlog_fields.
    shared: list[Processor] = [
        _add_hand,
        structlog.stdlib.add_log_level,
        _level_name,
        structlog.stdlib.add_logger_name,
        timestamper,
    ]
    stamp = _Stamp(table_id)  # one count for both kinds of lines
    final: list[Processor]
    if console:
        final = [stamp, structlog.dev.ConsoleRenderer(colors=at_terminal)]
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


class _LineLogger:
    """Where structlog's own events go: rendered and written to the handler's stream under
    the handler's lock, as a standard library record is (so ``seq`` follows the lines across
    both kinds), but without building a ``logging.LogRecord``: the standard library's path
    built two per line and cost about 0.12 ms a line, most of the controller's time per
    card (docs/performance.md, The controller application)."""

    def __init__(
        self, handler: logging.StreamHandler[Any], final: list[Processor], name: str
    ) -> None:
        if handler.lock is None:
            raise ValueError(f"log handler {handler!r}: expected the lock a Handler makes")
        self._handler = handler
        # Taken directly, not through acquire(), release() and flush(): five calls a line fewer.
        self._lock = handler.lock
        self._final = final
        self.name = name

    def _write(self, method: str, event_dict: EventDict) -> None:
        handler = self._handler
        with self._lock:
            try:
                rendered: Any = event_dict
                for processor in self._final:
                    rendered = processor(self, method, rendered)
                stream = handler.stream
                stream.write(f"{rendered}{handler.terminator}")
                stream.flush()
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

    def __init__(self, handler: logging.StreamHandler[Any], final: list[Processor]) -> None:
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
    _Hand.number = None


def bind_hand(number: int) -> None:
    """Every line logged from now on carries ``hand=number`` (until ``unbind_hand``)."""
    _Hand.number = number


def unbind_hand() -> None:
    """Lines logged between hands carry no hand number."""
    _Hand.number = None
