"""The phase machine: one per game, shared by every hand, and its committed diagram."""

from __future__ import annotations

from pathlib import Path

import pytest
from tablehelp import play, table
from transitions import MachineError

from controller.engine.diagram import document
from controller.engine.machine import Phase, machine_for, move, moves_for
from controller.games import GAMES

pytestmark = pytest.mark.fast

DIAGRAM = Path(__file__).resolve().parent.parent / "docs" / "engine-machine.md"


def test_the_committed_diagram_matches_the_machine() -> None:
    """docs/engine-machine.md is the machine rendered afresh; regenerate it with
    ``python -m controller.engine.diagram > docs/engine-machine.md`` when the machine changes.
    """
    assert DIAGRAM.read_text(encoding="utf-8") == document()


def test_one_machine_per_game_is_built_once_and_shared_by_every_hand_and_table() -> None:
    """The machine is cached per spec: two tables and several hands build no new machine."""
    spec = GAMES["five-card-stud"]
    first = machine_for(spec)
    misses = machine_for.cache_info().misses
    for _ in range(2):
        t = table("five-card-stud", seats=(1, 2))
        for _ in range(3):
            play(t, "new_hand 2h 3d Kh 2c check_call fold")
    assert machine_for(spec) is first
    assert machine_for.cache_info().misses == misses
    assert not first.models  # tables keep their own phase; the shared machine holds none


def test_phases_follow_the_hand() -> None:
    """The phase is dealing while cards are due, betting while a seat must act, settled after."""
    t = table("five-card-stud", seats=(1, 2))
    assert t.phase == "waiting"
    play(t, "new_hand 2h")
    assert t.phase == "dealing"
    play(t, "3d Kh 2c")
    assert t.phase == "betting"
    play(t, "check_call fold")
    assert t.phase == "settled"


def test_the_engines_move_table_agrees_with_transitions_on_every_trigger_and_phase() -> None:
    """The engine fires triggers through the machine's transition table read out once; for
    every trigger from every phase it lands where ``transitions`` itself would, or refuses.
    """
    for spec in GAMES.values():
        machine = machine_for(spec)
        moves = moves_for(spec)
        for trigger, event in machine.events.items():
            for phase in machine.states:
                model = Phase()
                model.state = phase
                try:
                    event.trigger(model)
                    expected: str | None = model.state
                except MachineError:
                    expected = None
                try:
                    got: str | None = move(moves, trigger, phase)
                except MachineError:
                    got = None
                assert got == expected, (spec.key, trigger, phase)
