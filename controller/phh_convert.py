"""PHH hand histories in: a hand read by ``controller.phh.read_phh`` to the inputs of a
table of its game (``to_hand_script``), by the draw game's walk (``controller.phh_draw``)
or the stud games' (``controller.phh_stud``); another variant is refused naming those
tablectl converts (``controller.phh.other_variant``).
"""

from __future__ import annotations

from controller.games import GAMES
from controller.phh import (
    DRAW_VARIANTS,
    VARIANTS,
    ConvertedHand,
    PhhHand,
    other_variant,
    table_seats,
)
from controller.phh_draw import draw_hand
from controller.phh_stud import stud_hand


def to_hand_script(hand: PhhHand) -> ConvertedHand:
    """The PHH hand as the inputs of a table of its game; PhhUnsupported says why not."""
    game = VARIANTS.get(hand.variant)
    if game is None:
        raise other_variant(hand.variant)
    seats = table_seats(hand, GAMES[game])
    if hand.variant in DRAW_VARIANTS:
        return draw_hand(hand, game, seats)
    return stud_hand(hand, game, seats)
