"""One command and its answer on a PN532's HSU line, with the chip's retries (UM0701-02 6.2).

``ChipLine.exchange`` writes a command frame (after the HSU wake-up when told to), waits for
the chip's ACK, then for its answer, and returns the answer's data:

- a NACK from the chip: the command again (at most ``NACK_LIMIT`` times);
- an answer that fails its checksum: a NACK from the host, and the answer again (as often);
- an error frame: ``ChipError`` (the chip could not parse the command);
- an answer to another command (a late one the chip sent after the host gave up on it):
  passed over, counted;
- nothing within the bound, on the caller's clock: an ACK to cancel the command (so a late
  answer does not collide with the next one), then ``LineSilent``.

The clock is the caller's (a test's ``ManualClock``); the port's own read timeout is only
how often the wait looks at that clock.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Final

import serial

from drivers.pn532.frames import (
    ACK_FRAME,
    NACK_FRAME,
    WAKE_UP,
    Decoded,
    ErrorFrame,
    FrameDecoder,
    FrameError,
    Information,
    Nack,
    Noise,
    command,
)

#: How long the host waits for the chip's ACK. The chip ACKs within milliseconds (nfcpy
#: allows 100 ms: nfc/clf/pn532.py, init); a host that a busy machine keeps off the CPU for
#: longer must not call that an outage, which costs the cards pitched until the reconnection
#: (docs/performance.md, A PN532 shoe's reads): 250 ms.
ACK_BOUND: Final = 0.25
#: NACKs either side sends for one command before the exchange fails.
NACK_LIMIT: Final = 3


class LineSilent(Exception):
    """No ACK or answer within the bound."""


class ChipError(Exception):
    """The chip answered, but not with an answer to the command."""


class Stopped(Exception):
    """The driver is stopping: the exchange was abandoned."""


@dataclass(slots=True)
class LineCounters:
    """The line's health: what was sent again, what was garbled or out of place."""

    commands: int = 0
    resent: int = 0
    nacks_sent: int = 0
    frame_errors: int = 0
    noise_bytes: int = 0
    error_frames: int = 0
    stale_answers: int = 0
    timeouts: int = 0

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


class ChipLine:
    """Commands and answers over ``port``, timed on ``clock``."""

    def __init__(
        self,
        port: serial.SerialBase,
        clock: Callable[[], float],
        stopping: threading.Event,
        counters: LineCounters | None = None,
    ) -> None:
        self.port = port
        self.clock = clock
        self.stopping = stopping
        self.counters = counters or LineCounters()
        self._decoder = FrameDecoder()
        self._items: deque[Decoded] = deque()
        #: Send the HSU wake-up before the next command (at every new connection).
        self.wake_next = True

    def exchange(self, body: bytes, answer_bound: float, name: str) -> bytes:
        """Send command ``body`` (code first); its answer's data (code first), which must come
        within ``answer_bound`` of the ACK, the ACK within ``ACK_BOUND`` of the command."""
        self.counters.commands += 1
        self._drain()
        frame = command(body)
        for _ in range(NACK_LIMIT + 1):
            self._write((WAKE_UP if self.wake_next else b"") + frame)
            self.wake_next = False
            first = self._next(self.clock() + ACK_BOUND)
            if not isinstance(first, Nack):
                break
            self.counters.resent += 1
        else:
            raise ChipError(f"{name}: the PN532 asked for the command {NACK_LIMIT + 1} times")
        if first is None:
            self._give_up()
            raise LineSilent(f"no ACK to {name} within {ACK_BOUND * 1000:.0f} ms")
        return self._answer(body[0], first, answer_bound, name)

    def _answer(self, code: int, item: Decoded, bound: float, name: str) -> bytes:
        deadline = self.clock() + bound
        nacks = 0
        while True:
            if isinstance(item, Information) and item.tfi == 0xD5:
                if item.code == code + 1:
                    return item.data
                self.counters.stale_answers += 1
            elif isinstance(item, ErrorFrame):
                self.counters.error_frames += 1
                raise ChipError(f"{name}: the PN532 answered with an error frame (syntax error)")
            elif isinstance(item, FrameError):
                if nacks == NACK_LIMIT:
                    raise ChipError(f"{name}: {NACK_LIMIT + 1} answers failed their checksum")
                nacks += 1
                self.counters.nacks_sent += 1
                self._write(NACK_FRAME)
                deadline = self.clock() + bound
            next_item = self._next(deadline)
            if next_item is None:
                self._give_up()
                raise LineSilent(f"no answer to {name} within {bound * 1000:.0f} ms")
            item = next_item

    def send_ack(self) -> None:
        """ACK a SetSerialBaudrate's answer (the chip changes speed on it)."""
        self._write(ACK_FRAME)

    def _give_up(self) -> None:
        """Cancel the command in progress (UM0701-02 6.2.1.3: the host's ACK aborts it)."""
        self.counters.timeouts += 1
        self._write(ACK_FRAME)

    def _write(self, data: bytes) -> None:
        self.port.write(data)

    def _waiting(self) -> int:
        # in_waiting is on every concrete port, not on SerialBase's stub.
        return int(getattr(self.port, "in_waiting", 0))

    def _drain(self) -> None:
        """Count what came between two exchanges (a late answer, noise) and forget it."""
        waiting = self._waiting()
        self._feed(self.port.read(waiting) if waiting else b"")
        while self._items:
            self._count(self._items.popleft())

    def _count(self, item: Decoded) -> None:
        if isinstance(item, Information):
            self.counters.stale_answers += 1
        elif isinstance(item, FrameError):
            self.counters.frame_errors += 1

    def _feed(self, data: bytes) -> None:
        for item in self._decoder.feed(data):
            if isinstance(item, Noise):
                self.counters.noise_bytes += len(item.raw)
            else:
                if isinstance(item, FrameError):
                    self.counters.frame_errors += 1
                self._items.append(item)

    def _next(self, deadline: float) -> Decoded | None:
        """The next frame (or frame error) before ``deadline`` on the clock; None: silence."""
        while True:
            if self._items:
                return self._items.popleft()
            if self.stopping.is_set():
                raise Stopped
            if self.clock() >= deadline:
                # What the chip wrote by the deadline counts, even if not yet read.
                waiting = self._waiting()
                if waiting:
                    self._feed(self.port.read(waiting))
                    continue
                cut = self._decoder.flush()
                if cut is None:
                    return None
                self.counters.frame_errors += 1
                return cut
            self._feed(self.port.read(max(1, self._waiting())))
