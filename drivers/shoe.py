"""The card shoe: its sentences, its codec (both directions) and its host-side driver.

The shoe reads the RFID tag of every card at one of two read points (the
dealing slot and the discard reader, ``controller.inputs.ReadPoint``) and
reports its lid, reader and feed. docs/protocol.md is the contract.
"""

from __future__ import annotations

import queue
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import ClassVar, Final, Self

from controller.inputs import ReadPoint
from drivers.nmea import EncodeError, Talker
from drivers.sentences import (
    Ack,
    Codec,
    FieldError,
    Heartbeat,
    Hello,
    Query,
    Reject,
    Sentence,
    Welcome,
    check_seq,
    expect_count,
    parse_choice,
    parse_seq,
)
from drivers.transport import DeviceDriver, LinkEvent, LinkSettings

_UID = re.compile(r"E0[0-9A-F]{14}")


class UidError(ValueError):
    """Text that is not an ISO 15693 tag UID as the protocol writes it."""

    def __init__(self, text: str) -> None:
        self.text = text
        super().__init__(
            f"tag UID {text!r}: expected 16 uppercase hex digits, most significant byte "
            "first, beginning E0 (ISO/IEC 15693); a UID ending in E0 was sent least "
            "significant byte first"
        )


def parse_uid(text: str) -> str:
    """Check a tag UID: 8 bytes as 16 uppercase hex digits, MSB (always E0) first."""
    if not _UID.fullmatch(text):
        raise UidError(text)
    return text


class Lid(StrEnum):
    """The shoe's lid."""

    OPEN = "open"
    CLOSED = "closed"


class Reader(StrEnum):
    """The RFID reader's self-test."""

    OK = "ok"
    FAULT = "fault"


class Feed(StrEnum):
    """The card path: cards can leave, a card is stuck, or no card is left."""

    OK = "ok"
    JAM = "jam"
    EMPTY = "empty"


@dataclass(frozen=True, slots=True)
class CardSeen:
    """A tag read at a read point (``slot`` or ``discard``)."""

    KIND: ClassVar[str] = "CRD"
    seq: int
    point: ReadPoint
    uid: str

    def to_fields(self) -> tuple[str, ...]:
        check_seq(self.seq)
        try:
            parse_uid(self.uid)
        except UidError as exc:
            raise EncodeError(str(exc)) from None
        return (str(self.seq), self.point.value, self.uid)

    @classmethod
    def from_fields(cls, fields: tuple[str, ...]) -> Self:
        expect_count(cls.KIND, fields, ("seq", "point", "uid"))
        seq, point, uid = fields
        if not _UID.fullmatch(uid):
            raise FieldError(
                cls.KIND, "uid", uid, "16 uppercase hex digits, MSB first, beginning E0"
            )
        return cls(parse_seq(cls.KIND, seq), parse_choice(cls.KIND, "point", point, ReadPoint), uid)


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
    """The shoe read a tag (repeats within the window already dropped)."""

    uid: str
    point: ReadPoint
    seq: int


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


ShoeEvent = TagRead | ShoeState | RepeatDropped


class RepeatFilter:
    """Drops a tag read again at the same read point within ``window`` seconds of the last.

    An RFID reader reads a tag over and over while it lingers in the field
    (docs/protocol.md, 7). The window slides: a tag that stays in the field
    stays filtered.
    """

    def __init__(self, window: float) -> None:
        if window < 0:
            raise ValueError(f"RFID repeat window {window}: expected 0 or more seconds")
        self.window = window
        self._last: dict[tuple[str, ReadPoint], float] = {}

    def is_repeat(self, uid: str, point: ReadPoint, now: float) -> bool:
        """Record a read at ``now``; True if it repeats one within the window."""
        last = self._last.get((uid, point))
        self._last[(uid, point)] = now
        if len(self._last) > 1024:  # two decks at two points is 208: prune the forgotten
            self._last = {k: t for k, t in self._last.items() if now - t < self.window}
        return last is not None and now - last < self.window


class ShoeDriver(DeviceDriver[ShoeEvent]):
    """The host's driver for the shoe: yields TagRead and ShoeState, plus link events."""

    device = "shoe"

    def __init__(
        self,
        settings: LinkSettings,
        events: queue.Queue[ShoeEvent | LinkEvent],
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
            if self.repeats.is_repeat(sentence.uid, sentence.point, now):
                self._log.info(
                    "rfid_repeat_dropped",
                    uid=sentence.uid,
                    point=sentence.point.value,
                    seq=sentence.seq,
                    window=self.repeats.window,
                )
                if self.ack_after_commit:
                    # The controller must journal it too, or it could never be acked in order.
                    self.events.put(RepeatDropped(sentence.uid, sentence.point, sentence.seq))
                return
            self.events.put(TagRead(sentence.uid, sentence.point, sentence.seq))
        elif isinstance(sentence, ShoeStatus):
            self._log.info(
                "shoe_status",
                lid=sentence.lid.value,
                reader=sentence.reader.value,
                feed=sentence.feed.value,
            )
            self.events.put(ShoeState(sentence.lid, sentence.reader, sentence.feed, sentence.seq))
