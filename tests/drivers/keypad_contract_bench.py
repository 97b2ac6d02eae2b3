"""The keypad backend's bench for the backend contract suite (benches.py): the simulator's
keypad (simulator/keypad.py), which fails as the kernel does: unplugged, its node reads
ENODEV."""

from __future__ import annotations

import queue
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from controller.poker.inputs import Button
from drivers.seam.events import ButtonPressed
from simulator.clock import ManualClock
from simulator.keypad import SimKeypad

E = TypeVar("E")
#: How long the bench waits for an event before the test fails.
PATIENCE = 10.0


class KeypadBench:
    """A simulated keypad, unplugged until ``come_up``; the keypad takes no clock."""

    def __init__(self, directory: Path) -> None:
        self.clock = ManualClock()
        self.keypad = SimKeypad(f"bench-{directory.name}")
        self.keypad.unplug()

    def section(self) -> dict[str, object]:
        return {"url": self.keypad.url}

    def bad_key(self) -> tuple[str, object]:
        return "keys", "default"

    def come_up(self) -> None:
        self.keypad.plug()

    def act(self) -> None:
        self.keypad.tap("KEY_KP1")  # fold, in the default map

    def acted(self, event: object) -> bool:
        return isinstance(event, ButtonPressed) and event.button is Button.FOLD

    def go_down(self) -> None:
        self.keypad.unplug()

    def wait(self, events: queue.Queue[Any], kind: type[E]) -> E:
        """The first event of ``kind``, those before it dropped; the keypad answers at once,
        so a wall-clock allowance that costs nothing when it does."""
        seen: list[Any] = []
        deadline = time.monotonic() + PATIENCE
        while True:
            try:
                event = events.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no {kind.__name__} in {PATIENCE} s; saw {seen}") from None
            if isinstance(event, kind):
                return event
            seen.append(event)

    def close(self) -> None:
        self.keypad.close()


@contextmanager
def keypad_bench(directory: Path) -> Iterator[KeypadBench]:
    bench = KeypadBench(directory)
    try:
        yield bench
    finally:
        bench.close()
