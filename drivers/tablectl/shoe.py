"""The card shoe: its sentences, its codec (both directions) and its host-side driver.

The shoe reads the RFID tag of every card at one of two read points (the
dealing slot and the discard reader, ``controller.poker.inputs.ReadPoint``) and
reports its lid, reader and feed. docs/protocol.md is the contract.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import ClassVar, Final, Self

from controller.poker.inputs import ReadPoint
from drivers.seam.events import (
    EventSink,
    Feed,
    Lid,
    LinkEvent,
    Reader,
    RepeatDropped,
    ShoeEvent,
    ShoeState,
    TagRead,
)
from drivers.seam.tags import (
    DEVICE_CLOCK_MODULUS,
    RepeatFilter,
    UidError,
    is_uid,
    parse_uid,
    uid_expected,
)
from drivers.tablectl.link import LinkSettings
from drivers.tablectl.nmea import EncodeError, Talker
from drivers.tablectl.sentences import (
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
from drivers.tablectl.transport import DeviceDriver

_READ_MS = re.compile(r"[0-9]{1,10}")


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
        if not is_uid(uid):
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

    @property
    def points(self) -> frozenset[ReadPoint]:
        """The protocol's shoe reads at both points (docs/protocol.md 3.1 ``CRD``)."""
        return frozenset(ReadPoint)

    def restore_reads(self, boot: str, reads: Iterable[tuple[str, ReadPoint, int]]) -> None:
        """The journal's reads of ``boot``, for the repeat filter (docs/protocol.md 7)."""
        self.repeats.restore(boot, reads)

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
