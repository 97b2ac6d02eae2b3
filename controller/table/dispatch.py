"""Who handles a driver's input, and on which thread: the controller's concurrency, in one place.

The choice (docs/app.md, The loop; the phase modules' A/B in docs/performance.md): while the
table runs, an input is handled at once on the reading thread of the driver that read it,
under the table's turn (one lock), so a card goes from the wire to its announcement on one
thread with no hand-off. Measured against the other design, every input queued to the
loop's thread, the two gave the same latency; this one is kept, with its three parts here
and nowhere else:

- ``DriverEvents``, where the drivers put what they read: given to the handler while the
  run takes inputs on the drivers' threads, else queued for the loop;
- ``Dispatch.turn``, the lock every input is handled under (one at a time, whichever
  thread), which the loop's own work (the floor's requests, a display's view) takes too;
- the error path: what a driver's thread meets handling an input is kept, the loop is woken,
  and ``run`` raises it on the loop's thread as if it had met it there.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any, Final

#: How often the loop looks up from an empty queue to see whether it should stop.
POLL: Final = 0.1
#: Put in the queue to wake the loop: a driver's thread failed to handle an input.
_WAKE: Final = object()


class DriverEvents:
    """Where the drivers put what they read (an ``EventSink``).

    While the table runs (``Dispatch.run``) an event is handled at once, on the driver's
    thread, under the table's turn; otherwise (before the run, once it has ended, after a
    failure) it waits in ``queue`` for the loop.
    """

    def __init__(self) -> None:
        self.queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._handler: Callable[[object], bool] | None = None
        self._lock = threading.Lock()

    def handle_with(self, handler: Callable[[object], bool]) -> None:
        """From now on, give each event to ``handler`` (which handles it and says True, or
        says False: then it is queued). An event is queued or given, never both: the queue
        holds only what came before."""
        with self._lock:
            self._handler = handler

    def put(self, item: Any, block: bool = True, timeout: float | None = None) -> None:
        """Hand over one event; never waits for the loop, only for an input in hand."""
        with self._lock:
            handler = self._handler
            if handler is None:
                self.queue.put(item)
                return
        if not handler(item):
            self.queue.put(item)


class Dispatch:
    """Runs ``handle`` on every event of ``inbox``, one at a time under ``turn``: on the
    drivers' threads while ``run`` runs, on the caller's thread otherwise (``drain``)."""

    def __init__(self, inbox: DriverEvents, handle: Callable[[object], None]) -> None:
        self.inbox = inbox
        self._handle = handle
        #: One input at a time, from the loop's thread or a driver's.
        self.turn = threading.RLock()
        #: True while ``run`` takes the drivers' events on their threads.
        self._taking = False
        #: What a driver's thread met handling an input; ``run`` raises it.
        self._failure: BaseException | None = None

    def run(self, stop: threading.Event) -> None:
        """Handle events until ``stop`` is set: the drivers' on their own threads, what is
        queued (the floor's requests, what came before the run) on this one. An error a
        driver's thread met is raised here."""
        with self.turn:
            self.inbox.handle_with(self.on_drivers_thread)
            # What the drivers said before the run, in order, before anything they say now
            # (which waits for this turn): each device's inputs stay in the order it sent them.
            self._drain_in_turn()
            self._taking = True
        try:
            while not stop.is_set():
                try:
                    event = self.inbox.queue.get(timeout=POLL)
                except queue.Empty:
                    continue
                self._raise_failure()
                if event is not _WAKE:
                    with self.turn:
                        self._handle(event)
            self._raise_failure()
        finally:
            with self.turn:  # an input in hand on a driver's thread is finished first
                self._taking = False

    def on_drivers_thread(self, event: object) -> bool:
        """Handle ``event`` now on the calling driver's thread (True), or say it must be
        queued (False: the run is not taking inputs, or a driver's thread failed)."""
        with self.turn:
            if not self._taking or self._failure is not None:
                return False  # queued: the loop (or the close's drain) takes it
            try:
                self._handle(event)
            except BaseException as error:  # any error: the loop's thread raises it, as its own
                self._failure = error
                self.inbox.queue.put(_WAKE)
            return True

    def drain(self) -> None:
        """Handle every event already queued, on this thread."""
        with self.turn:
            self._drain_in_turn()

    def _drain_in_turn(self) -> None:
        while True:
            try:
                event = self.inbox.queue.get_nowait()
            except queue.Empty:
                return
            if event is not _WAKE:
                self._handle(event)

    def _raise_failure(self) -> None:
        if self._failure is not None:
            raise self._failure
