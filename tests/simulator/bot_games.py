"""The three games the dealer bots are tested on.

Triple Draw 2-7 is taken from the registry when it is registered there; otherwise from the
engine's test that declares it (tests/test_draw_game.py).
"""

from __future__ import annotations

import importlib

from controller.poker.games import GAMES
from controller.poker.games.spec import GameSpec


def triple_draw() -> GameSpec:
    """Triple Draw 2-7 (14.12A), registered or as the engine's tests declare it."""
    if "triple-draw" in GAMES:
        return GAMES["triple-draw"]
    declared: GameSpec = importlib.import_module("test_draw_game").TRIPLE_DRAW
    return declared


TRIPLE_DRAW = triple_draw()
#: Five-card stud, Mambo and Triple Draw 2-7 (and any game registered later).
THREE_GAMES: list[GameSpec] = [*GAMES.values()]
if TRIPLE_DRAW.key not in GAMES:
    THREE_GAMES.append(TRIPLE_DRAW)
