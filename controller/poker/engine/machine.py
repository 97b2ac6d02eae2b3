"""The table's phases as a ``transitions`` state machine, one per game, that drives the hand.

The machine knows the phases (between hands, dealing, betting, drawing,
showdown, settled, void) and which phase may follow which. The engine fires a
trigger at each phase change only: a hand's start, a street's cards or draw, a
betting round, the showdown, the settlement, a misdeal. Entering a phase runs
that phase's work on the table (``ENTER``: the street's first card expected, the
round's first prompt, the hands rated, the pots divided); the work of one input
inside a phase (a card, a discard, a button) is plain code. A trigger the
machine does not allow from the current phase raises ``MachineError``; ``fire``
executes what the machine declares without ``Event.trigger``'s cost (about 15 us).

The machine is built once per game (cached) with no model attached: a table
fires a trigger on itself (``fire``), keeping its phase in its own ``phase``
attribute, so the shared machine holds no table and no hand rebuilds it.
"""

from __future__ import annotations

import logging
from functools import cache
from typing import Any, Final

from transitions import Machine, MachineError

from controller.poker.games.spec import GameSpec

WAITING: Final = "waiting"  # no hand dealt yet at this table
DEALING: Final = "dealing"
BETTING: Final = "betting"
DRAWING: Final = "drawing"
SHOWDOWN: Final = "showdown"
SETTLED: Final = "settled"
VOID: Final = "void"

#: Phases in which a hand is under way (a misdeal may void it).
IN_HAND: Final = (DEALING, BETTING, DRAWING, SHOWDOWN)


#: What entering a phase runs on the table (the model): the name of its method, called
#: with the trigger's arguments. Between hands (waiting) nothing runs.
ENTER: Final = {
    DEALING: "_enter_dealing",
    DRAWING: "_enter_drawing",
    BETTING: "_enter_betting",
    SHOWDOWN: "_enter_showdown",
    SETTLED: "_enter_settled",
    VOID: "_enter_void",
}
#: A new hand opens (the hand's record, antes, blinds) before its first street is dealt.
BEFORE_NEW_HAND: Final = "_open_hand"
#: The attribute of the table the machine keeps the phase in.
MODEL_ATTRIBUTE: Final = "phase"

# transitions logs every state change at INFO; the engine's events already say what a
# change means, and a table's log at INFO would get several machine lines a street.
logging.getLogger("transitions").setLevel(logging.WARNING)


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
    names, transitions = definition(spec)
    states = [{"name": name, "on_enter": ENTER[name]} if name in ENTER else name for name in names]
    transitions = [
        {**t, "before": BEFORE_NEW_HAND} if t["trigger"] == "new_hand" else t for t in transitions
    ]
    return _check_declared(
        Machine(
            model=None,
            states=states,
            transitions=transitions,
            initial=WAITING,
            auto_transitions=False,
            send_event=False,
            model_attribute=MODEL_ATTRIBUTE,
        )
    )


def fire(machine: Machine, trigger: str, model: object, *args: Any) -> None:
    """Fire ``trigger`` on ``model`` (a table): its phase moves and the phase entered runs
    its work with ``args``; MachineError if the machine forbids the trigger now.

    The machine's own transitions and states decide (which trigger may leave which phase,
    for which phase, with which callbacks); only the execution is this one's, because
    ``Event.trigger`` costs about 15 us, a tenth of a triple-draw hand at seven triggers
    (docs/performance.md, the engine after the phase modules). It runs what the machine
    declares, ``before`` then the phase and the new phase's ``on_enter``, and
    ``_check_declared`` refuses a machine that declares anything else."""
    phase = getattr(model, MODEL_ATTRIBUTE)
    allowed = machine.events[trigger].transitions.get(phase)
    if not allowed:
        raise MachineError(f"Can't trigger event {trigger} from state {phase}!")
    transition = allowed[0]
    assert transition.dest is not None  # every transition of definition() has its phase
    for name in transition.before:
        getattr(model, str(name))(*args)  # names, as machine_for declares them
    setattr(model, MODEL_ATTRIBUTE, transition.dest)
    for name in machine.get_state(transition.dest).on_enter:
        getattr(model, str(name))(*args)


def _check_declared(machine: Machine) -> Machine:
    """``fire`` runs a transition's ``before`` and the entered state's ``on_enter`` only, for
    one transition per trigger and phase: a machine that declares more is refused here,
    where it is built, rather than run otherwise than ``transitions`` would run it."""
    unrun: list[list[Any]] = [
        machine.before_state_change,
        machine.after_state_change,
        machine.prepare_event,
        machine.finalize_event,
        machine.on_exception,
    ]
    for event in machine.events.values():
        for source, found in event.transitions.items():
            if len(found) != 1:
                raise ValueError(f"{event.name} from {source}: expected one transition")
            unrun += [found[0].after, found[0].prepare, found[0].conditions]
    for state in machine.states.values():
        unrun.append(state.on_exit)
    if any(unrun):
        raise ValueError("the machine declares callbacks or conditions fire() does not run")
    return machine
