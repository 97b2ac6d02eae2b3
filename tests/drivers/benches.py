"""One bench a registered backend (drivers/seam/registry.py): its emulated device on a real
line, for the backend contract suite (test_backend_contract.py).

A bench gives the ``[devices.<role>]`` keys that reach its device, makes the device come up,
act once (a tag at the dealing slot, or a press of fold) and go away (unplugged), and waits
for the backend's events on the test's clock (advancing it as far as its device needs, never
sleeping to decide). A new backend adds its factory to ``BENCHES`` under ``(role, kind)``.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any, Protocol, TypeVar

from backends import PtyBackend
from fake_device import FakeDevice
from keypad_contract_bench import keypad_bench
from pn532_contract_bench import pn532_bench

from controller.poker.inputs import Button, ReadPoint
from drivers.seam.events import PANEL, SHOE, ButtonPressed, TagRead
from drivers.tablectl.panel import Press
from simulator.clock import ManualClock

E = TypeVar("E")
#: How long a bench waits for an event before the test fails.
PATIENCE = 10.0


class Bench(Protocol):
    """A backend's device under test, on the test's clock."""

    clock: ManualClock

    def section(self) -> dict[str, object]:
        """The ``[devices.<role>]`` keys (besides ``kind``) that reach the device."""

    def bad_key(self) -> tuple[str, object]:
        """One of the backend's own keys and a value it must refuse, naming that key."""

    def come_up(self) -> None:
        """Power the device (plug it in): the backend, started, says DeviceUp."""

    def act(self) -> None:
        """One read of a tag at the dealing slot (a shoe) or a press of fold (a panel)."""

    def acted(self, event: object) -> bool:
        """``event`` is what ``act`` made the backend say."""

    def go_down(self) -> None:
        """Pull the device's cable: the backend says DeviceDown."""

    def wait(self, events: queue.Queue[Any], kind: type[E]) -> E:
        """The first event of ``kind`` (others before it dropped); fails after a while."""


def wait_for(events: queue.Queue[Any], kind: type[E], timeout: float = PATIENCE) -> E:
    """The first event of ``kind``, the events before it dropped; AssertionError after
    ``timeout`` (a backend whose device needs no clock to answer)."""
    deadline = time.monotonic() + timeout
    seen: list[Any] = []
    while True:
        try:
            event = events.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise AssertionError(f"no {kind.__name__} within {timeout} s; saw {seen}") from None
        if isinstance(event, kind):
            return event
        seen.append(event)


class ProtocolBench:
    """The tablectl backend's device: docs/protocol.md's shoe or panel on a real pty pair
    (tests/drivers/fake_device.py), its clock the test's."""

    UID = "E0AA000000000001"

    def __init__(self, role: str, directory: Path) -> None:
        self.role = role
        self.clock = ManualClock()
        self.line = PtyBackend(directory)
        serial = "SHOE0001" if role == SHOE else "PANEL0001"
        self.device = FakeDevice(self.line, kind=role, serial=serial, clock=self.clock)
        self._up = False

    def section(self) -> dict[str, object]:
        # Well above the device's 0.1 s heartbeat: only a silent device is ever lost.
        return {"path": self.line.url, "heartbeat_timeout": 1.5}

    def bad_key(self) -> tuple[str, object]:
        return "baudrate", 1200

    def come_up(self) -> None:
        self.device.__enter__()
        self._up = True

    def act(self) -> None:
        if self.role == SHOE:
            self.device.read(self.UID, ReadPoint.DEALING_SLOT)
        else:
            self.device.submit(Press(0, Button.FOLD))

    def acted(self, event: object) -> bool:
        if self.role == SHOE:
            return (
                isinstance(event, TagRead)
                and event.uid == self.UID
                and event.point is ReadPoint.DEALING_SLOT
            )
        return isinstance(event, ButtonPressed) and event.button is Button.FOLD

    def go_down(self) -> None:
        self.device.unplug()

    def wait(self, events: queue.Queue[Any], kind: type[E]) -> E:
        return wait_for(events, kind)

    def close(self) -> None:
        if self._up:
            self.device.__exit__(None, None, None)
        self.line.close()


@contextmanager
def protocol_bench(role: str, directory: Path) -> Iterator[Bench]:
    bench = ProtocolBench(role, directory)
    try:
        yield bench
    finally:
        bench.close()


#: (role, kind) -> a bench in a folder of its own. Every entry of the registry has one.
BENCHES: dict[tuple[str, str], Callable[[Path], AbstractContextManager[Bench]]] = {
    (SHOE, "tablectl"): lambda directory: protocol_bench(SHOE, directory),
    (PANEL, "tablectl"): lambda directory: protocol_bench(PANEL, directory),
    (SHOE, "pn532"): pn532_bench,
    (PANEL, "keypad"): keypad_bench,
}
