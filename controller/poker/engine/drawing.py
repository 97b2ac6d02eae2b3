"""The drawing phase: all of 14.12A(f), as 14.12A(h) and (j) repeat it.

Every player still in draws in turn from the button's left: its discards pass
over the discard reader, it presses draw done (none passed: it stands pat), then
it is dealt as many new cards face down, the burn before the draw's first new
card, the discards of everyone but the drawing player reshuffled when the stub
runs short. ``Drawing`` owns the draw under way: who draws, the discards of the
drawing player, the replacements it is owed and the last reshuffle.
"""

from __future__ import annotations

from functools import cache
from typing import Final

from controller.poker.cards import DECK, Card
from controller.poker.engine.events import (
    BURN,
    SEAT,
    CardDiscarded,
    CardExpected,
    DiscardsReshuffled,
    DrawDeclared,
    DrawExpected,
    Event,
)
from controller.poker.engine.hand import HandState, Irregularity, describe_destination
from controller.poker.engine.tablesetup import HouseRules
from controller.poker.games.spec import Face, Street

_REASON: Final = "discards over the discard reader, then draw done (none: stands pat)"
_BURN: Final = CardExpected(BURN, None, None)


@cache
def _replacement(seat: int) -> CardExpected:
    return CardExpected(SEAT, seat, Face.DOWN.value)


def _cards(count: int) -> str:
    return f"{count} card{'s' if count > 1 else ''}"


class Drawing:
    """The draw under way (14.12A(f),(h),(j))."""

    __slots__ = (
        "_rules",
        "burned",
        "discards",
        "drawers",
        "draws",
        "pos",
        "queue",
        "queue_pos",
        "replacing",
        "reshuffled_for",
    )

    def __init__(self, rules: HouseRules) -> None:
        self._rules = rules
        self.draws = 0  # the draws begun this hand
        self.drawers: list[int] = []
        self.pos = 0
        self.discards: list[Card] = []
        self.replacing = False
        self.burned = False
        self.queue: list[CardExpected] = []
        self.queue_pos = 0
        # The seat whose short draw brought the last reshuffle: its own discards stay out.
        self.reshuffled_for: int | None = None

    def new_hand(self) -> None:
        self.draws = 0

    def start(self, hand: HandState) -> DrawExpected | None:
        """14.12A(f),(h),(j): every player still in draws in turn from the button's left."""
        self.draws += 1
        self.drawers = hand.live()
        self.pos = 0
        self.burned = False
        return self._next_drawer()

    @property
    def seat(self) -> int:
        """The seat drawing now."""
        return self.drawers[self.pos]

    def _next_drawer(self) -> DrawExpected | None:
        if self.pos >= len(self.drawers):
            return None  # everyone has drawn
        self.discards = []
        self.replacing = False
        self.reshuffled_for = None
        return DrawExpected(self.drawers[self.pos], (), _REASON)

    def folded(self, hand: HandState, seat: int) -> None:
        """A folded hand joins the discards a short stub reshuffles (docs/rules-interpretation.md,
        Burns and draws: the short stub)."""
        for card in hand.down[seat] + hand.up[seat]:
            hand.discarded[card.index] = seat

    def takes_discard(self, hand: HandState, card: Card) -> bool:
        """Whether a card over the discard reader is a discard of the player drawing now."""
        return (
            not self.replacing
            and hand.holder[card.index] == self.drawers[self.pos]
            and card.index not in hand.discarded
        )

    def discard(self, hand: HandState, card: Card, out: list[Event]) -> DrawExpected:
        """A card of the drawing player's hand over the discard reader: a discard (14.12A(f))."""
        seat = self.drawers[self.pos]
        cards = hand.down[seat] if card in hand.down[seat] else hand.up[seat]
        cards.remove(card)
        self.discards.append(card)
        hand.discarded[card.index] = seat
        out.append(CardDiscarded(card.code, seat))
        return DrawExpected(seat, tuple(c.code for c in self.discards), _REASON)

    def owed(self) -> int:
        """The new cards the drawing player is still owed (0 before its draw done)."""
        return len(self.queue) - self.queue_pos if self.replacing else 0

    def owed_reason(self) -> str:
        owed = self.owed()
        return (
            f"seat {self.seat} is still owed {owed} new card{'s' if owed > 1 else ''} "
            "(a replacement too few, 14.12A(f))"
        )

    def done(
        self, hand: HandState, street: Street, out: list[Event]
    ) -> CardExpected | DrawExpected | None:
        """Draw done: the replacements owed (after the burn, or a reshuffle), the next drawer,
        or None when the draw is over. Irregularity while replacements are still owed."""
        if self.replacing:
            # 14.12A(f): each discarded card is replaced; draw done before the last is too few.
            raise Irregularity(
                f"seat {self.seat} is still owed {_cards(self.owed())} "
                "(a replacement too few, 14.12A(f))"
            )
        draw = street.draw
        assert draw is not None
        seat = self.seat
        count = len(self.discards)
        out.append(DrawDeclared(seat, tuple(c.code for c in self.discards)))
        if not count:  # stands pat
            self.pos += 1
            return self._next_drawer()
        queue: list[CardExpected] = []
        if draw.burn and not self.burned and (self._rules.burn_before_each_draw or self.draws == 1):
            # 14.12A(f): burn before the first player of the draw receives any new card; before
            # each draw or only the first (rules-interpretation.md, Burns and draws; a house rule).
            queue.append(_BURN)
            self.burned = True
        queue.extend([_replacement(seat)] * count)
        stub = len(DECK) - len(hand.holder) + len(hand.reshuffled)
        if stub < len(queue) and draw.reshuffle_discards:
            # 14.12A(f): the stub is short; every discard but the ones the drawing player
            # just made is reshuffled (folded hands are discards too; docs/rules-interpretation.md).
            pool = set(hand.discarded) - hand.reshuffled - {c.index for c in self.discards}
            hand.reshuffled |= pool
            self.reshuffled_for = seat
            out.append(DiscardsReshuffled(seat, tuple(DECK[i].code for i in sorted(pool))))
        self.replacing = True
        self.queue = queue
        self.queue_pos = 0
        return queue[0]

    def card(
        self, hand: HandState, card: Card, out: list[Event]
    ) -> CardExpected | DrawExpected | None:
        """A card at the dealing slot during the draw: a replacement (or the burn); what is
        expected next, or None when the draw is over. Irregularity for a card not owed."""
        if not self.replacing:
            # 14.12A(f): one new card per discard, and only after draw done.
            raise Irregularity("a replacement too many, or a card dealt before draw done")
        expected = self.queue[self.queue_pos]
        drawing = self.reshuffled_for
        index = card.index
        if (
            drawing is not None
            and index not in hand.reshuffled
            and hand.discarded.get(index) == drawing
        ):
            # 14.12A(f): the drawing player's own discards are not reshuffled for it.
            raise Irregularity(
                f"the card is a discard of seat {drawing}, the player drawing, "
                "not among the reshuffled discards or the stub (14.12A(f))",
                "expected " + describe_destination(expected),
            )
        out.append(hand.take(card, expected))
        self.queue_pos += 1
        if self.queue_pos < len(self.queue):
            return self.queue[self.queue_pos]
        self.pos += 1  # the drawing player's replacements are all out
        return self._next_drawer()
