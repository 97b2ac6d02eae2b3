"""The virtual shoe and panel: device state and the sentences it would write, nothing else.

A device core speaks docs/protocol.md from the device's side, built on the
drivers' codec (``drivers.shoe.device_codec``, ``drivers.panel.device_codec``)
and their go-back-N sender (``drivers.session.DeviceSender``). It is pure:
``receive(data, now)`` takes what the host wrote, ``poll(now)`` returns the
sentences to write now, each one whole (so faults can drop or garble one),
and ``next_deadline()`` says when ``poll`` next has work. Time is always
passed in; transports (simulator.transports) supply the bytes and the clock.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final

from controller.cards import Card
from controller.inputs import Button, ReadPoint
from drivers import panel as panel_protocol
from drivers import shoe as shoe_protocol
from drivers.panel import Light, Press, Text
from drivers.sentences import (
    PROTOCOL_VERSION,
    Ack,
    Codec,
    DecodeError,
    Feed,
    Hello,
    Lid,
    Query,
    Reader,
    Reject,
    Sentence,
    Welcome,
)
from drivers.session import WINDOW, DeviceSender
from drivers.shoe import DEVICE_CLOCK_MODULUS, CardSeen, ShoeStatus
from simulator.decks import TagDeck, cut, shuffled

_TOKEN: Final = re.compile(r"[A-Za-z0-9._-]{1,16}")

#: docs/protocol.md section 10: heartbeat and hello repeat once a second, resend after 200 ms.
HEARTBEAT_INTERVAL: Final = 1.0
HELLO_INTERVAL: Final = 1.0
RESEND_AFTER: Final = 0.2
#: docs/protocol.md section 5: the device holds at least 256 waiting sentences.
STORE: Final = 256
#: How often ``next_deadline`` asks to be polled while sentences wait for an ack.
RESEND_POLL: Final = 0.02
#: How soon an RFID reader reads a tag again while it lingers in the field: well inside
#: the host's repeat window (docs/protocol.md 7, 500 ms by default).
LINGER_INTERVAL: Final = 0.05
#: The longest a ``reread`` may wait: the longest a technician's fault may hold anything.
MAX_REREAD_AFTER: Final = 60.0


class DeviceError(ValueError):
    """A technician's command the device cannot carry out; the message says why."""


@dataclass(frozen=True, slots=True)
class Identity:
    """What a device says in its hello (docs/protocol.md 3.1 ``HEL``)."""

    model: str
    serial: str
    firmware: str
    protocol: int = PROTOCOL_VERSION

    def __post_init__(self) -> None:
        # docs/protocol.md 3.1 HEL: model, serial and firmware are tokens; protocol 1..999.
        for name in ("model", "serial", "firmware"):
            value = getattr(self, name)
            if not _TOKEN.fullmatch(value):
                raise ValueError(
                    f"{name} {value!r}: expected 1 to 16 letters, digits, '.', '_' or '-'"
                )
        if not 1 <= self.protocol <= 999:
            raise ValueError(f"protocol {self.protocol}: expected a version from 1 to 999")


SHOE_IDENTITY: Final = Identity("RS-200", "SHOE0001", "2.1.0")
PANEL_IDENTITY: Final = Identity("DP-8", "PANEL0001", "1.4.2")


@dataclass(frozen=True, slots=True)
class Timing:
    """The device's timers (docs/protocol.md section 10); tests shorten them."""

    heartbeat: float = HEARTBEAT_INTERVAL
    hello: float = HELLO_INTERVAL
    resend_after: float = RESEND_AFTER
    window: int = WINDOW
    store: int = STORE


@dataclass(slots=True)
class LinkState:
    """What the device knows of the host, for the technician's ``state``."""

    welcomed: bool = False
    refusal: str = ""
    queries: int = 0
    welcomes: int = 0
    acks: int = 0
    errors: list[str] = field(default_factory=list)


class DeviceCore:
    """One device's side of the link: hello, heartbeat, numbering, resend; no I/O."""

    name: str = "device"

    def __init__(
        self,
        identity: Identity,
        codec: Codec,
        boot: str,
        now: float,
        timing: Timing,
        *,
        first_seq: int = 0,
    ) -> None:
        self.identity = identity
        self._first_seq = first_seq
        self.timing = timing
        self._codec = codec
        self._outbox: list[bytes] = []
        self._next_hello: float | None = None
        self.link = LinkState()
        self._power_up(boot, now)

    # --- power and link -------------------------------------------------------------------

    def _power_up(self, boot: str, now: float) -> None:
        self.boot = boot
        self.sender = DeviceSender(
            boot, self._first_seq, window=self.timing.window, resend_after=self.timing.resend_after
        )
        self.link.welcomed = False
        self.link.refusal = ""
        self._next_heartbeat = now + self.timing.heartbeat
        self._say_hello(now)

    def power_cycle(self, boot: str, now: float) -> None:
        """Switch off and on: a new boot id; what was not acknowledged is lost (section 4)."""
        self._outbox.clear()
        self._power_up(boot, now)

    def link_lost(self) -> None:
        """The USB link went away: wait for the host's query and welcome before sending on."""
        self.sender.on_query()
        self.link.welcomed = False
        self._next_hello = None

    def link_back(self, now: float) -> None:
        """The USB link came back: introduce ourselves again (section 4, 1)."""
        self._say_hello(now)

    def _say_hello(self, now: float) -> None:
        self._outbox.append(self._encode(self._hello()))
        self._next_hello = now + self.timing.hello

    def _hello(self) -> Hello:
        ident = self.identity
        return Hello(
            self.sender.oldest, ident.model, ident.serial, ident.firmware, ident.protocol, self.boot
        )

    def _encode(self, sentence: Sentence) -> bytes:
        return self._codec.encode(sentence)

    # --- input ----------------------------------------------------------------------------

    def receive(self, data: bytes, now: float) -> None:
        """Take what the host wrote; undecodable input is counted and ignored (section 3.4)."""
        for item in self._codec.feed(data):
            if isinstance(item, DecodeError):
                self.link.errors = [*self.link.errors[-9:], str(item)]
                continue
            self._obey(item, now)

    def _obey(self, sentence: Sentence, now: float) -> None:
        if isinstance(sentence, Query):
            self.link.queries += 1
            self.link_lost()  # the host (re)opened the port: section 4, 1 and 5
            self._say_hello(now)
        elif isinstance(sentence, Welcome):
            self.link.welcomes += 1
            self.link.welcomed = True
            self.link.refusal = ""
            self._next_hello = None
            self.sender.on_welcome()
            self._welcomed()
        elif isinstance(sentence, Reject):
            # Section 4, 5: send nothing sequenced, show why, go on answering QRY.
            self.link.welcomed = False
            self.link.refusal = f"refused by the host: {sentence.reason} {sentence.expected}"
            self._next_hello = None
            self.sender.on_query()
        elif isinstance(sentence, Ack):
            self.link.acks += 1
            self.sender.on_ack(sentence)
            self._acknowledged()
        else:
            self._obey_device(sentence)

    def _obey_device(self, sentence: Sentence) -> None:
        """A sentence only this kind of device understands (the panel's LIT and TXT).

        Each device's codec decodes only its own catalogue, so anything else
        never gets here: it is a decode error, counted and shown by ``state``.
        """

    def _acknowledged(self) -> None:
        """Room was made in the store."""

    def _welcomed(self) -> None:
        """The host has just welcomed the device."""

    # --- output ---------------------------------------------------------------------------

    def submit(self, sentence: CardSeen | ShoeStatus | Press) -> None:
        """Number a sequenced sentence and keep it until the host acknowledges it."""
        self.sender.submit(sentence)

    @property
    def room(self) -> int:
        """How many more sentences the device's store can hold."""
        return self.timing.store - self.sender.backlog

    def poll(self, now: float) -> list[bytes]:
        """The sentences to write now, whole, in order."""
        out, self._outbox = self._outbox, []
        if self._next_hello is not None and now >= self._next_hello:
            out.append(self._encode(self._hello()))
            self._next_hello = now + self.timing.hello
        out.extend(self._encode(s) for s in self.sender.due(now))  # type: ignore[arg-type]  # Sequenced is a Sentence
        if now >= self._next_heartbeat:
            out.append(self._encode(self.sender.heartbeat()))
            self._next_heartbeat += self.timing.heartbeat
            if self._next_heartbeat <= now:  # polled late: one beat now, the next a period on
                self._next_heartbeat = now + self.timing.heartbeat
        return out

    def next_deadline(self) -> float:
        """When ``poll`` next has something to write (``-inf``: now)."""
        if self._outbox:
            return -math.inf
        deadline = self._next_heartbeat
        if self._next_hello is not None:
            deadline = min(deadline, self._next_hello)
        return deadline

    @property
    def busy(self) -> bool:
        """Whether sentences are waiting for the host (poll often to resend in time)."""
        return self.sender.backlog > 0 and self.sender.welcomed


# --- The shoe -----------------------------------------------------------------------------


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
                self.submit(CardSeen(0, read.point, read.uid, self.clock_ms(read.at)))

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
        """The deck being shuffled while the other is in play (NOTES.md, Shuffle, cut and decks)."""
        return self.decks[1 - self.active]

    def use_deck(self, name: str) -> None:
        """Put deck ``name`` in play (its cards are loaded with ``load``)."""
        names = [deck.name for deck in self.decks]
        if name not in names:
            raise DeviceError(f"deck {name!r}: expected one of {' '.join(names)}")
        self.active = names.index(name)

    def load(self, cards: Sequence[Card]) -> None:
        """Load the stub, top card first: a shuffled deck (NOTES.md, Shuffle, cut and decks)."""
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
        self.stub = cut(self.stub, count)  # NOTES.md, Shuffle, cut and decks: >= 10 cards

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
        self.submit(CardSeen(0, point, uid, self.clock_ms(now)))
        return 1

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
        """A card already dealt read at the slot again (a card dealt twice: NOTES.md, Integrity)."""
        if not self.dealt:
            raise DeviceError("no card has been dealt from this stub yet")
        if card is None:
            card = self.dealt[0].card
        elif not any(d.card is card for d in self.dealt):
            raise DeviceError(f"{card.code} has not been dealt from this stub")
        self.read_tag(self.deck.uid(card), now=now)
        return card

    def read_other_deck(self, card: Card | None = None, *, now: float) -> Card:
        """A card of the deck not in play read at the slot (NOTES.md, Integrity)."""
        if card is None:
            if not self.stub:
                raise DeviceError("the shoe is empty: name the other deck's card")
            card = self.stub[0]
        self.read_tag(self.other_deck.uid(card), now=now)
        return card


# --- The panel ----------------------------------------------------------------------------


class VirtualPanel(DeviceCore):
    """The dealer's panel: one button per ``Button``, a light per seat, a line of text."""

    name = "panel"

    def __init__(
        self,
        boot: str,
        now: float,
        *,
        identity: Identity = PANEL_IDENTITY,
        timing: Timing | None = None,
        on_display: Callable[[int, str], None] | None = None,
        first_seq: int = 0,
    ) -> None:
        self.light = 0
        self.text = ""
        self.lights_received = 0
        self.texts_received = 0
        self._on_display = on_display
        codec = panel_protocol.device_codec()
        super().__init__(identity, codec, boot, now, timing or Timing(), first_seq=first_seq)

    def _power_up(self, boot: str, now: float) -> None:
        super()._power_up(boot, now)
        self.light, self.text = 0, ""  # a panel powers up dark; the host repaints it

    def press(self, button: Button) -> None:
        """The dealer presses a button (docs/protocol.md 3.2 ``BTN``)."""
        if self.room < 1:
            raise DeviceError("the panel's store is full: wait for the host to acknowledge")
        self.submit(Press(0, button))

    def _obey_device(self, sentence: Sentence) -> None:
        # Section 3.4: both set state and may be repeated any number of times.
        if isinstance(sentence, Light):
            self.lights_received += 1
            changed = sentence.seat != self.light
            self.light = sentence.seat
        elif isinstance(sentence, Text):
            self.texts_received += 1
            changed = sentence.text != self.text
            self.text = sentence.text
        else:
            return
        if changed and self._on_display is not None:
            self._on_display(self.light, self.text)
