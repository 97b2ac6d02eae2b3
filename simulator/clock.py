"""The devices' clock: the wall clock on a technician's bench, or one a test moves by hand.

Every timer of a simulated device (heartbeats, hellos, resends, a delayed or
silenced line, the shoe's read stamps) reads the simulator's clock, and so
does every timer of the drivers a test connects to it (the host's silence
check, its queries). On the wall clock those timers run as fast as the
machine lets the threads run, so what a test sees would follow the machine's
load: a bot dealing faster than any dealer reads one tag twice inside the
RFID repeat window on an idle machine, and never on a busy one.

``ManualClock`` stands still until someone moves it: a test (``advance``) or
a dealer bot's pace (``pause``: the bot's pause before a shuffle is seconds
on the devices' clock, not on the wall). Before the new time can be read,
the clock tells its watchers (the simulator), which write whatever falls due
by then; so whoever reads a time from the clock finds on the wire every
heartbeat due by that time, and a host is never found silent because a
thread ran late.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

#: Where a manual clock starts: any value serves; not 0, so no timer looks unset.
MANUAL_START = 1000.0

Watcher = Callable[[float], None]


class ManualClock:
    """Seconds that pass only when ``advance`` says so. Call it to read the time."""

    def __init__(self, start: float = MANUAL_START) -> None:
        self._now = start
        self._lock = threading.Lock()
        self._watchers: list[Watcher] = []

    def __call__(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        """Move the clock on by ``seconds``; the watchers act on the new time first."""
        if seconds < 0:
            raise ValueError(f"advance {seconds} s: a clock does not go back; expected 0 or more")
        with self._lock:
            later = self._now + seconds
            for watcher in list(self._watchers):
                watcher(later)
            self._now = later

    def watch(self, watcher: Watcher) -> Callable[[], None]:
        """Call ``watcher(time)`` at every advance, before the new time is read; returns the
        call that stops it."""
        with self._lock:
            self._watchers.append(watcher)

        def unwatch() -> None:
            with self._lock:
                if watcher in self._watchers:
                    self._watchers.remove(watcher)

        return unwatch


def pause(clock: Callable[[], float], seconds: float, stop: threading.Event) -> bool:
    """Let ``seconds`` pass on ``clock`` (a dealer's pause); True if ``stop`` came first.

    On a manual clock the time passes at once; on the wall clock it is waited for,
    and ``stop`` cuts it short."""
    if isinstance(clock, ManualClock):
        if seconds > 0 and not stop.is_set():
            clock.advance(seconds)
        return stop.is_set()
    return stop.wait(seconds)
