"""Triple Draw Low Ball Deuce to Seven: N.J.A.C. 13:69F-14.12A, declared as data.

- Up to seven players (14.12A(b)); an ante when the stakes post one (14.12A(b)).
- A button marks the dealer position and moves one occupied seat clockwise
  after every hand; the small blind is the first player left of the button,
  the big blind the next; heads-up the button posts the small blind
  (14.12A(c), 14.10(c),(d); rules-interpretation.md, Forced bets).
- Five rounds of one card face down from the button's left, the button last
  (14.12A(d)); the first betting round starts left of the big blind and the
  blinds keep their option to raise (14.12A(e), 14.10(d),(f)).
- Three draws, one player at a time from the button's left; each keeps the
  hand or discards any number, passed over the discard reader, and is dealt
  as many new cards (14.12A(f),(h),(j)); a burn before each draw (14.12A(f);
  rules-interpretation.md, Burns and draws); a stub too short for a player's draw brings the
  reshuffle of every discard but that player's (14.12A(f)).
- Betting rounds two to four start with the first live player left of the
  button (14.12A(g),(i),(k)); bet sizes: rounds 1-2 the small bet, rounds 3-4
  the big bet (rules-interpretation.md, Betting structure).
- Showdown: the lowest deuce-to-seven hand wins (14.12A(l), 14.3(e),(f);
  rules-interpretation.md, Deuce-to-seven low); odd chips to the first tied player clockwise
  from the button (rules-interpretation.md, Odd chips).
"""

from __future__ import annotations

from typing import Final

from controller.poker.games.openers import first_live_seat, left_of_big_blind
from controller.poker.games.spec import (
    BetSize,
    BettingRound,
    Draw,
    Face,
    ForcedBet,
    GameSpec,
    OddChip,
    Showdown,
    ShowdownShare,
    Street,
)
from controller.poker.hands import deuce_to_seven_low

#: 14.12A(f) says "prior to the first player receiving any new cards, the dealer shall burn";
#: (h) and (j) replace cards "in accordance with (f)", read as a burn before every draw
#: (rules-interpretation.md, Burns and draws). Every draw is declared with its burn; a room that
#: burns only before the first draw posts it as a house rule (HouseRules.burn_before_each_draw).


def _draw(name: str, size: BetSize, *, burn: bool) -> Street:
    # 14.12A(f),(h),(j): the players still in draw in turn from the button's left; then a
    # betting round opened by the first live player left of the button (14.12A(g),(i),(k)).
    return Street(
        name,
        burn=False,  # the draw's burn comes right before its first new card (Draw.burn)
        deal=(),
        draw=Draw(burn=burn, reshuffle_discards=True),  # 14.12A(f): the short-stub reshuffle
        betting=BettingRound(size, first_live_seat),
    )


TRIPLE_DRAW: Final = GameSpec(
    key="triple-draw",
    name="Triple Draw 2-7",
    rule="N.J.A.C. 13:69F-14.12A",
    max_seats=7,  # 14.12A(b)
    forced_bet=ForcedBet.BLINDS,  # 14.12A(c), 14.10(c),(d)
    button_moves=True,  # 14.12A(c), 14.10(c): one occupied seat clockwise after every hand
    completes_bring_in=False,  # no bring-in in a blind game
    streets=(
        # 14.12A(d),(e): five rounds face down from the button's left, the button last; the
        # initial round opens left of the big blind, the blinds keeping their option (14.10(f)).
        Street(
            "the deal",
            burn=False,
            deal=(Face.DOWN,) * 5,
            betting=BettingRound(BetSize.SMALL, left_of_big_blind, forced=True),
        ),
        # 14.12A(f),(g): burn, the first draw, the second betting round (small bet).
        _draw("first draw", BetSize.SMALL, burn=True),
        # 14.12A(h),(i): the second draw, the third betting round (big bet).
        _draw("second draw", BetSize.BIG, burn=True),
        # 14.12A(j),(k): the third draw, the final betting round (big bet).
        _draw("third draw", BetSize.BIG, burn=True),
    ),
    # 14.12A(l): the lowest hand wins; ties split, the odd chip to the first tied player
    # clockwise from the button (rules-interpretation.md, Odd chips).
    showdown=Showdown(
        shares=(
            ShowdownShare(
                "low",
                deuce_to_seven_low,
                OddChip.FIRST_LEFT_OF_BUTTON,
                "rules-interpretation.md, Odd chips",
            ),
        )
    ),
)
