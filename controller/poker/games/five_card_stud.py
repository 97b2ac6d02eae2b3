"""Five-card stud, high only: N.J.A.C. 13:69F-14.13, declared as data.

- Up to eight players (14.13(b)); an ante when the stakes post one (14.13(b)).
- One card down and one up to each player from the first player left of the
  dealer (14.13(c)); the lowest up-card, ties by suit, brings in (14.13(d)).
- Burn, then one card up to each player still in, three times (14.13(f),(g));
  each of those rounds is opened by the highest partial hand showing, ties to
  the player closest to the dealer's left (14.13(f), rules-interpretation.md, High hands),
  who "shall be required to bet": the opener bets (no check, no fold), and the
  others fold, call or raise (14.13(e); docs/rules-interpretation.md).
- Bet sizes: rounds 1-2 the small bet, rounds 3-4 the big bet (rules-interpretation.md,
  Betting structure).
- Showdown: the best five-card high hand wins (14.13(h)); odd chips to the tied
  hand holding the highest card by suit (rules-interpretation.md, Odd chips).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from controller.poker.cards import Card
from controller.poker.games.openers import lowest_up_card
from controller.poker.games.spec import (
    BetSize,
    BettingRound,
    Face,
    ForcedBet,
    GameSpec,
    OddChip,
    OpenerDuty,
    SeatView,
    Showdown,
    ShowdownShare,
    Street,
)
from controller.poker.hands import five_card_high, partial_high, partial_high_strength

#: Partial-hand strength -> how a dealer calls it ("pair of jacks"); filled as hands are seen.
_SHOWING: dict[int, str] = {}


def highest_hand_showing(seats: Sequence[SeatView], community: Sequence[Card]) -> tuple[int, str]:
    """The highest partial hand showing opens; equal hands go to the player closest to
    the dealer's left, not to suits (14.13(f); rules-interpretation.md, High hands, partial hands).
    """
    del community  # stud has no board
    best, best_strength = seats[0], -1
    for view in seats:  # dealing order: a strict > keeps the seat closest to the dealer's left
        strength = partial_high_strength(view.up_cards)
        if strength > best_strength:
            best, best_strength = view, strength
    description = _SHOWING.get(best_strength)
    if description is None:  # the call depends on the ranks showing only: worked out once
        description = _SHOWING[best_strength] = partial_high(best.up_cards).description
    return best.seat, f"highest hand showing, {description}"


def _later_street(name: str, size: BetSize) -> Street:
    # 14.13(f),(g): burn, one card up to each player still in, bet opened by the best hand
    # showing, which "shall be required to bet"; the others fold, call or raise (14.13(e)).
    betting = BettingRound(
        size, highest_hand_showing, opener_duty=OpenerDuty.BET, duty_rule="14.13(f)"
    )
    return Street(name, burn=True, deal=(Face.UP,), betting=betting)


FIVE_CARD_STUD: Final = GameSpec(
    key="five-card-stud",
    name="Five-Card Stud",
    rule="N.J.A.C. 13:69F-14.13",
    max_seats=8,  # 14.13(b)
    forced_bet=ForcedBet.BRING_IN,  # 14.13(d)
    streets=(
        # 14.13(c),(d),(e): one down, one up; the lowest up-card brings in.
        Street(
            "second street",
            burn=False,
            deal=(Face.DOWN, Face.UP),
            betting=BettingRound(BetSize.SMALL, lowest_up_card, forced=True),
        ),
        _later_street("third street", BetSize.SMALL),
        _later_street("fourth street", BetSize.BIG),
        _later_street("fifth street", BetSize.BIG),
    ),
    # 14.13(a),(h): high only; rules-interpretation.md, Odd chips: to the highest card by suit.
    showdown=Showdown(
        shares=(
            ShowdownShare(
                "high",
                five_card_high,
                OddChip.HIGHEST_CARD_BY_SUIT,
                "rules-interpretation.md, Odd chips",
            ),
        ),
    ),
)
