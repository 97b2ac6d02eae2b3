"""Simulated PN532 readers on pseudo-terminals: one chip a read point, one serving thread.

``Pn532Readers`` serves a ``VirtualPN532`` (simulator.pn532.chip) for each read point it is
given (``slot``, ``discard``) on a ``simulator.transports.PtyEndpoint``: a raw pty whose slave
is linked from ``<directory>/<point>``, unplugged and plugged back as the protocol devices'
are. The line's speed the host set (its ``termios``, which a pty's master reads as its slave's)
reaches the chip, so a host at the wrong baud rate is not heard. The clock is the caller's: a
``simulator.clock.ManualClock`` in the tests, whose every advance writes what fell due. The
thread, the lock and the clock's watch are ``simulator.serving.ServedEndpoints``'.
"""

from __future__ import annotations

import termios
import time
from collections.abc import Callable
from pathlib import Path
from typing import Final

from simulator.pn532.chip import Tag, VirtualPN532
from simulator.serving import ServedEndpoints
from simulator.transports import PtyEndpoint

#: The serving thread wakes at least this often (a held answer, a stop request).
MAX_WAIT: Final = 0.05
#: termios's speed constants, as baud rates.
_SPEEDS: Final[dict[int, int]] = {
    getattr(termios, f"B{rate}"): rate
    for rate in (9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600)
}


def host_baud(master: int | None) -> int | None:
    """The speed the host set on the pty (None: no pty, or a speed the chip has not got)."""
    if master is None:
        return None
    try:
        speed = termios.tcgetattr(master)[5]
    except termios.error:
        return None
    return _SPEEDS.get(speed)


class Pn532Readers(ServedEndpoints):
    """PN532 readers on ptys, one per read point, served by one thread.

    ``start``, ``close`` (or ``with``) and ``locked`` are ``ServedEndpoints``'."""

    def __init__(
        self,
        directory: Path,
        points: tuple[str, ...] = ("slot",),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.chips: dict[str, VirtualPN532] = {p: VirtualPN532() for p in points}
        self.endpoints: dict[str, PtyEndpoint] = {
            p: PtyEndpoint(p, self._receiver(p), directory) for p in points
        }
        super().__init__(clock, directory, thread_name="tablectl-pn532", max_wait=MAX_WAIT)

    def address(self, point: str) -> str:
        """The path a host opens to reach the reader at ``point``."""
        return self.endpoints[point].address

    # --- what a test or the dealer does -----------------------------------------------------

    def place(self, point: str, tag: Tag, dwell: float) -> None:
        """A card carrying ``tag`` enters ``point``'s field now, for ``dwell`` seconds."""
        with self.locked():
            self.chips[point].place(tag, self.clock(), dwell)

    def take(self, point: str) -> None:
        """Every card in ``point``'s field leaves it now."""
        with self.locked():
            self.chips[point].take(self.clock())

    def unplug(self, point: str) -> None:
        """Pull the reader's USB cable: the host's port fails, the link goes."""
        with self.locked():
            self.endpoints[point].unplug()

    def replug(self, point: str) -> None:
        """Plug it back in: a new pty behind the same link; the chip powers up again."""
        with self.locked():
            self.chips[point].reset()
            self.endpoints[point].plug()

    # --- serving (simulator.serving) --------------------------------------------------------

    def _endpoints(self) -> dict[str, PtyEndpoint]:
        return self.endpoints

    def _heard(self, name: str, data: bytes, now: float) -> None:
        self.chips[name].receive(data, now, host_baud(self.endpoints[name].master))

    def _pump(self, now: float) -> None:
        for point, chip in self.chips.items():
            endpoint = self.endpoints[point]
            data = chip.poll(now, host_baud(endpoint.master))
            if data:
                endpoint.send(data)

    def _deadline(self, now: float) -> float:
        return min(chip.next_deadline() for chip in self.chips.values())
