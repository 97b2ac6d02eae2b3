"""The table's phases as a ``transitions`` state machine, one per game, shared by every hand.

The machine knows only phases (between hands, dealing, betting, drawing,
showdown, settled, void) and which phase may follow which; the engine fires
its triggers at phase changes, never per card, so a hand costs a dozen
transitions. A game without draws has no drawing phase. The machine is built
once per game (cached) with no model attached: every table keeps its phase in
its own ``Phase`` object and fires events on it, so no hand ever rebuilds it.
"""

from __future__ import annotations

from functools import cache
from typing import Any, Final

from transitions import Machine

from controller.games.spec import GameSpec

WAITING: Final = "waiting"  # no hand dealt yet at this table
DEALING: Final = "dealing"
BETTING: Final = "betting"
DRAWING: Final = "drawing"
SHOWDOWN: Final = "showdown"
SETTLED: Final = "settled"
VOID: Final = "void"

#: Phases in which a hand is under way (a misdeal may void it).
IN_HAND: Final = (DEALING, BETTING, DRAWING, SHOWDOWN)


class Phase:
    """A table's current phase: the model the shared machine moves."""

    __slots__ = ("state",)

    def __init__(self) -> None:
        self.state: str = WAITING


def definition(spec: GameSpec) -> tuple[list[str], list[dict[str, Any]]]:
    """The states and transitions of the game's machine (the diagram draws the same data)."""
    in_hand = [DEALING, BETTING, SHOWDOWN]
    states = [WAITING, DEALING, BETTING, SHOWDOWN, SETTLED, VOID]
    transitions: list[dict[str, Any]] = [
        {"trigger": "new_hand", "source": [WAITING, SETTLED, VOID], "dest": DEALING},
        {"trigger": "cards_dealt", "source": DEALING, "dest": BETTING},
        # Fewer than two players can still bet (the rest all-in): deal on without a round.
        {"trigger": "no_betting", "source": DEALING, "dest": DEALING},
        {"trigger": "next_street", "source": BETTING, "dest": DEALING},
        {"trigger": "to_showdown", "source": [BETTING, DEALING], "dest": SHOWDOWN},
        {"trigger": "everyone_folded", "source": BETTING, "dest": SETTLED},
        {"trigger": "settle", "source": SHOWDOWN, "dest": SETTLED},
    ]
    if spec.has_draws:
        states.insert(3, DRAWING)
        in_hand.append(DRAWING)
        transitions += [
            {"trigger": "draw", "source": BETTING, "dest": DRAWING},
            {"trigger": "draw_complete", "source": DRAWING, "dest": BETTING},
            {"trigger": "everyone_folded", "source": DRAWING, "dest": SETTLED},
        ]
    transitions.append({"trigger": "misdeal", "source": in_hand, "dest": VOID})
    return states, transitions


@cache
def machine_for(spec: GameSpec) -> Machine:
    """The game's machine, built on first use and shared by every table of the game."""
    states, transitions = definition(spec)
    return Machine(
        model=None,
        states=states,
        transitions=transitions,
        initial=WAITING,
        auto_transitions=False,
        send_event=False,
    )
