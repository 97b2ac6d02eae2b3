"""The games tablectl deals, each declared as a ``GameSpec`` (``controller.poker.games.spec``).

``GAMES`` maps the key a table's configuration and the hand scripts use to the
spec.
"""

from __future__ import annotations

from typing import Final

from controller.poker.games.five_card_stud import FIVE_CARD_STUD
from controller.poker.games.mambo import MAMBO
from controller.poker.games.spec import GameSpec
from controller.poker.games.triple_draw import TRIPLE_DRAW

GAMES: Final[dict[str, GameSpec]] = {
    spec.key: spec for spec in (FIVE_CARD_STUD, MAMBO, TRIPLE_DRAW)
}


def game(key: str) -> GameSpec:
    """The spec of the game named ``key``; a KeyError names the key and the games known."""
    try:
        return GAMES[key]
    except KeyError:
        known = ", ".join(sorted(GAMES))
        raise KeyError(f"unknown game {key!r}; expected one of: {known}") from None
