"""Who opens a betting round: the opener rules the procedures name, as pure functions.

Each takes the live seats in order from the dealer's left (``SeatView``) and the
community cards, and returns the seat that must act first with the reason in
the dealer's words. Suits break ties only where the rule says so (rules-interpretation.md,
Cards); elsewhere the first seat from the dealer's left wins the tie.
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.poker.cards import Card
from controller.poker.games.spec import SeatView


def _door_card(view: SeatView) -> Card:
    if not view.up_cards:
        raise ValueError(f"seat {view.seat} shows no up-card; an up-card opener needs one")
    return view.up_cards[-1]


def lowest_up_card(seats: Sequence[SeatView], community: Sequence[Card]) -> tuple[int, str]:
    """The forced bet: lowest up-card by rank, ace high, ties by suit, clubs lowest.

    14.13(d) (suits per 14.9(d), rules-interpretation.md, Forced bets) and 14.13A(d).
    """
    del community  # the forced bet looks at up-cards only
    view = min(seats, key=lambda v: (_door_card(v).rank, _door_card(v).suit))
    return view.seat, f"lowest up-card {_door_card(view).spoken}"


def highest_up_card(seats: Sequence[SeatView], community: Sequence[Card]) -> tuple[int, str]:
    """Mambo's second round: highest up-card by rank, ties by suit, spades highest (14.13A(f))."""
    del community  # the second round looks at up-cards only
    view = max(seats, key=lambda v: (_door_card(v).rank, _door_card(v).suit))
    return view.seat, f"highest up-card {_door_card(view).spoken}"


def pair_with_community_or_highest_up_card(
    seats: Sequence[SeatView], community: Sequence[Card]
) -> tuple[int, str]:
    """Mambo's final round: the highest pair of up-card and community card, else the
    highest up-card; equal pairs or ranks go to the first seat from the dealer's left,
    not to suits (14.13A(h)1, (h)2).
    """
    if not community:
        raise ValueError("the pair-with-the-community-card opener needs the community card")
    board = community[0]
    best: SeatView | None = None
    best_key = (-1, -1)
    for view in seats:  # dealing order: a strict > keeps the seat closest to the dealer's left
        card = _door_card(view)
        key = (1 if card.rank == board.rank else 0, int(card.rank))
        if key > best_key:
            best, best_key = view, key
    if best is None:
        raise ValueError("no live seat to open the round")
    card = _door_card(best)
    if best_key[0]:
        return best.seat, f"pair of {card.rank.spoken_plural} with the community card"
    return best.seat, f"highest up-card {card.rank.spoken}"


def first_live_seat(seats: Sequence[SeatView], community: Sequence[Card]) -> tuple[int, str]:
    """The first live player left of the button (triple draw's later rounds, 14.12A(k))."""
    del community  # position alone decides
    return seats[0].seat, "first player left of the button"


def left_of_big_blind(seats: Sequence[SeatView], community: Sequence[Card]) -> tuple[int, str]:
    """The first round of a button game: the player left of the big blind opens (14.10(d),(f);
    rules-interpretation.md, Forced bets). ``seats`` start left of the button: the small blind, the
    big blind, then the rest; heads-up the button is the small blind and acts first.
    """
    del community  # position alone decides
    if len(seats) == 2:
        return seats[1].seat, "the small blind on the button, heads-up"
    return seats[2 % len(seats)].seat, "first player left of the big blind"
