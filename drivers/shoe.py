"""The card shoe: its sentences, its codec (both directions) and its host-side driver.

The shoe reads the RFID tag of every card at one of two read points (the
dealing slot and the discard reader, ``controller.poker.inputs.ReadPoint``) and
reports its lid, reader and feed. docs/protocol.md is the contract.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import ClassVar, Final, Self

from controller.poker.inputs import ReadPoint
from drivers.link import EventSink, LinkEvent, LinkSettings
from drivers.nmea import EncodeError, Talker
from drivers.sentences import (
    Ack,
    Codec,
    Feed,
    FieldError,
    Heartbeat,
    Hello,
    Lid,
    Query,
    Reader,
    Reject,
    Sentence,
    Welcome,
    check_seq,
    expect_count,
    parse_choice,
    parse_seq,
)
from drivers.transport import DeviceDriver

_UID = re.compile(r"E0[0-9A-F]{14}")
#: A UID written least significant byte first: its E0 comes last.
_UID_REVERSED = re.compile(r"[0-9A-F]{14}E0")
#: What a UID field must hold (docs/protocol.md 2, ``uid``).
UID_EXPECTED: Final = "16 uppercase hex digits, MSB first, beginning E0"
_READ_MS = re.compile(r"[0-9]{1,10}")

#: The shoe's clock counts milliseconds since power-up and wraps to 0 here (a 32-bit
#: millisecond tick, about 49.7 days: docs/protocol.md 2, ``read_ms``).
DEVICE_CLOCK_MODULUS: Final = 2**32


def uid_expected(text: str) -> str:
    """What a UID must be, for an error about ``text``; with the byte-order hint exactly
    when ``text`` is a valid UID written least significant byte first (docs/protocol.md 2).
    """
    if _UID_REVERSED.fullmatch(text) and not _UID.fullmatch(text):
        msb_first = "".join(text[i : i + 2] for i in range(14, -1, -2))
        return f"{UID_EXPECTED}; this is {msb_first} sent least significant byte first"
    return UID_EXPECTED


class UidError(ValueError):
    """Text that is not an ISO 15693 tag UID as the protocol writes it."""

    def __init__(self, text: str) -> None:
        self.text = text
        super().__init__(f"tag UID {text!r} (ISO/IEC 15693): expected {uid_expected(text)}")


def parse_uid(text: str) -> str:
    """Check a tag UID: 8 bytes as 16 uppercase hex digits, MSB (always E0) first."""
    if not _UID.fullmatch(text):
        raise UidError(text)
    return text


def parse_read_ms(kind: str, text: str) -> int:
    """The device's clock at a read: 1 to 10 decimal digits, 0..4294967295 ms."""
    if not _READ_MS.fullmatch(text) or int(text) >= DEVICE_CLOCK_MODULUS:
        raise FieldError(
            kind,
            "read_ms",
            text,
            f"the shoe's clock in milliseconds, 0 to {DEVICE_CLOCK_MODULUS - 1}",
        )
    return int(text)


@dataclass(frozen=True, slots=True)
class CardSeen:
    """A tag read at a read point (``slot`` or ``discard``), stamped with the shoe's clock.

    ``read_ms`` is when the shoe read the tag, in milliseconds on its own
    clock (since power-up, wrapping at 2**32): the host judges repeats on it,
    never on when the sentence arrived (docs/protocol.md 3.1 ``CRD``, 7).
    """

    KIND: ClassVar[str] = "CRD"
    seq: int
    point: ReadPoint
    uid: str
    read_ms: int

    def to_fields(self) -> tuple[str, ...]:
        check_seq(self.seq)
        try:
            parse_uid(self.uid)
        except UidError as exc:
            raise EncodeError(str(exc)) from None
        if not 0 <= self.read_ms < DEVICE_CLOCK_MODULUS:
            raise EncodeError(
                f"CRD read_ms {self.read_ms}: expected 0 to {DEVICE_CLOCK_MODULUS - 1} "
                "(the shoe's clock wraps to 0)"
            )
        return (str(self.seq), self.point.value, self.uid, str(self.read_ms))

    @classmethod
    def from_fields(cls, fields: tuple[str, ...]) -> Self:
        expect_count(cls.KIND, fields, ("seq", "point", "uid", "read_ms"))
        seq, point, uid, read_ms = fields
        if not _UID.fullmatch(uid):
            raise FieldError(cls.KIND, "uid", uid, uid_expected(uid))
        return cls(
            parse_seq(cls.KIND, seq),
            parse_choice(cls.KIND, "point", point, ReadPoint),
            uid,
            parse_read_ms(cls.KIND, read_ms),
        )


@dataclass(frozen=True, slots=True)
class ShoeStatus:
    """The shoe's whole state, sent on power-up and on every change of any part."""

    KIND: ClassVar[str] = "STA"
    seq: int
    lid: Lid
    reader: Reader
    feed: Feed

    def to_fields(self) -> tuple[str, ...]:
        check_seq(self.seq)
        return (str(self.seq), self.lid.value, self.reader.value, self.feed.value)

    @classmethod
    def from_fields(cls, fields: tuple[str, ...]) -> Self:
        expect_count(cls.KIND, fields, ("seq", "lid", "reader", "feed"))
        seq, lid, reader, feed = fields
        return cls(
            parse_seq(cls.KIND, seq),
            parse_choice(cls.KIND, "lid", lid, Lid),
            parse_choice(cls.KIND, "reader", reader, Reader),
            parse_choice(cls.KIND, "feed", feed, Feed),
        )


#: What the shoe says.
SHOE_SENTENCES: Final[dict[str, type[Sentence]]] = {
    s.KIND: s for s in (Hello, Heartbeat, CardSeen, ShoeStatus)
}
#: What the host says to the shoe.
HOST_TO_SHOE: Final[dict[str, type[Sentence]]] = {s.KIND: s for s in (Query, Welcome, Reject, Ack)}


def host_codec() -> Codec:
    """The host's end of the shoe link: decodes shoe sentences, encodes host ones."""
    return Codec(Talker.SHOE, Talker.HOST, SHOE_SENTENCES)


def device_codec() -> Codec:
    """The shoe's end (for the simulator and tests): decodes host sentences, encodes shoe ones."""
    return Codec(Talker.HOST, Talker.SHOE, HOST_TO_SHOE)


# --- The host's driver --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TagRead:
    """The shoe read a tag (repeats within the window already dropped).

    ``read_ms`` is the shoe's clock at the read (docs/protocol.md 3.1 ``CRD``).
    """

    uid: str
    point: ReadPoint
    seq: int
    read_ms: int


@dataclass(frozen=True, slots=True)
class ShoeState:
    """The shoe's lid, reader and feed changed (or were reported after power-up)."""

    lid: Lid
    reader: Reader
    feed: Feed
    #: The STA sentence's number, for ``commit`` when the controller acks.
    seq: int | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class RepeatDropped:
    """A tag read again within the repeat window, dropped (sent only with ``ack_after_commit``)."""

    uid: str
    point: ReadPoint
    seq: int
    #: The shoe's clock at the repeat: it slides the window, so the journal keeps it.
    read_ms: int | None = None


ShoeEvent = TagRead | ShoeState | RepeatDropped


class RepeatFilter:
    """Drops a tag read again at the same read point within ``window`` seconds of the last,
    timed on the shoe's own clock (docs/protocol.md 7).

    An RFID reader reads a tag over and over while it lingers in the field.
    Whether a read repeats another is decided by the shoe's times of the two
    reads, never by when their sentences arrived: a resend or an outage
    delays a sentence but not its ``read_ms``. The window slides: a tag that
    stays in the field stays filtered. Times of different boots are not
    comparable, so a new boot id starts afresh.

    The shoe's clock wraps at 2**32 ms. Reads arrive in the order they were
    made, so each read's time is taken as at or after the previous read's,
    of any tag: the filter keeps the clock unwrapped, which is right as long
    as two consecutive reads of a boot are less than 2**32 ms (49.7 days) apart.
    """

    def __init__(self, window: float) -> None:
        if not window >= 0:
            raise ValueError(f"RFID repeat window {window}: expected 0 or more seconds")
        self.window = window
        self._window_ms = window * 1000
        self._boot: str | None = None
        self._last_read_ms = 0
        #: The shoe's clock unwrapped: milliseconds since the boot's first read.
        self._elapsed = 0
        #: (uid, point) -> (unwrapped time, read_ms) of the last read of that tag there.
        self._last: dict[tuple[str, ReadPoint], tuple[int, int]] = {}

    def restore(self, boot: str, reads: Iterable[tuple[str, ReadPoint, int]]) -> None:
        """Before the first read: remember ``reads`` (uid, point, read_ms) of ``boot``, in the
        order the shoe made them, as a restarted controller finds them in its journal, so
        that a repeat of a journaled read arriving just after the restart is still a repeat.
        """
        for uid, point, read_ms in reads:
            self.repeats(boot, uid, point, read_ms)

    def repeats(self, boot: str, uid: str, point: ReadPoint, read_ms: int) -> int | None:
        """Record a read; the ``read_ms`` of the read it repeats, or None if it is a new read."""
        if boot != self._boot:
            self._boot, self._last, self._elapsed = boot, {}, 0
        else:
            # docs/protocol.md 7: the shoe's clock only goes forward, wrapping at 2**32.
            self._elapsed += (read_ms - self._last_read_ms) % DEVICE_CLOCK_MODULUS
        self._last_read_ms = read_ms
        now = self._elapsed
        last = self._last.get((uid, point))
        self._last[(uid, point)] = (now, read_ms)
        if len(self._last) > 1024:  # two decks at two points is 208: prune the forgotten
            self._last = {k: v for k, v in self._last.items() if now - v[0] < self._window_ms}
        if last is not None and now - last[0] < self._window_ms:
            return last[1]
        return None


class ShoeDriver(DeviceDriver[ShoeEvent]):
    """The host's driver for the shoe: yields TagRead and ShoeState, plus link events."""

    device = "shoe"

    def __init__(
        self,
        settings: LinkSettings,
        events: EventSink[ShoeEvent | LinkEvent],
        repeat_window: float = 0.5,
        clock: Callable[[], float] = time.monotonic,
        *,
        ack_after_commit: bool = False,
    ) -> None:
        self.repeats = RepeatFilter(repeat_window)
        super().__init__(settings, events, clock, ack_after_commit=ack_after_commit)

    def make_codec(self) -> Codec:
        return host_codec()

    def on_accepted(self, sentence: Sentence, now: float) -> None:
        if isinstance(sentence, CardSeen):
            # Accepted sentences come after a welcomed hello, so the boot is known.
            boot = self.receiver.boot or ""
            earlier = self.repeats.repeats(boot, sentence.uid, sentence.point, sentence.read_ms)
            if earlier is not None:
                self._log.info(
                    "rfid_repeat_dropped",
                    uid=sentence.uid,
                    point=sentence.point.value,
                    seq=sentence.seq,
                    read_ms=sentence.read_ms,
                    previous_read_ms=earlier,
                    window=self.repeats.window,
                )
                if self.ack_after_commit:
                    # The controller must journal it too, or it could never be acked in order.
                    self.events.put(
                        RepeatDropped(sentence.uid, sentence.point, sentence.seq, sentence.read_ms)
                    )
                return
            self.events.put(TagRead(sentence.uid, sentence.point, sentence.seq, sentence.read_ms))
        elif isinstance(sentence, ShoeStatus):
            self._log.info(
                "shoe_status",
                lid=sentence.lid.value,
                reader=sentence.reader.value,
                feed=sentence.feed.value,
            )
            self.events.put(ShoeState(sentence.lid, sentence.reader, sentence.feed, sentence.seq))
