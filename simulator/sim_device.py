"""One virtual device as the simulator serves it: its core, its fault line, its connector.

``SimDevice`` carries the bytes between the host and a device core through the core's
fault line and traces them for the technician; ``boot_id`` is the boot id a device picks
at each power-up (docs/protocol.md 4), repeatable from the simulator's seed.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from simulator.devices import RESEND_POLL, DeviceCore
from simulator.faults import LineFaults
from simulator.transports import Endpoint


def boot_id(seed: int, device: str, power_ups: int) -> str:
    """The boot id a device picks at its ``power_ups``-th power-up (docs/protocol.md 4)."""
    return f"{random.Random(f'tablectl-boot-{seed}-{device}-{power_ups}').getrandbits(32):08X}"


Trace = Callable[[str], None]


def wire_lines(data: bytes) -> list[str]:
    """Bytes on the wire as printable lines, one a sentence (noise shown escaped)."""
    text = data.decode("ascii", "backslashreplace")
    return [line for line in text.replace("\r\n", "\n").split("\n") if line]


@dataclass(slots=True)
class SimDevice:
    """One virtual device: its core, its line and its connector."""

    core: DeviceCore
    line: LineFaults
    endpoint: Endpoint
    power_ups: int = 1
    #: Prints the wire's traffic (``trace``); heartbeats too when ``trace_heartbeats``.
    trace: Trace | None = None
    trace_heartbeats: bool = False

    def from_host(self, data: bytes, now: float) -> None:
        """The host wrote ``data``."""
        self._trace("<", data)
        heard = self.line.incoming(data, now)
        if heard:
            self.core.receive(heard, now)

    def pump(self, now: float) -> None:
        """Write whatever is due now."""
        data = self.line.apply(self.core.poll(now), now)
        if data:
            self._trace(">", data)
            self.endpoint.send(data)

    def _trace(self, direction: str, data: bytes) -> None:
        if self.trace is None:
            return
        for line in wire_lines(data):
            if self.trace_heartbeats or line[3:6] != "HBT":
                self.trace(f"{self.core.name} {direction} {line}")

    def deadline(self, now: float) -> float:
        """When ``pump`` next has work."""
        deadline = min(self.core.next_deadline(), self.line.next_deadline())
        if self.core.busy:
            deadline = min(deadline, now + RESEND_POLL)
        return deadline
