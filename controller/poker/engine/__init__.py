"""The game engine: one interpreter for every declared game (``controller.poker.games``).

Public surface::

    table = Table(GAMES["mambo"], TableSetup(seats=(1, 2, 3), stakes=Stakes(...)))
    events = table.apply(ButtonPress(Button.NEW_HAND))   # -> list[Event]
    table.pending      # what is expected now: CardExpected, ActionRequired,
                       # NewHandExpected, or the open Alarm
    table.state        # a TableState snapshot
    table.phase        # the machine's phase (controller.poker.engine.machine)
    table.stacks       # every seat's chips behind (None: unknown)
    table.last_settlement  # the last hand's HandSettled or HandVoided
    table.checkpoint()     # between hands: a TableCheckpoint that
    Table.from_checkpoint(spec, config, cp)  # continues exactly
    TableSetup(..., rules=HouseRules(...))  # other house rules (rules-interpretation.md, House
    rules)

The engine is pure: no clock, I/O, threads or randomness, so a journal of
inputs replays to the same events. Events are frozen dataclasses
(``controller.poker.engine.events``) with ``kind`` and JSON-ready fields;
``controller.poker.announce`` renders them as a dealer's sentences.

Button games are dealt too: blinds posted left of the button (the button
moving after every hand), and draws, in which each player in turn passes its
discards over the discard reader, presses ``draw_done`` (none passed: stands
pat) and is dealt its replacements, the burn before the draw's first new
card, the discards reshuffled when the stub runs short (14.12A(f)). Triple
Draw 2-7 (``controller/poker/games/triple_draw.py``) is the game that declares them.
"""

from __future__ import annotations

from controller.poker.engine.checkpoint import TableCheckpoint
from controller.poker.engine.gametable import Table
from controller.poker.engine.hand import TableState
from controller.poker.engine.tablesetup import (
    ConfigError,
    HouseRules,
    ShortAllIn,
    Stakes,
    TableSetup,
)

__all__ = [
    "ConfigError",
    "HouseRules",
    "ShortAllIn",
    "Stakes",
    "Table",
    "TableCheckpoint",
    "TableSetup",
    "TableState",
]
