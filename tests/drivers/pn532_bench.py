"""A PN532 shoe on the simulator's PN532s (simulator/pn532), both on one ManualClock the test
moves: the bench of tests/drivers/test_pn532_*.py.

The clock moves a step at a time, and only once every reader thread of the shoe has read the
time the last step set (``WatchedClock``): a reader the machine's load keeps off the CPU
holds the clock, so a card's time in the field is never spent while its reader cannot poll.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from drivers.pn532.backend import Pn532Settings, Pn532Shoe
from drivers.pn532.reader import ReaderTiming
from drivers.seam.device import OpenOptions
from simulator.clock import ManualClock
from simulator.pn532.serve import Pn532Readers
from tests.simulator.devtime import QUIET, WAIT

#: The devices' time a quiet line lets pass at a step: below every bound of the driver.
STEP = 0.01

T = TypeVar("T")


class WatchedClock:
    """The shoe's clock: the test's ManualClock, noting which thread read which time."""

    def __init__(self, clock: ManualClock) -> None:
        self.clock = clock
        self._lock = threading.Lock()
        self._seen: dict[int, float] = {}

    def __call__(self) -> float:
        now = self.clock()
        with self._lock:
            self._seen[threading.get_ident()] = now
        return now

    def seen_by(self, threads: list[threading.Thread]) -> bool:
        """Every one of ``threads`` still alive has read the time as it is now."""
        now = self.clock()
        with self._lock:
            return all(self._seen.get(t.ident or 0, -1.0) >= now for t in threads if t.is_alive())


class Bench:
    """The simulated readers, the shoe on them, its events and the clock."""

    def __init__(
        self,
        readers: Pn532Readers,
        shoe: Pn532Shoe,
        clock: ManualClock,
        watched: WatchedClock,
        events: queue.Queue[Any],
    ) -> None:
        self.readers = readers
        self.shoe = shoe
        self.clock = clock
        self.watched = watched
        self.events = events

    def step(self) -> None:
        """Let one step pass, once every reader has seen the last one."""
        threads = [t for r in self.shoe.readers.values() if (t := r.thread) is not None]
        deadline = time.monotonic() + WAIT
        while not self.watched.seen_by(threads):
            assert time.monotonic() < deadline, "a reader thread never read the clock"
            time.sleep(0.0005)
        self.clock.advance(STEP)

    def next(self, kind: type[T]) -> T:
        """The next event of ``kind`` (others skipped), the clock moving while the line is
        quiet."""
        deadline = time.monotonic() + WAIT
        while True:
            try:
                event = self.events.get(timeout=QUIET)
            except queue.Empty:
                assert time.monotonic() < deadline, f"no {kind.__name__} within {WAIT:g} s"
                self.step()
                continue
            if isinstance(event, kind):
                return event

    def drain(self) -> list[Any]:
        """Every event waiting now."""
        out = []
        while True:
            try:
                out.append(self.events.get_nowait())
            except queue.Empty:
                return out

    def run_for(self, seconds: float) -> list[Any]:
        """Let ``seconds`` pass on the devices' clock, a step whenever the line is quiet; the
        events that came meanwhile."""
        until = self.clock() + seconds
        got: list[Any] = []
        while self.clock() < until:
            try:
                got.append(self.events.get(timeout=QUIET))
            except queue.Empty:
                self.step()
        return got + self.drain()


@contextmanager
def bench(
    tmp_path: Path,
    points: tuple[str, ...] = ("slot",),
    baud: int = 115200,
    repeat_window: float = 0.5,
    prepare: Callable[[Pn532Readers, ManualClock], None] | None = None,
) -> Iterator[Bench]:
    """The bench, its shoe started; ``prepare`` arms the readers before it starts."""
    clock = ManualClock()
    watched = WatchedClock(clock)
    with Pn532Readers(tmp_path / "dev", points, clock) as readers:
        if prepare is not None:
            with readers.locked():
                prepare(readers, clock)
        discard = readers.address("discard") if "discard" in points else None
        settings = Pn532Settings("shoe", "pn532", readers.address("slot"), discard, baud)
        events: queue.Queue[Any] = queue.Queue()
        shoe = Pn532Shoe(
            settings,
            events,
            OpenOptions(clock=watched, repeat_window=repeat_window),
            ReaderTiming(backoff_first=0.2, backoff_max=1.0),
        )
        shoe.start()
        try:
            yield Bench(readers, shoe, clock, watched, events)
        finally:
            shoe.stop()
