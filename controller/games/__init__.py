"""The games tablectl deals, each declared as a ``GameSpec`` (``controller.games.spec``).

``GAMES`` maps the key a table's configuration and the hand scripts use to the
spec; Triple Draw 2-7 ("triple-draw") joins in its own issue.
"""

from __future__ import annotations

from typing import Final

from controller.games.five_card_stud import FIVE_CARD_STUD
from controller.games.mambo import MAMBO
from controller.games.spec import GameSpec

GAMES: Final[dict[str, GameSpec]] = {spec.key: spec for spec in (FIVE_CARD_STUD, MAMBO)}


def game(key: str) -> GameSpec:
    """The spec of the game named ``key``; a KeyError names the key and the games known."""
    try:
        return GAMES[key]
    except KeyError:
        known = ", ".join(sorted(GAMES))
        raise KeyError(f"unknown game {key!r}; expected one of: {known}") from None
