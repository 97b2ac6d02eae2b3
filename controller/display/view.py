"""What the dealer's screen shows: one immutable snapshot of the table, and nothing else.

The display renders a :class:`TableView`; it never reads the engine. An adapter
(written against the engine's state) builds a fresh ``TableView`` after every
input and hands it to the display, which redraws only the parts that changed.

The screen beside the dealer shows only what the table shows (docs/display.md, What the table sees):
up-cards and community cards by their faces, hole cards as backs. The controller knows every card by
its tag (rules-interpretation.md, Integrity); the screen must not show the hidden ones. A face-down
card is therefore :data:`FACE_DOWN` in the view, never a ``Card``, so a hole card cannot leak onto
the screen by a rendering mistake.

Everything here is pure: frozen dataclasses, no I/O, no Textual. Constructors
check their input and raise :class:`ViewError` naming the field and what was
expected, so an adapter bug shows up where it is made, not as a garbled screen.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, StrEnum
from typing import Final

from controller.poker.cards import Card
from controller.poker.engine.tablesetup import HouseRules, ShortAllIn, Stakes
from controller.poker.games.spec import ForcedBet, GameSpec
from controller.poker.inputs import Button

#: The most seats any of our games deals to: Mambo stud's 11 (14.13A(b)).
MAX_SEATS: Final = 11
#: Fewer than two seats is no game.
MIN_SEATS: Final = 2


class ViewError(ValueError):
    """A view built with a value the screen cannot show; the message names the field."""


class FaceDown(Enum):
    """A card the table shows by its back (a hole card): the screen never knows its face."""

    CARD = "face down"


#: A face-down card, drawn as a card back.
FACE_DOWN: Final = FaceDown.CARD

#: A card as the table shows it: its face if it is up, else its back.
ShownCard = Card | FaceDown


class SeatStatus(StrEnum):
    """Where a seat stands in the hand."""

    #: In the hand and able to act.
    ACTIVE = "active"
    #: Folded: out of this hand.
    FOLDED = "folded"
    #: All its chips are in: in the hand, no more decisions.
    ALL_IN = "all-in"
    #: A player at the table who is not dealt in this hand.
    SITTING_OUT = "sitting out"


class Destination(StrEnum):
    """Where the next card the shoe deals must go, as the procedure says."""

    FACE_DOWN = "face down"
    FACE_UP = "face up"
    BURN = "burn"
    COMMUNITY = "community"
    #: A draw replacement for a seat's discard (14.12A(f)).
    REPLACEMENT = "replacement"
    #: The shoe expects the seat's discards over the discard reader, not a deal.
    DISCARDS = "discards"
    #: No card is expected now (betting, showdown, between hands).
    NONE = "none"


#: Destinations that name a seat.
SEAT_DESTINATIONS: Final = frozenset(
    {Destination.FACE_DOWN, Destination.FACE_UP, Destination.REPLACEMENT, Destination.DISCARDS}
)


class Severity(StrEnum):
    """How loudly an alarm sounds."""

    #: The hand is held until the dealer resolves it (rules-interpretation.md, Integrity).
    ALARM = "alarm"
    #: Something the dealer must know; play may go on.
    WARNING = "warning"


class DeviceState(StrEnum):
    """Whether a table device talks to the controller; any state but connected pauses the
    table."""

    CONNECTED = "connected"
    LOST = "lost"
    #: The controller refused it (wrong serial or protocol version): only a restart of the
    #: controller, after the fix, hears it again.
    REFUSED = "refused"
    #: It reports a fault that stops the table (the shoe's reader failed, a card jammed).
    FAULT = "fault"


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat as the table shows it.

    ``stack`` is None when the controller does not know the stack (no chip
    tracking at this table); ``bet`` is the chips in front of the seat this
    betting round, not yet gathered into the pot.
    """

    number: int
    player: str = ""
    stack: int | None = None
    bet: int = 0
    cards: tuple[ShownCard, ...] = ()
    status: SeatStatus = SeatStatus.ACTIVE
    #: The dealer button (triple draw, 14.12A(c)) or, in stud, the dealer's marker.
    button: bool = False

    def __post_init__(self) -> None:
        if not 1 <= self.number <= MAX_SEATS:
            raise ViewError(f"seat number {self.number}: expected 1 to {MAX_SEATS}")
        if self.stack is not None and self.stack < 0:
            raise ViewError(f"seat {self.number} stack {self.stack}: expected 0 or more chips")
        if self.bet < 0:
            raise ViewError(f"seat {self.number} bet {self.bet}: expected 0 or more chips")
        for card in self.cards:
            if not isinstance(card, Card | FaceDown):
                raise ViewError(f"seat {self.number} card {card!r}: expected a Card or FACE_DOWN")

    @property
    def label(self) -> str:
        """``Seat 3 · Alice``, or ``Seat 3`` for a seat without a name."""
        return f"Seat {self.number} · {self.player}" if self.player else f"Seat {self.number}"

    @property
    def in_hand(self) -> bool:
        """Still contesting the pot."""
        return self.status in (SeatStatus.ACTIVE, SeatStatus.ALL_IN)


@dataclass(frozen=True, slots=True)
class PotView:
    """A pot and the seats that can win it; the main pot first, then side pots in order."""

    name: str
    amount: int
    eligible: tuple[int, ...]

    def __post_init__(self) -> None:
        if self.amount < 0:
            raise ViewError(f"{self.name} amount {self.amount}: expected 0 or more chips")


@dataclass(frozen=True, slots=True)
class NextCard:
    """The next card the procedure expects from the shoe, and where it goes.

    ``seat`` is set exactly for the destinations that name one. ``note`` says
    where in the deal the table is ("round 2 of 2, 3 of 5 seats", "2 of 3
    replacements") and may be empty.
    """

    destination: Destination = Destination.NONE
    seat: int | None = None
    note: str = ""

    def __post_init__(self) -> None:
        names_seat = self.destination in SEAT_DESTINATIONS
        if names_seat and self.seat is None:
            raise ViewError(f"next card {self.destination.value}: expected the seat it goes to")
        if not names_seat and self.seat is not None:
            raise ViewError(
                f"next card {self.destination.value} to seat {self.seat}: "
                "only a face-down, face-up, replacement or discards card names a seat"
            )

    @property
    def sentence(self) -> str:
        """Where the card goes, as the dealer reads it at a glance: ``Seat 4, face up``."""
        return _NEXT_CARD_SENTENCES[self.destination].format(seat=self.seat)


_NEXT_CARD_SENTENCES: Final[dict[Destination, str]] = {
    Destination.FACE_DOWN: "Seat {seat}, face down",
    Destination.FACE_UP: "Seat {seat}, face up",
    Destination.BURN: "Burn card",
    Destination.COMMUNITY: "Community card, face up",
    Destination.REPLACEMENT: "Replacement for seat {seat}",
    Destination.DISCARDS: "Seat {seat}'s discards over the discard reader",
    Destination.NONE: "No card expected",
}

#: Nothing is expected from the shoe.
NO_CARD: Final = NextCard()


@dataclass(frozen=True, slots=True)
class ActionOption:
    """One thing the seat to act may do: the panel button and what it means now."""

    button: Button
    #: The option in the table's words: "fold", "call", "complete to", "raise to".
    action: str
    #: The number said after the words (docs/display.md, The table's words): the level the
    #: seat's bet comes to after "to" (``raise to 15``), else the chips it puts in
    #: (``call 8``); None when it puts none (fold, check).
    amount: int | None = None

    @property
    def text(self) -> str:
        """``call 5``, ``raise to 10``, ``fold``."""
        return self.action if self.amount is None else f"{self.action} {self.amount}"


@dataclass(frozen=True, slots=True)
class ActionPrompt:
    """The seat that must act, why it is that seat, and its legal options."""

    seat: int
    #: Why this seat acts now, with the rule: "brings in: lowest up-card 2 of clubs (14.13A(d))".
    reason: str
    options: tuple[ActionOption, ...]
    #: Chips the seat must put in to stay in (0 when it may check).
    to_call: int = 0

    def __post_init__(self) -> None:
        if not self.options:
            raise ViewError(f"seat {self.seat} to act: expected at least one legal option")


@dataclass(frozen=True, slots=True)
class AlarmView:
    """Something the dealer must not miss: what happened and what to do about it."""

    severity: Severity
    what: str
    todo: str
    #: The rule behind it, e.g. "rules-interpretation.md, Integrity"; may be empty.
    rule: str = ""


@dataclass(frozen=True, slots=True)
class DeviceView:
    """A table device (the shoe, the panel) and whether the controller hears it."""

    name: str
    state: DeviceState = DeviceState.CONNECTED
    #: What the dealer reads while the device pauses the table; see :func:`device_lost`.
    message: str = ""

    @property
    def pauses(self) -> bool:
        """The table is paused by this device (lost, refused, or in a fault)."""
        return self.state is not DeviceState.CONNECTED


def posted_stakes(stakes: Stakes, forced_bet: ForcedBet) -> str:
    """The stakes as the table posts them (N.J.A.C. 13:69F-8.3), for the game line:
    ``Limit 5/10 · ante 1 · bring-in 2`` in stud, ``Limit 10/20 · blinds 5/10`` in triple draw.

    The ante is said when there is one; the bring-in is the one the engine asks for.
    """
    parts = [f"Limit {stakes.small_bet:,}/{stakes.big_bet:,}"]
    if stakes.ante:
        parts.append(f"ante {stakes.ante:,}")
    if forced_bet is ForcedBet.BLINDS:
        parts.append(f"blinds {stakes.small_blind:,}/{stakes.big_blind:,}")
    else:
        parts.append(f"bring-in {stakes.forced_bring_in:,}")
    return " · ".join(parts)


def posted_rules(rules: HouseRules, spec: GameSpec) -> str:
    """The house rules the table posts beside its stakes (13:69F-8.3; rules-interpretation.md, House
    rules): the short all-in rule always (``half-bet all-in``), then each rule the game applies that
    is posted otherwise than its default, in a few words."""
    parts = ["half-bet all-in" if rules.short_all_in is ShortAllIn.HALF_BET else "full-bet all-in"]
    inert = {name for name, _ in rules.inert_in(spec)}
    defaults = HouseRules()
    for name, words in _RULE_WORDS.items():
        if getattr(rules, name) != getattr(defaults, name) and name not in inert:
            parts.append(words)
    return " · ".join(parts)


#: Each house rule posted otherwise than its default, as the game line says it.
_RULE_WORDS: Final = {
    "cap_lifts_heads_up": "no cap heads-up",
    "opener_must_bet": "opener may check",
    "bring_in_has_option": "bring-in has option",
    "burn_before_each_draw": "burn before the first draw only",
}


def device_lost(name: str) -> DeviceView:
    """The standard view of a lost device: the table pauses and resumes where it stopped."""
    return DeviceView(
        name,
        DeviceState.LOST,
        f"Table paused: {name} lost. Reconnect the {name}; the hand resumes where it stopped.",
    )


@dataclass(frozen=True, slots=True)
class ShownHand:
    """A hand turned up at the showdown, with what it makes."""

    seat: int
    cards: tuple[Card, ...]
    #: The high hand (or the only hand) as the dealer calls it: "pair of queens".
    high: str
    #: The low hand, "6-4-2 low", "no low"; None in a game without a low half.
    low: str | None = None


@dataclass(frozen=True, slots=True)
class Award:
    """Chips from one pot to one seat, and why."""

    pot: str
    seat: int
    amount: int
    #: "high", "low", "high, split 2 ways", "whole pot (no qualifying low)", ...
    share: str

    def __post_init__(self) -> None:
        if self.amount < 0:
            raise ViewError(f"award of {self.pot} to seat {self.seat}: amount {self.amount} < 0")


@dataclass(frozen=True, slots=True)
class OddChip:
    """A chip that could not be divided, where it went and by which rule."""

    pot: str
    seat: int
    amount: int
    #: The rule and its reading: "14.13A(j)1: the excess goes to the best high hand".
    rule: str


@dataclass(frozen=True, slots=True)
class ShowdownView:
    """The last showdown: the hands, and how each pot was divided."""

    hands: tuple[ShownHand, ...]
    awards: tuple[Award, ...]
    odd_chips: tuple[OddChip, ...] = ()
    rake: int = 0

    def winners(self) -> tuple[int, ...]:
        """The seats that won chips, in seat order."""
        return tuple(sorted({award.seat for award in self.awards if award.amount > 0}))

    def won_by(self, seat: int) -> int:
        """Total chips the seat won, odd chips included (they are part of its award)."""
        return sum(award.amount for award in self.awards if award.seat == seat)


@dataclass(frozen=True, slots=True)
class TableView:
    """Everything the dealer's screen shows at one moment."""

    game: str
    table_id: str
    seats: tuple[SeatView, ...]
    #: None between hands before the first hand of the session.
    hand_number: int | None = None
    #: "3rd street", "First draw", "Showdown", "Between hands".
    street: str = ""
    #: The posted stakes in a line (:func:`posted_stakes`): "Limit 5/10 · ante 1 · bring-in 2".
    stakes: str = ""
    #: The posted house rules in a line (:func:`posted_rules`): "half-bet all-in".
    rules: str = ""
    pots: tuple[PotView, ...] = ()
    community: tuple[Card, ...] = ()
    next_card: NextCard = NO_CARD
    to_act: ActionPrompt | None = None
    alarms: tuple[AlarmView, ...] = ()
    devices: tuple[DeviceView, ...] = (DeviceView("shoe"), DeviceView("panel"))
    showdown: ShowdownView | None = None
    #: What the dealer must do when no seat acts and no card is due: "Shuffle and cut,
    #: then press NEW HAND", "Pass seat 4's discards over the discard reader, then DRAW DONE".
    dealer_prompt: str = ""
    #: Recent announcements, oldest first: the sentences a dealer hears.
    log: tuple[str, ...] = ()
    #: A hand is under way (dealing, betting, drawing): quitting asks to confirm.
    hand_in_progress: bool = False
    #: The deck in play (rules-interpretation.md, Shuffle, cut and decks); "" before the first hand.
    deck: str = ""

    def __post_init__(self) -> None:
        count = len(self.seats)
        if not MIN_SEATS <= count <= MAX_SEATS:
            raise ViewError(f"{count} seats: expected {MIN_SEATS} to {MAX_SEATS}")
        numbers = [seat.number for seat in self.seats]
        if len(set(numbers)) != count:
            raise ViewError(f"seats {numbers}: expected each seat number once")
        if numbers != sorted(numbers):
            raise ViewError(f"seats {numbers}: expected seat order, 1 first")
        known = set(numbers)
        if self.to_act is not None and self.to_act.seat not in known:
            raise ViewError(f"seat to act {self.to_act.seat}: not one of the seats {numbers}")
        if self.next_card.seat is not None and self.next_card.seat not in known:
            raise ViewError(f"next card to seat {self.next_card.seat}: not one of seats {numbers}")
        for pot in self.pots:
            stray = set(pot.eligible) - known
            if stray:
                raise ViewError(f"{pot.name} eligible seats {sorted(stray)}: not at this table")

    def seat(self, number: int) -> SeatView:
        """The seat with this number; KeyError names it if there is none."""
        for seat in self.seats:
            if seat.number == number:
                return seat
        raise KeyError(f"no seat {number} at table {self.table_id}")

    @property
    def pot_total(self) -> int:
        """All the chips in the pots (not the bets still in front of the seats)."""
        return sum(pot.amount for pot in self.pots)

    @property
    def pausing_devices(self) -> tuple[DeviceView, ...]:
        """The devices that pause the table (not heard, refused, or in a fault)."""
        return tuple(device for device in self.devices if device.pauses)
