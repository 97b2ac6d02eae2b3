"""Reliable delivery over a lossy line: sequence numbers, cumulative acks, resend.

Both ends are pure (no I/O, no clock of their own; the caller passes ``now``):

- ``HostReceiver`` is the host's end: it checks a device's hello, accepts
  each sequenced sentence once and in order, drops resent duplicates, and
  says which acknowledgement to send.
- ``DeviceSender`` is a device's end (the simulator's and the tests'): it
  numbers sentences, keeps up to a window of them unacknowledged, and resends
  them all, oldest first, until the host acknowledges them (go-back-N).

docs/protocol.md, "Sequence numbers and acknowledgement", is the contract.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from enum import StrEnum
from typing import Final, Protocol, Self, TypeVar

from drivers.seam.events import (
    SEQ_MODULUS,
    HelloOutcome,
    LostRange,
    RejectReason,
    seq_distance,
)
from drivers.tablectl.sentences import PROTOCOL_VERSION, Ack, Heartbeat, Hello, Reject, Welcome

#: At most this many sentences are unacknowledged at once; the rest wait on the device.
WINDOW: Final = 8
#: A sequence number more than this far behind the expected one is a duplicate.
_BEHIND: Final = SEQ_MODULUS // 2


def seq_add(seq: int, step: int) -> int:
    """``seq`` moved ``step`` places, wrapping at 10000."""
    return (seq + step) % SEQ_MODULUS


class Delivery(StrEnum):
    """What the host did with a sequenced sentence."""

    #: The next in order: pass it on.
    ACCEPTED = "accepted"
    #: Already accepted (the device resent it because the ack was lost): drop it.
    DUPLICATE = "duplicate"
    #: A later one arrived before the next in order (a frame was lost): drop it, the
    #: device resends from the lost one.
    GAP = "gap"
    #: No hello yet from this device: drop it and query.
    NO_SESSION = "no_session"


@dataclass(frozen=True, slots=True)
class HelloVerdict:
    """The outcome of a hello, the reply to send, and why (for the log and the error)."""

    outcome: HelloOutcome
    reply: Welcome | Reject
    reason: str = ""
    #: With outcome LOST: the numbers lost.
    lost: LostRange | None = None


class HostReceiver:
    """The host's end of one device link (docs/protocol.md, Sequence numbers)."""

    def __init__(self, device: str, expected_serial: str | None = None) -> None:
        self.device = device
        self.expected_serial = expected_serial
        self.boot: str | None = None
        self.expected: int | None = None

    def on_hello(self, hello: Hello) -> HelloVerdict:
        """Check a hello and say whether the device is welcome."""
        if hello.protocol != PROTOCOL_VERSION:
            return HelloVerdict(
                HelloOutcome.REFUSED,
                Reject(RejectReason.PROTOCOL, str(PROTOCOL_VERSION)),
                f"{self.device} {hello.model} serial {hello.serial} speaks protocol version "
                f"{hello.protocol}; this host speaks only version {PROTOCOL_VERSION}",
            )
        if self.expected_serial is not None and hello.serial != self.expected_serial:
            return HelloVerdict(
                HelloOutcome.REFUSED,
                Reject(RejectReason.IDENTITY, self.expected_serial),
                f"{self.device} on this port has serial {hello.serial}; the table's "
                f"configuration names {self.expected_serial}",
            )
        if hello.boot == self.boot:
            lost = self.skip_lost(hello.seq)
            if lost is not None:
                return HelloVerdict(HelloOutcome.LOST, Welcome(), lost=lost)
            return HelloVerdict(HelloOutcome.RESUMED, Welcome())
        outcome = HelloOutcome.NEW_SESSION if self.boot is None else HelloOutcome.RESTARTED
        self.boot = hello.boot
        self.expected = hello.seq
        return HelloVerdict(outcome, Welcome())

    def on_sequenced(self, seq: int) -> tuple[Delivery, Ack | None]:
        """Accept, or drop, a sequenced sentence; and the ack to send (None: send nothing)."""
        if self.expected is None:
            return Delivery.NO_SESSION, None
        last = seq_add(self.expected, -1)
        if seq == self.expected:
            self.expected = seq_add(seq, 1)
            return Delivery.ACCEPTED, Ack(seq)
        if seq_distance(seq, self.expected) <= _BEHIND:
            return Delivery.DUPLICATE, Ack(last)
        return Delivery.GAP, Ack(last)

    def on_heartbeat(self, heartbeat: Heartbeat) -> Ack | None:
        """The ack to repeat if the device still waits for one the host already sent."""
        if self.expected is None or heartbeat.seq == self.expected:
            return None
        return Ack(seq_add(self.expected, -1))

    def skip_lost(self, oldest: int) -> LostRange | None:
        """The device's oldest unacknowledged number, from its hello or heartbeat: if it is
        past the next the host expects, the numbers between are gone (the device holds
        nothing before its oldest). Resynchronise, expecting ``oldest`` next, and return
        what was lost; None if nothing was (docs/protocol.md 5, Lost sentences).

        Past means ahead by less than half the number space, as for a gap
        (``on_sequenced``); further is behind: a device that missed an ack.
        """
        if self.expected is None or seq_distance(oldest, self.expected) <= _BEHIND:
            return None
        lost = LostRange(self.expected, seq_add(oldest, -1))
        self.expected = oldest
        return lost


class Sequenced(Protocol):
    """A device sentence whose first field is its sequence number."""

    @property
    def seq(self) -> int: ...

    def to_fields(self) -> tuple[str, ...]: ...

    @classmethod
    def from_fields(cls, fields: tuple[str, ...]) -> Self: ...


_S = TypeVar("_S", bound=Sequenced)


def renumber(sentence: _S, seq: int) -> _S:
    """The same sentence carrying sequence number ``seq``."""
    return type(sentence).from_fields((str(seq), *sentence.to_fields()[1:]))


class DeviceSender:
    """A device's end of the link: numbering, the unacknowledged window, resending.

    The device queues events with ``submit``; ``due(now)`` returns what to
    write now. Nothing sequenced goes out before the host's welcome. Unsent
    and unacknowledged sentences survive a lost link: after the next welcome
    they are sent again from the oldest.
    """

    def __init__(
        self,
        boot: str,
        first_seq: int = 0,
        window: int = WINDOW,
        resend_after: float = 0.2,
    ) -> None:
        self.boot = boot
        self.window = window
        self.resend_after = resend_after
        self.welcomed = False
        self._next = first_seq
        self._unacked: deque[Sequenced] = deque()
        self._waiting: deque[Sequenced] = deque()
        self._last_send: float | None = None
        self._resend_now = False

    @property
    def oldest(self) -> int:
        """The number of the oldest unacknowledged sentence, or the next if none is."""
        if self._unacked:
            return self._unacked[0].seq
        if self._waiting:
            return self._waiting[0].seq
        return self._next

    @property
    def backlog(self) -> int:
        """Sentences not yet acknowledged (sent or waiting)."""
        return len(self._unacked) + len(self._waiting)

    def submit(self, sentence: _S) -> _S:
        """Number a sentence and queue it; returns it as numbered."""
        numbered = renumber(sentence, self._next)
        self._next = seq_add(self._next, 1)
        self._waiting.append(numbered)
        return numbered

    def heartbeat(self) -> Heartbeat:
        """The heartbeat to send now."""
        return Heartbeat(self.oldest)

    def on_query(self) -> None:
        """The host (re)opened the port: wait for its welcome before sending on."""
        self.welcomed = False

    def on_welcome(self) -> None:
        """The host accepted the hello: send everything unacknowledged again, oldest first."""
        self.welcomed = True
        self._resend_now = True

    def on_ack(self, ack: Ack) -> int:
        """Drop what the cumulative ack covers; returns how many it covered."""
        if not self._unacked:
            return 0
        covered = seq_distance(self._unacked[0].seq, ack.seq) + 1
        if covered > len(self._unacked):
            return 0  # an ack outside the window: an old or a repeated one
        for _ in range(covered):
            self._unacked.popleft()
        self._last_send = None if not self._unacked else self._last_send
        return covered

    def due(self, now: float) -> list[Sequenced]:
        """The sequenced sentences to write now: resends first, then new ones."""
        if not self.welcomed:
            return []
        out: list[Sequenced] = []
        stale = self._last_send is not None and now - self._last_send >= self.resend_after
        if self._unacked and (self._resend_now or stale):
            out.extend(self._unacked)
        self._resend_now = False
        while self._waiting and len(self._unacked) < self.window:
            sentence = self._waiting.popleft()
            self._unacked.append(sentence)
            out.append(sentence)
        if out:
            self._last_send = now
        return out
