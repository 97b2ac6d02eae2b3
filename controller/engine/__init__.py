"""The game engine: one interpreter for every declared game (``controller.games``).

Public surface::

    table = Table(GAMES["mambo"], TableConfig(seats=(1, 2, 3), stakes=Stakes(...)))
    events = table.apply(ButtonPress(Button.NEW_HAND))   # -> list[Event]
    table.pending      # what is expected now: CardExpected, ActionRequired,
                       # NewHandExpected, or the open Alarm
    table.state        # a TableState snapshot
    table.phase        # the machine's phase (controller.engine.machine)

The engine is pure: no clock, I/O, threads or randomness, so a journal of
inputs replays to the same events. Events are frozen dataclasses
(``controller.engine.events``) with ``kind`` and JSON-ready fields;
``controller.announce`` renders them as a dealer's sentences.

Not yet dealt by this engine: draws and blinds (the spec declares them for
Triple Draw 2-7; a Table refuses a spec that uses them).
"""

from __future__ import annotations

from controller.engine.config import ConfigError, Stakes, TableConfig
from controller.engine.table import Table, TableState

__all__ = ["ConfigError", "Stakes", "Table", "TableConfig", "TableState"]
