"""Simulated PN532 readers on pseudo-terminals: one chip a read point, one serving thread.

``Pn532Readers`` serves a ``VirtualPN532`` (simulator.pn532.chip) for each read point it is
given (``slot``, ``discard``) on a ``simulator.transports.PtyEndpoint``: a raw pty whose slave
is linked from ``<directory>/<point>``, unplugged and plugged back as the protocol devices'
are. The line's speed the host set (its ``termios``, which a pty's master reads as its slave's)
reaches the chip, so a host at the wrong baud rate is not heard. The clock is the caller's: a
``simulator.clock.ManualClock`` in the tests, whose every advance writes what fell due.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import termios
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from simulator.clock import ManualClock
from simulator.pn532.chip import Tag, VirtualPN532
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


class Pn532Readers:
    """PN532 readers on ptys, one per read point, served by one thread."""

    def __init__(
        self,
        directory: Path,
        points: tuple[str, ...] = ("slot",),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.directory = directory
        self.clock = clock
        self.chips: dict[str, VirtualPN532] = {p: VirtualPN532() for p in points}
        self.endpoints: dict[str, PtyEndpoint] = {
            p: PtyEndpoint(p, self._receiver(p), directory) for p in points
        }
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._wake_r, self._wake_w = -1, -1
        self._unwatch = clock.watch(self._advanced) if isinstance(clock, ManualClock) else None

    # --- life -------------------------------------------------------------------------------

    def start(self) -> Pn532Readers:
        self.directory.mkdir(parents=True, exist_ok=True)
        for endpoint in self.endpoints.values():
            endpoint.plug()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        self._thread = threading.Thread(target=self._serve, name="tablectl-pn532", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        if self._thread is not None:
            self._stop.set()
            self._wake()
            self._thread.join()
            self._thread = None
            os.close(self._wake_r)
            os.close(self._wake_w)
        for endpoint in self.endpoints.values():
            endpoint.close()
        if self._unwatch is not None:
            self._unwatch()
            self._unwatch = None

    def __enter__(self) -> Pn532Readers:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def address(self, point: str) -> str:
        """The path a host opens to reach the reader at ``point``."""
        return self.endpoints[point].address

    # --- what a test or the dealer does -----------------------------------------------------

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the readers still (arm a fault, read a chip's state); write what is due after."""
        with self._lock:
            yield
            self._pump(self.clock())
        self._wake()

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

    # --- serving ----------------------------------------------------------------------------

    def _receiver(self, point: str) -> Callable[[bytes], None]:
        def receive(data: bytes) -> None:
            with self._lock:
                now = self.clock()
                baud = host_baud(self.endpoints[point].master)
                self.chips[point].receive(data, now, baud)
                self._pump(now)

        return receive

    def _pump(self, now: float) -> None:
        for point, chip in self.chips.items():
            endpoint = self.endpoints[point]
            data = chip.poll(now, host_baud(endpoint.master))
            if data:
                endpoint.send(data)

    def _advanced(self, now: float) -> None:
        """A manual clock moves on: what the host wrote before is heard at the old time,
        then what falls due by ``now`` is written, before the new time can be read."""
        with self._lock:
            for endpoint in self.endpoints.values():
                endpoint.read_available()
            self._pump(now)

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"!")

    def _serve(self) -> None:
        with selectors.DefaultSelector() as selector:
            selector.register(self._wake_r, selectors.EVENT_READ, None)
            watched: dict[str, tuple[int, int]] = {}
            while not self._stop.is_set():
                with self._lock:
                    self._watch(selector, watched)
                    now = self.clock()
                    self._pump(now)
                    deadline = min(c.next_deadline() for c in self.chips.values())
                wait = min(max(deadline - now, 0.0), MAX_WAIT)
                for key, _ in selector.select(wait):
                    if key.data is None:
                        with contextlib.suppress(BlockingIOError):
                            while os.read(self._wake_r, 64):
                                pass
                    else:
                        with self._lock:
                            endpoint = self.endpoints[key.data]
                            if endpoint.master == key.fd:
                                endpoint.read_available()

    def _watch(self, selector: selectors.BaseSelector, watched: dict[str, tuple[int, int]]) -> None:
        """Select on every plugged pty's master; forget old ones (after a replug)."""
        for point, endpoint in self.endpoints.items():
            current = None
            if endpoint.master is not None:
                current = (endpoint.master, endpoint.generation)
            if watched.get(point) == current:
                continue
            if point in watched:
                with contextlib.suppress(KeyError, ValueError, OSError):
                    selector.unregister(watched.pop(point)[0])
            if current is not None:
                with contextlib.suppress(KeyError, ValueError, OSError):
                    selector.unregister(current[0])
                selector.register(current[0], selectors.EVENT_READ, point)
                watched[point] = current
