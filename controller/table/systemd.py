"""systemd's service notification (sd_notify(3)): READY, STATUS, WATCHDOG and STOPPING.

Under ``Type=notify`` (docs/examples/tablectl.service) systemd sets ``NOTIFY_SOCKET`` and,
with ``WatchdogSec=``, ``WATCHDOG_USEC``. The protocol is one datagram per notification,
``KEY=value`` lines, sent over an ``AF_UNIX`` ``SOCK_DGRAM`` socket to that address; a
name starting with ``@`` is in the abstract namespace (its ``@`` becomes a NUL byte). It is
a few lines, so it is written here rather than taken from a library: ``systemd-python``
builds a C extension against libsystemd (a -dev package on every table PC), and
``sdnotify`` is unmaintained and hides every error. Without ``NOTIFY_SOCKET`` (a bench, a
terminal, the tests) nothing is sent and nothing is started.

What is sent:

- ``READY=1`` once the journal is open and the drivers are started (``serve``);
- ``STATUS=`` where the hand stands, e.g. ``hand 42 · second round · seat 3 to act``, after
  every announcement that changes it: never a card (a hole card's value must not reach
  ``systemctl status``: controller/poker/announce.py, ``hidden_cards``);
- ``WATCHDOG=1`` only from the controller's loop: a timer thread puts a probe in the loop's
  queue, and the loop's thread, handling it under the table's turn, sends the ping. A loop
  that is stuck, or an input stuck in the engine or the journal (it holds the turn), sends
  none, and systemd restarts the service after ``WatchdogSec=``;
- ``STOPPING=1`` when the table begins to close.
"""

from __future__ import annotations

import os
import queue
import socket
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

import structlog

from controller.journal import JsonObject
from controller.poker.engine.events import (
    BURN,
    COMMUNITY,
    ActionRequired,
    ActionTaken,
    Alarm,
    CardDealt,
    CardExpected,
    DrawExpected,
    Event,
    NewHandExpected,
)
from controller.table.control import SeatRequest
from controller.table.core import TableCore
from controller.table.paneltext import paused_line

#: The separator of the status's parts (systemctl status shows the line as it is).
SEPARATOR: Final = " · "
#: How long a READY or STOPPING waits for room in a full queue, and between its tries.
MUST_BE_HEARD: Final = 1.0
QUEUE_FULL_PAUSE: Final = 0.005
#: Events that never change the street: after only these, the street is not looked up again
#: (the table's snapshot, ``Table.state``, copies every seat: 38 us, a card's announcement).
#: Any other event (a street started, a hand, an undo, a misdeal) looks it up.
SAME_STREET: Final = (CardDealt, CardExpected, ActionRequired, ActionTaken)


class NotifyError(ValueError):
    """A notification variable of the environment that cannot be used: the message names it."""


def socket_address(value: str) -> str | bytes:
    """The address ``NOTIFY_SOCKET`` names: a path, or (``@name``) an abstract name."""
    if value.startswith("@"):
        return b"\0" + value[1:].encode()
    if value.startswith("/"):
        return value
    raise NotifyError(
        f"NOTIFY_SOCKET={value!r}: expected an absolute path or an abstract socket name "
        "starting with @"
    )


def watchdog_interval(environ: Mapping[str, str]) -> float | None:
    """The watchdog's timeout in seconds (``WATCHDOG_USEC``), or None if there is none for this
    process (unset, or ``WATCHDOG_PID`` names another process, as sd_watchdog_enabled(3))."""
    usec = environ.get("WATCHDOG_USEC")
    if usec is None:
        return None
    pid = environ.get("WATCHDOG_PID")
    if pid is not None and pid != str(os.getpid()):
        return None
    if not usec.isdigit() or int(usec) == 0:
        raise NotifyError(f"WATCHDOG_USEC={usec!r}: expected a whole number of microseconds > 0")
    return int(usec) / 1_000_000


class Notifier:
    """Sends notifications to the service manager's socket; never raises on a failed send (the
    table must not stop because systemd did not listen), but logs the first failure."""

    def __init__(self, address: str | bytes, pause: Callable[[float], None] = time.sleep) -> None:
        self.address = address
        #: How a send waits for room in a full queue (a test passes one that makes room).
        self._pause = pause
        self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
        # A full receive queue must never hold up the table's turn for long (see send).
        self._socket.setblocking(False)
        self._failed = False
        self._lock = threading.Lock()

    def send(self, message: Mapping[str, str], patience: float = 0.0) -> bool:
        """One datagram of ``KEY=value`` lines; False if it was not sent.

        While the service manager's queue is full, a send is tried again for ``patience``
        seconds: READY and STOPPING are given a second (systemd must hear them), a status or
        a ping none (the next one says it again); such a drop is not a failure. Any other
        error is logged, once until a send succeeds again.
        """
        data = "\n".join(f"{key}={value}" for key, value in message.items()).encode()
        deadline = time.monotonic() + patience
        with self._lock:
            while True:
                try:
                    self._socket.sendto(data, self.address)
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        return False
                    self._pause(QUEUE_FULL_PAUSE)
                    continue
                except OSError as error:
                    self._log_failure(error)
                    return False
                self._failed = False
                return True

    def _log_failure(self, error: OSError) -> None:
        if self._failed:
            return
        self._failed = True
        structlog.get_logger("controller.table").warning(
            "systemd_notify_failed",
            socket=os.fsdecode(self.address).replace("\0", "@"),
            error=str(error),
            detail="systemd may not hear READY, STATUS or the watchdog",
        )

    def close(self) -> None:
        """Close the socket."""
        self._socket.close()


def status_line(core: TableCore, street: str | None) -> str:
    """Where the hand stands, for ``systemctl status``: the hand, its ``street`` (the table's,
    ``core.table.state.street``), what the table waits for. Names no card: an alarm's card
    and a draw's discards are left out."""
    table = core.table
    pauses = core.pauses
    if pauses:
        return paused_line(pauses).replace("PAUSED:", "paused:")
    pending = table.pending
    if isinstance(pending, NewHandExpected):
        return f"waiting for hand {pending.hand}: shuffle, then NEW HAND"
    parts = [f"hand {table.hand_number}"]
    if street:
        parts.append(street)
    parts.append(_waiting_for(pending) or table.phase)
    return SEPARATOR.join(parts)


def _card_expected(pending: CardExpected) -> str:
    if pending.destination == BURN:
        return "burn a card"
    if pending.destination == COMMUNITY:
        return "community card"
    return f"card to seat {pending.seat}, face {pending.face}"


def _waiting_for(pending: Event) -> str:
    if isinstance(pending, ActionRequired):
        return f"seat {pending.seat} to act"
    if isinstance(pending, CardExpected):
        return _card_expected(pending)
    if isinstance(pending, DrawExpected):
        return f"seat {pending.seat} draws"
    if isinstance(pending, Alarm):
        return "alarm: UNDO or MISDEAL"  # the card read is the dealer's panel's, not here
    return ""


class _PingOnAnswer(queue.Queue[JsonObject]):
    """The answer slot of the watchdog's probe: the loop's thread, answering, sends WATCHDOG=1."""

    def __init__(self, watchdog: Watchdog) -> None:
        super().__init__(maxsize=1)
        self._watchdog = watchdog

    def put(self, item: JsonObject, block: bool = True, timeout: float | None = None) -> None:
        self._watchdog.answered()


class Watchdog:
    """Asks the loop to ping systemd's watchdog every half ``interval`` (sd_watchdog_enabled(3)).

    The probe is a request to show the seats (``SeatRequest(None)``: journals nothing, logs
    nothing), because the loop's thread takes a request only under the table's turn, so its
    answer means the loop and the turn are both free. A new probe goes out only when the last
    one was answered; an unanswered one is logged once, as the loop stalled.
    """

    def __init__(self, notifier: Notifier, events: queue.SimpleQueue[Any], interval: float) -> None:
        self.notifier = notifier
        self.events = events
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="systemd-watchdog", daemon=True)
        self._waiting = False
        self._stalled = False
        self._lock = threading.Lock()

    def start(self) -> None:
        """Send probes from a thread of its own until ``stop``."""
        self._thread.start()

    def stop(self) -> None:
        """Stop sending probes (an unanswered one stays in the queue: the loop may still take
        it, and then pings once more)."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self.interval / 2):
            self.tick()

    def tick(self) -> None:
        """Send a probe, unless the last one is still waiting (then the loop is stalled)."""
        with self._lock:
            if self._waiting:
                if not self._stalled:
                    self._stalled = True
                    structlog.get_logger("controller.table").warning(
                        "loop_stalled",
                        seconds=self.interval / 2,
                        detail="the controller's loop has not answered the watchdog; systemd "
                        f"restarts the service after {self.interval:g} s without it",
                    )
                return
            self._waiting = True
        self.events.put(SeatRequest(None, _PingOnAnswer(self)))

    def answered(self) -> None:
        """The loop took the probe: ping (on the loop's thread), unless the table is closing
        (the close's drain may take a probe left in the queue)."""
        with self._lock:
            self._waiting = False
            self._stalled = False
        if not self._stop.is_set():
            self.notifier.send({"WATCHDOG": "1"})


class ServiceNotifier:
    """What ``serve`` tells systemd over a table's life; see the module's docstring."""

    def __init__(self, notifier: Notifier, watchdog_interval: float | None) -> None:
        self.notifier = notifier
        self.watchdog_interval = watchdog_interval
        self.watchdog: Watchdog | None = None
        self._status = ""
        self._street: str | None = None

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> ServiceNotifier | None:
        """The notifier systemd's variables ask for; None without ``NOTIFY_SOCKET``. Raises
        NotifyError for a variable that cannot be used."""
        env = os.environ if environ is None else environ
        value = env.get("NOTIFY_SOCKET")
        if not value:
            return None
        address = socket_address(value)
        return cls(Notifier(address), watchdog_interval(env))

    def ready(self, core: TableCore, events: queue.SimpleQueue[Any]) -> None:
        """The journal is open and the drivers are started: READY=1 with the status, and the
        watchdog begins."""
        self._street = core.table.state.street
        self._status = status_line(core, self._street)
        self.notifier.send({"READY": "1", "STATUS": self._status}, MUST_BE_HEARD)
        if self.watchdog_interval is not None:
            self.watchdog = Watchdog(self.notifier, events, self.watchdog_interval)
            self.watchdog.start()

    def announced(self, core: TableCore, events: Sequence[Event]) -> None:
        """After the announcement of ``events``: the status, if it changed."""
        if not all(isinstance(event, SAME_STREET) for event in events):
            self._street = core.table.state.street
        status = status_line(core, self._street)
        if status != self._status:
            self._status = status
            self.notifier.send({"STATUS": status})

    def stopping(self) -> None:
        """The table begins to close: STOPPING=1; no more watchdog pings are asked for."""
        if self.watchdog is not None:
            self.watchdog.stop()
        self.notifier.send({"STOPPING": "1", "STATUS": "closing the table"}, MUST_BE_HEARD)

    def close(self) -> None:
        """Close the socket (after ``stopping``)."""
        if self.watchdog is not None:
            self.watchdog.stop()
        self.notifier.close()
