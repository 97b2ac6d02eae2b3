"""The dealing phase: a street's burn and cards, card by card, from the dealer's left.

``Dealing`` owns the street's queue of expected cards; each card read at the
dealing slot goes where the queue says (``HandState.take``). Rules: 14.13(c),(f),(g),
14.13A(c),(f),(h): the burn before every later street, cards only to players
still in, dealt from the first player left of the dealer, the community card
after the players' cards.
"""

from __future__ import annotations

from functools import cache
from typing import Final

from controller.poker.cards import Card
from controller.poker.engine.events import BURN, COMMUNITY, SEAT, CardExpected, Event
from controller.poker.engine.hand import HandState
from controller.poker.games.spec import Face, Street

BURN_EXPECTED: Final = CardExpected(BURN, None, None)
_COMMUNITY_EXPECTED: Final = CardExpected(COMMUNITY, None, Face.UP.value)


@cache
def seat_expected(seat: int, face: str) -> CardExpected:
    """A card expected face ``face`` at ``seat`` (shared: the same few recur every hand)."""
    return CardExpected(SEAT, seat, face)


class Dealing:
    """The cards a street still expects."""

    __slots__ = ("pos", "queue")

    def __init__(self) -> None:
        self.queue: list[CardExpected] = []
        self.pos = 0

    def start(self, hand: HandState, street: Street) -> CardExpected:
        """The street's queue of cards; the first expected."""
        queue: list[CardExpected] = []
        if street.burn:  # 14.13(f),(g), 14.13A(f),(h): burn before every later street
            queue.append(BURN_EXPECTED)
        live = hand.live()
        for face in street.deal:  # 14.13(f),(g): only to players still in
            value = face.value
            queue.extend([seat_expected(seat, value) for seat in live])
        queue.extend(_COMMUNITY_EXPECTED for _ in range(street.community))
        self.queue = queue
        self.pos = 0
        return queue[0]

    def card(self, hand: HandState, card: Card, out: list[Event]) -> CardExpected | None:
        """A card at the dealing slot: dealt where expected; the next card expected, or None
        when the street is out. Irregularity (from ``HandState.take``) for a card seen before.
        """
        out.append(hand.take(card, self.queue[self.pos]))
        self.pos += 1
        return self.queue[self.pos] if self.pos < len(self.queue) else None
