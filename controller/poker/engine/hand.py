"""The hand in play, as every phase sees it, and the table's snapshot.

``HandState`` is what the whole hand shares: who is dealt in, who folded or is
all-in, every seat's cards, every chip put in, and where each card of the deck
is (held, burned, discarded, reshuffled, mucked). Each phase module keeps its
own working state beside it (``dealing.Dealing``, ``drawing.Drawing``,
``betting.Betting``; the showdown's values live in ``showdown``) and reads and
changes this one; no phase module imports another. ``TableState`` is the
frozen snapshot a display or a test reads.
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.poker.cards import Card
from controller.poker.engine.events import (
    BURN,
    COMMUNITY,
    Alarm,
    CardDealt,
    CardExpected,
    CardMucked,
    Event,
)
from controller.poker.games.spec import Face

_UP = Face.UP.value
#: What an alarm says was expected at the discard reader while a hand is in play.
FOLDED_HANDS_ONLY = "only folded hands at the discard reader"


class Irregularity(Exception):
    """A read the procedure does not allow here: the table raises an alarm that holds the hand.

    ``expected`` is what the table expected instead, in words ("" lets the table say it).
    """

    def __init__(self, reason: str, expected: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.expected = expected


def describe_destination(expected: CardExpected) -> str:
    """Where an expected card goes, in words: ``a burn``, ``a card face up to seat 3``."""
    if expected.destination == BURN:
        return "a burn"
    if expected.destination == COMMUNITY:
        return "the community card"
    return f"a card face {expected.face} to seat {expected.seat}"


class HandState:
    """What every phase of the hand in play shares; the phases mutate it input by input."""

    __slots__ = (
        "all_in",
        "burns",
        "clockwise",
        "committed",
        "community",
        "discarded",
        "down",
        "folded",
        "holder",
        "mucked",
        "order",
        "reshuffled",
        "round_commit",
        "street",
        "up",
    )

    def __init__(self, order: tuple[int, ...]) -> None:
        self.order = order
        # Seat -> every other seat in clockwise order after it, itself last.
        self.clockwise: dict[int, tuple[int, ...]] = {
            seat: order[i + 1 :] + order[: i + 1] for i, seat in enumerate(order)
        }
        self.folded: set[int] = set()
        self.all_in: set[int] = set()
        self.down: dict[int, list[Card]] = {seat: [] for seat in order}
        self.up: dict[int, list[Card]] = {seat: [] for seat in order}
        self.community: list[Card] = []
        self.burns: list[Card] = []
        # Card index -> the seat holding it (None: burn or board): what this hand has seen.
        self.holder: dict[int, int | None] = {}
        self.mucked: set[int] = set()
        # Card index -> the seat that discarded it; cards reshuffled back into the stub.
        self.discarded: dict[int, int] = {}
        self.reshuffled: set[int] = set()
        self.committed: dict[int, int] = dict.fromkeys(order, 0)
        # Each seat's chips in the betting round under way (antes are not part of it).
        self.round_commit: dict[int, int] = dict.fromkeys(order, 0)
        self.street = 0

    def live(self) -> list[int]:
        return [seat for seat in self.order if seat not in self.folded]

    def able(self) -> list[int]:
        """Seats still in that can still bet (not all-in)."""
        return [s for s in self.order if s not in self.folded and s not in self.all_in]

    def pot(self) -> int:
        return sum(self.committed.values())

    def put(self, stacks: dict[int, int | None], seat: int, amount: int) -> int:
        """Move up to ``amount`` chips from the seat's stack to the pot; mark an all-in."""
        stack = stacks[seat]
        if stack is not None:
            if amount >= stack:
                amount = stack
                self.all_in.add(seat)
            stacks[seat] = stack - amount
        self.committed[seat] += amount
        self.round_commit[seat] += amount
        return amount

    def take(self, card: Card, expected: CardExpected) -> CardDealt:
        """A card out of the shoe to where ``expected`` says; Irregularity if this hand saw it.

        A card where a burn is expected is the burn (rules-interpretation.md, Burns and draws).
        """
        index = card.index
        reshuffled = self.reshuffled
        if reshuffled and index in reshuffled:  # 14.12A(f): reshuffled back into play
            reshuffled.discard(index)
            del self.discarded[index]
        elif index in self.holder:
            held = self.holder[index]
            where = "a burn or the board" if held is None else f"seat {held}"
            # A reason never names the card: the alarm's read does, which the journal keeps and
            # the table is not told (announce.hidden_cards: its twin may be a hole card).
            raise Irregularity(
                f"the card was already seen this hand ({where})",
                "expected " + describe_destination(expected),
            )
        kind, seat, face = expected.destination, expected.seat, expected.face
        self.holder[index] = seat
        if seat is not None:
            (self.up if face == _UP else self.down)[seat].append(card)
        elif kind == BURN:
            self.burns.append(card)
        else:
            self.community.append(card)
        return CardDealt(card.code, kind, seat, face)

    def muck(self, card: Card, in_play: bool) -> CardMucked:
        """A card over the discard reader into the muck: a discard, a folded or finished hand's.

        Irregularity when it was not dealt this hand, or (``in_play``: the hand is under way)
        it belongs to a seat still in.
        """
        index = card.index
        if index not in self.holder:
            raise Irregularity(
                "the card was not dealt this hand",
                "only cards dealt this hand at the discard reader",
            )
        if index in self.discarded:  # a discard passed over the reader again: muck
            return CardMucked(card.code, self.discarded[index])
        holder = self.holder[index]
        if in_play and holder is not None and holder not in self.folded:
            raise Irregularity(
                f"the card belongs to seat {holder}, still in the hand",
                FOLDED_HANDS_ONLY,
            )
        self.mucked.add(index)
        return CardMucked(card.code, holder)


@dataclass(frozen=True, slots=True)
class SeatState:
    """One seat in the table's snapshot."""

    seat: int
    stack: int | None
    down: tuple[str, ...]
    up: tuple[str, ...]
    committed: int
    folded: bool
    all_in: bool
    #: Dealt into the hand under way or just ended (its ``HandStarted.seats``), whether or
    #: not a card has reached it yet; False between hands before the first, and for a seat
    #: that sits this hand out (no chips).
    dealt_in: bool


@dataclass(frozen=True, slots=True)
class TableState:
    """A snapshot of the table for displays and tests."""

    game: str
    phase: str
    hand: int
    street: str | None
    dealer: int
    pot: int
    community: tuple[str, ...]
    seats: tuple[SeatState, ...]
    pending: Event
    alarm: Alarm | None
