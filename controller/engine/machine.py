"""The table's phases as a ``transitions`` state machine, one per game, shared by every hand.

The machine knows only phases (between hands, dealing, betting, drawing,
showdown, settled, void) and which phase may follow which; the engine fires
its triggers at phase changes, never per card. A game without draws has no
drawing phase. The machine is built once per game (cached) with no model
attached: every table keeps its phase in its own ``Phase`` object, so no hand
ever rebuilds it.

The machine has no callbacks: a transition only changes the phase. So the
engine fires a trigger through ``moves_for(spec)``, the machine's own
transition table read out once as ``(trigger, source) -> destination``; a
trigger the machine does not allow from the current phase raises
``MachineError`` exactly as ``transitions`` would. This keeps a move at a dict
look-up instead of transitions' ~15 us event dispatch (the engine benchmark,
docs/performance.md); a test checks that both agree on every trigger and phase.
"""

from __future__ import annotations

from functools import cache
from typing import Any, Final

from transitions import Machine, MachineError

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
    # A street starts from the betting round before it, or straight from the cards (or
    # the draw) before it when fewer than two players can still bet.
    street_sources = [BETTING, DEALING]
    if spec.has_draws:
        states.insert(3, DRAWING)
        in_hand.append(DRAWING)
        street_sources.append(DRAWING)
    transitions: list[dict[str, Any]] = [
        {"trigger": "new_hand", "source": [WAITING, SETTLED, VOID], "dest": DEALING},
        {"trigger": "cards_dealt", "source": DEALING, "dest": BETTING},
        {"trigger": "deal_street", "source": street_sources, "dest": DEALING},
        {"trigger": "to_showdown", "source": street_sources, "dest": SHOWDOWN},
        {"trigger": "everyone_folded", "source": BETTING, "dest": SETTLED},
        {"trigger": "settle", "source": SHOWDOWN, "dest": SETTLED},
    ]
    if spec.has_draws:
        transitions += [
            {"trigger": "draw_street", "source": street_sources, "dest": DRAWING},
            {"trigger": "draw_complete", "source": DRAWING, "dest": BETTING},
        ]
    transitions.append({"trigger": "misdeal", "source": in_hand, "dest": VOID})
    # Undo rebuilds the hand from its start: back to before its new_hand, then replayed.
    transitions.append({"trigger": "rewind", "source": [*in_hand, SETTLED, VOID], "dest": WAITING})
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


@cache
def moves_for(spec: GameSpec) -> dict[tuple[str, str], str]:
    """The game machine's transitions as ``(trigger, source phase) -> destination phase``."""
    machine = machine_for(spec)
    return {
        (name, source): str(transitions[0].dest)
        for name, event in machine.events.items()
        for source, transitions in event.transitions.items()
    }


def move(moves: dict[tuple[str, str], str], trigger: str, phase: str) -> str:
    """The phase ``trigger`` leads to from ``phase``; MachineError if the machine forbids it."""
    try:
        return moves[trigger, phase]
    except KeyError:
        raise MachineError(f"Can't trigger event {trigger} from state {phase}!") from None
