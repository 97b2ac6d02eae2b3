"""The virtual shoe: a stub of tagged cards, the slot and discard readers, lid and feed.

A device core (``simulator.devices.DeviceCore``) that deals, discards and reads tags as
the RFID shoe does (docs/protocol.md 3.1), stamping every read with its own clock; the
technician's faults of the shoe (a lid, a reader, a jam, a card read again or from the
other deck) are its methods. Pure: time is passed in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from controller.poker.cards import Card
from controller.poker.inputs import ReadPoint
from drivers.seam.events import Feed, Lid, Reader
from drivers.seam.tags import DEVICE_CLOCK_MODULUS
from drivers.tablectl import shoe as shoe_protocol
from drivers.tablectl.shoe import CardSeen, ShoeStatus
from simulator.decks import TagDeck, cut, shuffled
from simulator.devices import SHOE_IDENTITY, DeviceCore, DeviceError, Identity, Timing

#: How soon an RFID reader reads a tag again while it lingers in the field: well inside
#: the host's repeat window (docs/protocol.md 7, 500 ms by default).
LINGER_INTERVAL: Final = 0.05
#: The longest a ``reread`` may wait: the longest a technician's fault may hold anything.
MAX_REREAD_AFTER: Final = 60.0


@dataclass(frozen=True, slots=True, order=True)
class _Scheduled:
    """A read the shoe's reader will make later: a lingering tag, or a card passing again."""

    at: float
    point: ReadPoint
    uid: str


@dataclass(frozen=True, slots=True)
class Dealt:
    """A card that left the shoe, its tag, and how many reads the shoe reported of it."""

    card: Card
    uid: str
    reads: int
    burn: bool = False


class VirtualShoe(DeviceCore):
    """The RFID card shoe: a stub of tagged cards, the slot and discard readers, lid and feed.

    The stub is the active deck shuffled and cut; ``deal`` takes the top card
    through the slot, whose reader reports it (docs/protocol.md 3.1 ``CRD``).
    Every read is stamped with the shoe's clock: milliseconds since power-up
    on the ``now`` passed in, wrapping at 2**32 (``read_ms``). Reads the
    reader makes later (a lingering tag's repeats, ``reread``) are kept with
    their time and reported, stamped with it, as soon as that time has come.
    """

    name = "shoe"

    def __init__(
        self,
        decks: tuple[TagDeck, TagDeck],
        boot: str,
        now: float,
        *,
        identity: Identity = SHOE_IDENTITY,
        timing: Timing | None = None,
        first_seq: int = 0,
        stub: Sequence[Card] = (),
    ) -> None:
        self.decks = decks
        self.active = 0
        #: The cards in the shoe, top first; a shoe may power up loaded.
        self.stub: list[Card] = list(stub)
        self.dealt: list[Dealt] = []
        self.lid = Lid.CLOSED
        self.reader = Reader.OK
        self.jammed = False
        #: The next card dealt lingers in the field: read this many more times.
        self.extra_reads = 0
        #: The next card dealt passes the slot again this many seconds later (None: it does not).
        self.reread_after: float | None = None
        self._scheduled: list[_Scheduled] = []
        #: Where the reads go when the table's shoe is not this protocol shoe: the tag of a
        #: card pitched past a PN532 reader's field (simulator/pn532/shoe.py); None: onto the
        #: protocol's line as CRD sentences.
        self.reads: Callable[[ReadPoint, str, float], None] | None = None
        self._clock_ms_at = 0
        self._clock_since = now
        self._reported: tuple[Lid, Reader, Feed] | None = None
        codec = shoe_protocol.device_codec()
        super().__init__(identity, codec, boot, now, timing or Timing(), first_seq=first_seq)

    def _power_up(self, boot: str, now: float) -> None:
        # Section 3.1 CRD: the clock starts at power-up; reads not made yet are never made.
        self._clock_ms_at, self._clock_since = 0, now
        self._scheduled = []
        super()._power_up(boot, now)
        self._reported = None
        self._report_status()  # section 3.1 STA: on power-up and on every change

    # --- the shoe's clock -----------------------------------------------------------------

    def clock_ms(self, now: float) -> int:
        """The shoe's clock at ``now``: ms since power-up, wrapping at 2**32 (3.1 ``CRD``)."""
        elapsed = round((now - self._clock_since) * 1000)
        return (self._clock_ms_at + elapsed) % DEVICE_CLOCK_MODULUS

    def set_uptime(self, ms: int, now: float) -> None:
        """Run the clock on to read ``ms`` at ``now``, as if the shoe had been up that long.

        It only goes forward (modulo 2**32: any reading is forward of another),
        so a reading near 4294967295 makes the clock wrap soon (docs/protocol.md 7).
        """
        if not 0 <= ms < DEVICE_CLOCK_MODULUS:
            raise DeviceError(f"uptime {ms} ms: expected 0 to {DEVICE_CLOCK_MODULUS - 1}")
        self._flush_scheduled(now)
        self._clock_ms_at, self._clock_since = ms, now

    @property
    def room(self) -> int:
        """Room in the store, less the reads the reader is still to make."""
        return super().room - len(self._scheduled)

    def poll(self, now: float) -> list[bytes]:
        self._flush_scheduled(now)
        return super().poll(now)

    def next_deadline(self) -> float:
        deadline = super().next_deadline()
        return min(deadline, self._scheduled[0].at) if self._scheduled else deadline

    def _flush_scheduled(self, now: float) -> None:
        # Reads are reported in the order they were made, so the times in CRD never go back.
        while self._scheduled and self._scheduled[0].at <= now:
            read = self._scheduled.pop(0)
            if self.reader is Reader.OK:
                self._report(read.point, read.uid, read.at)

    # --- status ---------------------------------------------------------------------------

    @property
    def feed(self) -> Feed:
        """Jammed (by a fault or a full store, section 5), empty, or ok."""
        if self.jammed or self.room < 2:
            return Feed.JAM
        return Feed.EMPTY if not self.stub else Feed.OK

    def _report_status(self) -> None:
        status = (self.lid, self.reader, self.feed)
        if status != self._reported:
            self._reported = status
            self.submit(ShoeStatus(0, *status))

    def _acknowledged(self) -> None:
        self._report_status()  # a full store that drains clears the jam

    def _welcomed(self) -> None:
        # Section 3.1 STA: after every WEL too, so a host that has just connected knows the state.
        self._reported = None
        self._report_status()

    def set_lid(self, lid: Lid) -> None:
        """Open or close the lid."""
        self.lid = lid
        self._report_status()

    def set_reader(self, reader: Reader) -> None:
        """The RFID reader fails its self-test, or recovers; while it fails no card is read."""
        self.reader = reader
        self._report_status()

    def set_jam(self, jammed: bool) -> None:
        """A card sticks in the slot (no card can leave), or is freed."""
        self.jammed = jammed
        self._report_status()

    # --- the deck -------------------------------------------------------------------------

    @property
    def deck(self) -> TagDeck:
        """The deck in play."""
        return self.decks[self.active]

    @property
    def other_deck(self) -> TagDeck:
        """The deck being shuffled while the other is in play (rules-interpretation.md, Shuffle, cut
        and decks)."""
        return self.decks[1 - self.active]

    def use_deck(self, name: str) -> None:
        """Put deck ``name`` in play (its cards are loaded with ``load``)."""
        names = [deck.name for deck in self.decks]
        if name not in names:
            raise DeviceError(f"deck {name!r}: expected one of {' '.join(names)}")
        self.active = names.index(name)

    def load(self, cards: Sequence[Card]) -> None:
        """Load the stub, top card first: a shuffled deck (rules-interpretation.md, Shuffle, cut and
        decks)."""
        self.stub = list(cards)
        self.dealt = []
        self._report_status()

    def shuffle(self, seed: int) -> None:
        """Load the deck in play shuffled from ``seed``."""
        self.load(shuffled(seed))

    def cut(self, count: int) -> None:
        """Cut the stub: at least ten cards off the top, before any card is dealt."""
        if self.dealt:
            raise DeviceError("cards have been dealt from this stub; shuffle before the cut")
        # rules-interpretation.md, Shuffle, cut and decks: at least ten cards.
        self.stub = cut(self.stub, count)

    # --- reads ----------------------------------------------------------------------------

    def _check_can_deal(self, reads: int) -> None:
        if self.feed is Feed.JAM:
            why = "a card is stuck" if self.jammed else "the store of unacknowledged reads is full"
            raise DeviceError(f"the feed is jammed ({why}): no card can leave the shoe")
        self._check_room(reads)

    def _check_room(self, reads: int) -> None:
        if self.room < reads + 1:
            # Section 5: a full store must not drop a read; it jams the feed instead.
            self._report_status()
            raise DeviceError("the shoe's store is full: the feed jams until the host acks")

    def _read(self, point: ReadPoint, uid: str, now: float) -> int:
        self._flush_scheduled(now)
        if self.reader is Reader.FAULT:
            return 0
        self._report(point, uid, now)
        return 1

    def _report(self, point: ReadPoint, uid: str, at: float) -> None:
        if self.reads is not None:
            self.reads(point, uid, at)
        else:
            self.submit(CardSeen(0, point, uid, self.clock_ms(at)))

    def _schedule(self, at: float, point: ReadPoint, uid: str) -> None:
        self._scheduled.append(_Scheduled(at, point, uid))
        self._scheduled.sort()

    def deal(self, card: Card | None = None, burn: bool = False, *, now: float) -> Dealt:
        """Deal the top card (or a named card from anywhere in the stub) through the slot.

        A lingering card (``extra_reads``) is read again every 50 ms of the
        shoe's clock, inside the host's repeat window; a ``reread_after`` card
        passes the slot again that many seconds later, a second read.
        """
        if not self.stub:
            raise DeviceError("the shoe is empty: shuffle to load the deck again")
        if card is not None and card not in self.stub:
            where = "has been dealt" if any(d.card is card for d in self.dealt) else "is not here"
            raise DeviceError(f"{card.code} {where}; the stub has {len(self.stub)} cards")
        later = self.extra_reads + (self.reread_after is not None)
        self._check_can_deal(1 + later)
        card = card or self.stub[0]
        self.stub.remove(card)
        uid = self.deck.uid(card)
        reads = self._read(ReadPoint.DEALING_SLOT, uid, now)
        if reads:
            for n in range(1, self.extra_reads + 1):
                self._schedule(now + n * LINGER_INTERVAL, ReadPoint.DEALING_SLOT, uid)
            if self.reread_after is not None:
                self._schedule(now + self.reread_after, ReadPoint.DEALING_SLOT, uid)
            reads += later
        self.extra_reads, self.reread_after = 0, None
        dealt = Dealt(card, uid, reads, burn)
        self.dealt.append(dealt)
        self._report_status()
        return dealt

    def discard(self, card: Card, *, now: float) -> int:
        """Pass a card of the deck in play over the discard reader into the muck."""
        self._check_room(1)
        return self._read(ReadPoint.DISCARD_READER, self.deck.uid(card), now)

    def read_tag(self, uid: str, point: ReadPoint = ReadPoint.DEALING_SLOT, *, now: float) -> int:
        """A tag read at a read point as it is: a stray tag, another deck's card, a re-read."""
        self._check_room(1)
        return self._read(point, uid, now)

    def reread_next(self, after: float) -> None:
        """The next card dealt passes the slot again ``after`` seconds later on the shoe's clock.

        Past the host's repeat window that is a second read, not a repeat
        (docs/protocol.md 7): the controller sees the card twice.
        """
        if not 0 < after <= MAX_REREAD_AFTER:
            raise DeviceError(
                f"reread after {after} s: expected more than 0 and at most {MAX_REREAD_AFTER:g} s"
            )
        self.reread_after = after

    def read_again(self, card: Card | None = None, *, now: float) -> Card:
        """A card already dealt read at the slot again (a card dealt twice: rules-interpretation.md,
        Integrity)."""
        if not self.dealt:
            raise DeviceError("no card has been dealt from this stub yet")
        if card is None:
            card = self.dealt[0].card
        elif not any(d.card is card for d in self.dealt):
            raise DeviceError(f"{card.code} has not been dealt from this stub")
        self.read_tag(self.deck.uid(card), now=now)
        return card

    def read_other_deck(self, card: Card | None = None, *, now: float) -> Card:
        """A card of the deck not in play read at the slot (rules-interpretation.md, Integrity)."""
        if card is None:
            if not self.stub:
                raise DeviceError("the shoe is empty: name the other deck's card")
            card = self.stub[0]
        self.read_tag(self.other_deck.uid(card), now=now)
        return card
