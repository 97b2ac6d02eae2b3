"""Mambo stud, high-low split, six or better: N.J.A.C. 13:69F-14.13A, declared as data.

- Up to eleven players (14.13A(b)); an ante when the stakes post one.
- One card down and one up from the first player left of the dealer
  (14.13A(c)); the lowest up-card, ties by suit, brings in (14.13A(d)).
- Burn, a third card face down to each player still in; the highest up-card,
  ties by suit, opens (14.13A(f)).
- Burn, one community card face up; the highest pair of up-card and community
  card, else the highest up-card, opens; ties to the player closest to the
  dealer's left (14.13A(h)).
- Bet sizes: rounds 1-2 the small bet, round 3 the big bet (rules-interpretation.md, Betting
  structure).
- Showdown: the best three of four for high and, six or better, for low; the
  same cards may serve both (14.13A(j),(k),(l)); no qualifying low, the whole
  pot goes high (14.13A(k)); odd chips as 14.13A(j)1-3.
"""

from __future__ import annotations

from typing import Final

from controller.poker.games.openers import (
    highest_up_card,
    lowest_up_card,
    pair_with_community_or_highest_up_card,
)
from controller.poker.games.spec import (
    BetSize,
    BettingRound,
    Face,
    ForcedBet,
    GameSpec,
    OddChip,
    OpenerDuty,
    Showdown,
    ShowdownShare,
    Street,
)
from controller.poker.hands import mambo_high, mambo_low

MAMBO: Final = GameSpec(
    key="mambo",
    name="Mambo Stud",
    rule="N.J.A.C. 13:69F-14.13A",
    max_seats=11,  # 14.13A(b)
    forced_bet=ForcedBet.BRING_IN,  # 14.13A(d)
    streets=(
        # 14.13A(c),(d),(e): one down, one up; the lowest up-card brings in.
        Street(
            "first round",
            burn=False,
            deal=(Face.DOWN, Face.UP),
            betting=BettingRound(BetSize.SMALL, lowest_up_card, forced=True),
        ),
        # 14.13A(f),(g): burn, third card down; the highest up-card opens.
        Street(
            "second round",
            burn=True,
            deal=(Face.DOWN,),
            betting=BettingRound(
                BetSize.SMALL,
                highest_up_card,
                opener_duty=OpenerDuty.BET_OR_CHECK,  # "required to bet or check"
                duty_rule="14.13A(f)",
            ),
        ),
        # 14.13A(h),(i): burn, one community card up; pair with it, else highest up-card.
        Street(
            "final round",
            burn=True,
            deal=(),
            community=1,
            betting=BettingRound(
                BetSize.BIG,
                pair_with_community_or_highest_up_card,
                opener_duty=OpenerDuty.BET_OR_CHECK,  # "required to bet or check"
                duty_rule="14.13A(h)",
            ),
        ),
    ),
    showdown=Showdown(
        shares=(
            # 14.13A(j)1-2: the odd chip of the split goes high; tied highs by highest card by
            # suit, the whole excess to that one player (rules-interpretation.md, Odd chips).
            ShowdownShare(
                "high",
                mambo_high,
                OddChip.HIGHEST_CARD_BY_SUIT,
                "14.13A(j)2",
                odd_chips_one_at_a_time=False,
            ),
            # 14.13A(j)3, (k): tied lows by lowest low card by suit; six or better qualifies.
            ShowdownShare(
                "low",
                mambo_low,
                OddChip.LOWEST_LOW_CARD_BY_SUIT,
                "14.13A(j)3",
                may_not_qualify=True,
                odd_chips_one_at_a_time=False,
            ),
        ),
        split_rule="14.13A(j)1",
    ),
)
