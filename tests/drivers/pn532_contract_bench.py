"""The PN532 shoe's bench for the seam's contract suite (tests/drivers/benches.py): the
simulated PN532 at the dealing slot on a real pty (simulator/pn532), on the test's clock."""

from __future__ import annotations

import queue
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from controller.poker.inputs import ReadPoint
from drivers.seam.events import TagRead
from simulator.clock import ManualClock
from simulator.pn532.chip import Tag
from simulator.pn532.serve import Pn532Readers
from tests.simulator.devtime import next_event

E = TypeVar("E")
UID = bytes.fromhex("04A2B3C4D5E680")
#: Below every bound of the driver (docs/hardware.md, How the driver reads).
STEP = 0.01


class Pn532Bench:
    """A PN532 at the slot: plugged in by ``come_up``, a card pitched by ``act``."""

    def __init__(self, directory: Path) -> None:
        self.clock = ManualClock()
        self.readers = Pn532Readers(directory / "dev", ("slot",), self.clock)
        self._up = False

    def section(self) -> dict[str, object]:
        return {"port": self.readers.address("slot"), "baudrate": 115200}

    def bad_key(self) -> tuple[str, object]:
        return "baudrate", 100000

    def come_up(self) -> None:
        self.readers.start()
        self._up = True

    def act(self) -> None:
        # The card stays in the field (its repeat window makes it one read): the suite's
        # clock moves on whether or not a loaded machine has let the reader poll.
        self.readers.place("slot", Tag.ntag213(UID), 60.0)

    def acted(self, event: object) -> bool:
        return (
            isinstance(event, TagRead)
            and event.uid == UID.hex().upper()
            and event.point is ReadPoint.DEALING_SLOT
        )

    def go_down(self) -> None:
        self.readers.unplug("slot")

    def wait(self, events: queue.Queue[Any], kind: type[E]) -> E:
        event: E = next_event(events, kind, self.clock, step=STEP)
        return event

    def close(self) -> None:
        if self._up:
            self.readers.close()


@contextmanager
def pn532_bench(directory: Path) -> Iterator[Pn532Bench]:
    bench = Pn532Bench(directory)
    try:
        yield bench
    finally:
        bench.close()
