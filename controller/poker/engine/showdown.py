"""The showdown and the settlement: the hands rated, every pot divided, the stacks paid.

Each share of the showdown (high; Mambo's low) rates every hand still in
(14.13(h), 14.13A(i)-(l), 14.12A(l)); ``controller.poker.engine.pots`` builds the pots
and divides each on its own, odd chips included (rules-interpretation.md, Odd chips). A hand
every other player folded is settled without a showdown; a misdeal voids the
hand and every bet and ante goes back (rules-interpretation.md, Integrity).
"""

from __future__ import annotations

from controller.poker.engine.events import HandSettled, HandVoided, SeatAmount, ShownHand
from controller.poker.engine.events import Showdown as ShowdownEvent
from controller.poker.engine.hand import HandState
from controller.poker.engine.pots import settle_pots
from controller.poker.engine.tablesetup import Stakes
from controller.poker.games.spec import GameSpec, Rated
from controller.poker.hands import NO_QUALIFYING_LOW

#: Each share's rated hands, by share name then seat (None: the hand does not qualify).
Ratings = dict[str, dict[int, Rated | None]]


def showdown(hand: HandState, spec: GameSpec) -> tuple[ShowdownEvent, Ratings]:
    """Every hand still in, rated for each share, as the dealer calls it."""
    rated: Ratings = {}
    shown: list[ShownHand] = []
    for share in spec.showdown.shares:
        values: dict[int, Rated | None] = {}
        for seat in hand.live():
            value = share.evaluate(hand.down[seat] + hand.up[seat] + hand.community)
            values[seat] = value
            shown.append(
                ShownHand(
                    seat=seat,
                    share=share.name,
                    cards=tuple(c.code for c in value.cards) if value else (),
                    description=value.description if value else NO_QUALIFYING_LOW,
                    qualifies=value is not None,
                )
            )
        rated[share.name] = values
    return ShowdownEvent(tuple(shown)), rated


def settle(
    hand: HandState,
    number: int,
    stacks: dict[int, int | None],
    *,
    spec: GameSpec,
    stakes: Stakes,
    rated: Ratings | None,
) -> HandSettled:
    """Divide every pot (``rated`` None: no showdown, every other player folded) and pay
    the stacks."""
    pots, rake = settle_pots(
        committed=hand.committed,
        live=hand.live(),
        order=hand.order,
        stakes=stakes,
        showdown=spec.showdown,
        rated=rated or {},
    )
    won: dict[int, int] = dict.fromkeys(hand.order, 0)
    for pot in pots:
        for award in pot.awards:
            won[award.seat] += award.amount
    for seat in hand.order:
        stack = stacks[seat]
        if stack is not None:
            stacks[seat] = stack + won[seat]
    return HandSettled(
        hand=number,
        uncontested=rated is None,
        pots=tuple(pots),
        rake=rake,
        net=tuple(SeatAmount(s, won[s] - hand.committed[s]) for s in hand.order),
        stacks=tuple(SeatAmount(s, st) for s, st in stacks.items() if st is not None),
    )


def void(hand: HandState, number: int, stacks: dict[int, int | None]) -> HandVoided:
    """A misdeal: the hand is void and every bet and ante goes back (rules-interpretation.md,
    Integrity)."""
    for seat in hand.order:
        stack = stacks[seat]
        if stack is not None:
            stacks[seat] = stack + hand.committed[seat]
    return HandVoided(number, tuple(SeatAmount(s, hand.committed[s]) for s in hand.order))
