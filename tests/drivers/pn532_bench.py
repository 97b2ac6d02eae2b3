"""A PN532 shoe on the simulator's PN532s (simulator/pn532), both on one ManualClock the test
moves: the bench of tests/drivers/test_pn532_*.py."""

from __future__ import annotations

import queue
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from drivers.pn532.backend import Pn532Settings, Pn532Shoe
from drivers.pn532.reader import ReaderTiming
from drivers.seam.device import OpenOptions
from simulator.clock import ManualClock
from simulator.pn532.serve import Pn532Readers
from tests.simulator.devtime import QUIET, next_event

#: The devices' time a quiet line lets pass at a step: below every bound of the driver, so
#: a reply written in time is read in time whatever the machine's load.
STEP = 0.01

T = TypeVar("T")


class Bench:
    """The simulated readers, the shoe on them, its events and the clock."""

    def __init__(
        self,
        readers: Pn532Readers,
        shoe: Pn532Shoe,
        clock: ManualClock,
        events: queue.Queue[Any],
    ) -> None:
        self.readers = readers
        self.shoe = shoe
        self.clock = clock
        self.events = events

    def next(self, kind: type[T]) -> T:
        """The next event of ``kind`` (others skipped), the clock moving while the line is
        quiet."""
        event: T = next_event(self.events, kind, self.clock, step=STEP)
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
                self.clock.advance(STEP)
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
            OpenOptions(clock=clock, repeat_window=repeat_window),
            ReaderTiming(backoff_first=0.2, backoff_max=1.0),
        )
        shoe.start()
        try:
            yield Bench(readers, shoe, clock, events)
        finally:
            shoe.stop()
