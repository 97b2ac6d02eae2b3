"""The phase machine: one per game, shared by every hand, and its committed diagram."""

from __future__ import annotations

from pathlib import Path

import pytest
from tablehelp import play, table
from transitions import Machine, MachineError

from controller.poker.cards import DECK
from controller.poker.engine import Stakes
from controller.poker.engine import play as play_module
from controller.poker.engine.autoplay import play_hand
from controller.poker.engine.diagram import document
from controller.poker.engine.events import ActionRequired, Event, HandVoided, Option
from controller.poker.engine.machine import fire, machine_for
from controller.poker.games import GAMES

pytestmark = pytest.mark.fast

#: The test stakes with blinds, so that triple draw can be dealt at them too.
BLINDS_TOO = Stakes(ante=1, bring_in=2, small_bet=5, big_bet=10, small_blind=2, big_blind=5)


def _call(pending: ActionRequired) -> Option:
    """Check or call (or bring in) when it may, else the first option: the hand runs out."""
    return next((o for o in pending.options if o.button == "check_call"), pending.options[0])


DIAGRAM = Path(__file__).resolve().parent.parent / "docs" / "engine-machine.md"


def test_the_committed_diagram_matches_the_machine() -> None:
    """docs/engine-machine.md is the machine rendered afresh; regenerate it with
    ``python -m controller.poker.engine.diagram > docs/engine-machine.md`` when the machine changes.
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


def test_the_machine_drives_the_hand_entering_a_phase_does_its_work() -> None:
    """The machine is not a copy of the phases: firing its trigger is what moves the table,
    and the phase entered does its work (here a misdeal voids the hand and gives every bet
    back, rules-interpretation.md, Integrity), with the events of the phase change.
    """
    t = table("five-card-stud", seats=(1, 2), stacks={1: 100, 2: 100})
    play(t, "new_hand 2h 3d Kh 2c")
    assert t.phase == "betting"
    assert t.stacks == {1: 99, 2: 99}  # the antes are in
    out: list[Event] = []
    machine_for(t.spec).events["misdeal"].trigger(t._play, out)  # the model is the hand in play
    assert t.phase == "void"
    assert [type(e) for e in out][:1] == [HandVoided]
    assert t.stacks == {1: 100, 2: 100}


def test_a_trigger_the_machine_forbids_is_refused_by_transitions_and_changes_nothing() -> None:
    """From betting there is no settle (only a showdown settles): transitions refuses it."""
    t = table("five-card-stud", seats=(1, 2))
    play(t, "new_hand 2h 3d Kh 2c")
    before = t.state
    with pytest.raises(MachineError, match="Can't trigger event settle from state betting"):
        fire(machine_for(t.spec), "settle", t._play, [], None)
    assert t.state == before


@pytest.mark.parametrize("key", sorted(GAMES))
def test_every_phase_change_of_a_hand_is_a_trigger_and_no_input_inside_a_phase_is(key: str) -> None:
    """The triggers fire at phase changes only (a street, a round, a draw, the showdown): a
    whole hand fires a few, never one per card (a trigger costs about 15 us)."""
    t = table(key, seats=(1, 2, 3), stakes=BLINDS_TOO)
    fired: list[str] = []

    def counting(machine: Machine, trigger: str, model: object, *args: object) -> None:
        fired.append(trigger)
        fire(machine, trigger, model, *args)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(play_module, "fire", counting)
        events = play_hand(t, DECK, _call)
    phases = len(t.spec.streets) * 2 + 3  # each street's cards and round, the hand's ends
    assert fired[0] == "new_hand"
    assert fired[-1] in {"settle", "everyone_folded"}
    assert len(fired) <= phases < len(events) / 3
