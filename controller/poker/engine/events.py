"""The engine's outputs: structured events, frozen and JSON-serialisable.

Every event has a ``kind`` (its class's name in the journal) and fields of
plain types (str, int, bool, None, tuples of those and of the small records
below), so ``to_json`` prints it and the journal stores it as is. Cards are
given by their codes (``"As"``). ``controller.poker.announce`` renders any event as
the sentence a dealer hears.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any, ClassVar

# Where the next card goes (CardExpected.destination, CardDealt.destination).
BURN = "burn"
SEAT = "seat"
COMMUNITY = "community"


@dataclass(frozen=True, slots=True)
class Option:
    """One legal button for the seat to act, with the chips it puts in."""

    button: str
    amount: int
    #: What the button means now, in the dealer's words ("call 5", "complete to 5", "raise to
    #: 15": the level after "to", else the chips; docs/display.md, The table's words).
    meaning: str


@dataclass(frozen=True, slots=True)
class SeatAmount:
    """A seat and a number of chips."""

    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class OddChipAward:
    """Chips a pot could not divide evenly, the seat that got them and the rule that says so."""

    seat: int
    chips: int
    rule: str


@dataclass(frozen=True, slots=True)
class ShareResult:
    """One share of a pot (high or low): its chips and the winning seats."""

    share: str
    amount: int
    winners: tuple[int, ...]
    description: str


@dataclass(frozen=True, slots=True)
class PotResult:
    """One pot (the main pot or a side pot): its chips, who could win it, who did."""

    name: str
    amount: int
    rake: int
    eligible: tuple[int, ...]
    shares: tuple[ShareResult, ...]
    awards: tuple[SeatAmount, ...]
    odd_chips: tuple[OddChipAward, ...]
    #: An uncalled bet: chips only its owner put in, handed back, never raked.
    returned: bool = False


@dataclass(frozen=True, slots=True)
class ShownHand:
    """A hand at the showdown, for one share."""

    seat: int
    share: str
    cards: tuple[str, ...]
    description: str
    qualifies: bool


@dataclass(frozen=True, slots=True)
class Event:
    """Base of every output event."""

    kind: ClassVar[str] = "event"


@dataclass(frozen=True, slots=True)
class HandStarted(Event):
    """A new hand: who is dealt in, where the dealer sits, the antes taken."""

    kind: ClassVar[str] = "hand_started"
    hand: int
    game: str
    seats: tuple[int, ...]
    dealer: int
    antes: tuple[SeatAmount, ...]


@dataclass(frozen=True, slots=True)
class StreetStarted(Event):
    """A street begins; its cards follow."""

    kind: ClassVar[str] = "street_started"
    street: str
    number: int


@dataclass(frozen=True, slots=True)
class CardExpected(Event):
    """The card the shoe must deliver next and where it goes."""

    kind: ClassVar[str] = "card_expected"
    destination: str  # BURN, SEAT or COMMUNITY
    seat: int | None
    face: str | None  # "up" / "down" for a seat; None for a burn or the board


@dataclass(frozen=True, slots=True)
class CardDealt(Event):
    """A card read at the dealing slot went where the procedure expected it."""

    kind: ClassVar[str] = "card_dealt"
    card: str
    destination: str
    seat: int | None
    face: str | None


@dataclass(frozen=True, slots=True)
class CardMucked(Event):
    """A card of a folded hand (or of the finished hand) passed over the discard reader."""

    kind: ClassVar[str] = "card_mucked"
    card: str
    seat: int | None


@dataclass(frozen=True, slots=True)
class BlindPosted(Event):
    """A blind posted at the start of a button game's hand (14.10(c),(d); rules-interpretation.md,
    Forced bets)."""

    kind: ClassVar[str] = "blind_posted"
    seat: int
    blind: str  # "small" / "big"
    amount: int
    all_in: bool


@dataclass(frozen=True, slots=True)
class DrawExpected(Event):
    """A player's turn to draw: discards over the discard reader, then draw done."""

    kind: ClassVar[str] = "draw_expected"
    seat: int
    discards: tuple[str, ...]
    reason: str


@dataclass(frozen=True, slots=True)
class CardDiscarded(Event):
    """A card of the drawing player's hand read at the discard reader."""

    kind: ClassVar[str] = "card_discarded"
    card: str
    seat: int


@dataclass(frozen=True, slots=True)
class DrawDeclared(Event):
    """Draw done: the player's discards (none: stands pat); the replacements follow."""

    kind: ClassVar[str] = "draw_declared"
    seat: int
    discards: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DiscardsReshuffled(Event):
    """The stub is short: the discards of everyone but the drawing player are reshuffled
    (14.12A(f); rules-interpretation.md, Burns and draws)."""

    kind: ClassVar[str] = "discards_reshuffled"
    seat: int
    cards: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RoundStarted(Event):
    """A betting round opens: its bet size and the seat that must open it, and why."""

    kind: ClassVar[str] = "round_started"
    street: str
    bet: int
    opener: int
    reason: str
    forced: bool


@dataclass(frozen=True, slots=True)
class ActionRequired(Event):
    """A seat must act: why, what it owes, and the legal buttons with their amounts."""

    kind: ClassVar[str] = "action_required"
    seat: int
    reason: str
    to_call: int
    options: tuple[Option, ...]


@dataclass(frozen=True, slots=True)
class ActionTaken(Event):
    """A seat acted: the action in the dealer's words and the chips it put in."""

    kind: ClassVar[str] = "action_taken"
    seat: int
    #: The journaled word (brings in, completes, bets, raises, calls, checks, folds, ...); every
    #: surface says it with its amount in the table's words (announce.action_words).
    action: str
    amount: int
    round_total: int
    all_in: bool


@dataclass(frozen=True, slots=True)
class RoundCompleted(Event):
    """The betting round is over; ``skipped`` when fewer than two seats could bet."""

    kind: ClassVar[str] = "round_completed"
    street: str
    pot: int
    skipped: bool = False


@dataclass(frozen=True, slots=True)
class Showdown(Event):
    """The hands still in are shown and rated for every share."""

    kind: ClassVar[str] = "showdown"
    hands: tuple[ShownHand, ...]


@dataclass(frozen=True, slots=True)
class HandSettled(Event):
    """The settlement: every pot, the rake, every seat's net result; nets plus rake sum to zero."""

    kind: ClassVar[str] = "hand_settled"
    hand: int
    uncontested: bool
    pots: tuple[PotResult, ...]
    rake: int
    net: tuple[SeatAmount, ...]
    stacks: tuple[SeatAmount, ...]


@dataclass(frozen=True, slots=True)
class HandVoided(Event):
    """A misdeal voided the hand; every bet and ante is returned."""

    kind: ClassVar[str] = "hand_voided"
    hand: int
    returned: tuple[SeatAmount, ...]


@dataclass(frozen=True, slots=True)
class SeatsChanged(Event):
    """Between hands a player sat down, left or rebought: the seats and known stacks now."""

    kind: ClassVar[str] = "seats_changed"
    change: str  # sit, leave or rebuy
    seat: int
    chips: int
    seats: tuple[int, ...]
    stacks: tuple[SeatAmount, ...]


@dataclass(frozen=True, slots=True)
class Alarm(Event):
    """An integrity alarm: the read, what was expected instead, and why it holds the hand."""

    kind: ClassVar[str] = "alarm"
    read: str  # a card code, or "tag <uid>"
    point: str
    expected: str
    reason: str


@dataclass(frozen=True, slots=True)
class Refused(Event):
    """An input was refused; nothing changed."""

    kind: ClassVar[str] = "refused"
    input: str
    reason: str


@dataclass(frozen=True, slots=True)
class Undone(Event):
    """Audit: the dealer's last action was reverted."""

    kind: ClassVar[str] = "undone"
    input: str
    description: str


@dataclass(frozen=True, slots=True)
class NewHandExpected(Event):
    """The table waits for the dealer to start the next hand."""

    kind: ClassVar[str] = "new_hand_expected"
    hand: int


def to_dict(event: Event) -> dict[str, Any]:
    """The event as a plain dict, ``kind`` first."""
    return {"kind": event.kind, **dataclasses.asdict(event)}


def to_json(event: Event) -> str:
    """The event as one line of JSON."""
    return json.dumps(to_dict(event), separators=(",", ":"))
