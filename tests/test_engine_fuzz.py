"""Any input at any time: the engine never raises, refuses or alarms instead, and undo of
any accepted input restores the table exactly (rules-interpretation.md,
Integrity). Random legal play mixed with random cards, tags and buttons.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tierhelp import examples

from controller.poker.cards import DECK, Card
from controller.poker.engine import Stakes, Table, TableSetup
from controller.poker.engine.events import (
    ActionRequired,
    Alarm,
    CardExpected,
    DrawExpected,
    HandSettled,
    Refused,
)
from controller.poker.games import GAMES
from controller.poker.games.spec import GameSpec
from controller.poker.inputs import Button, ButtonPress, CardRead, ForeignTag, ReadPoint, TableInput

pytestmark = pytest.mark.fast

STAKES = Stakes(ante=1, bring_in=2, small_blind=2, big_blind=5, small_bet=5, big_bet=10)
SPECS = [GAMES["five-card-stud"], GAMES["mambo"], GAMES["triple-draw"]]


def _legal(t: Table, rng: random.Random, unseen: list[int]) -> TableInput:
    pending = t.pending
    if isinstance(pending, Alarm):  # the dealer resolves it, mostly by dismissing the read
        return ButtonPress(Button.UNDO if rng.random() < 0.9 else Button.MISDEAL)
    if isinstance(pending, ActionRequired):
        return ButtonPress(Button(rng.choice(pending.options).button))
    if isinstance(pending, CardExpected) and unseen:
        return CardRead(DECK[unseen.pop(rng.randrange(len(unseen)))])
    if isinstance(pending, DrawExpected):
        seat = next(s for s in t.state.seats if s.seat == pending.seat)
        if seat.down and rng.random() < 0.3:
            return CardRead(Card.parse(rng.choice(seat.down)), ReadPoint.DISCARD_READER)
        return ButtonPress(Button.DRAW_DONE)
    return ButtonPress(Button.NEW_HAND)


def _junk(rng: random.Random) -> TableInput:
    roll = rng.random()
    if roll < 0.4:
        return CardRead(rng.choice(DECK), rng.choice(list(ReadPoint)))
    if roll < 0.5:
        return ForeignTag("DEADBEEF", "not enrolled in either deck", rng.choice(list(ReadPoint)))
    return ButtonPress(rng.choice(list(Button)))


@settings(max_examples=examples(40))
@given(st.sampled_from(SPECS), st.integers(2, 6), st.integers(0, 2**32))
def test_any_input_is_taken_refused_or_alarmed_and_undo_restores_the_table(
    spec: GameSpec, players: int, seed: int
) -> None:
    """Two hundred inputs, a fifth of them junk: no exception; every accepted input other
    than new hand and undo is undone once to check the table is exactly as before it, then
    applied again; chips are conserved at every settlement.
    """
    rng = random.Random(seed)
    stacks = {seat: rng.choice([3, 20, 200]) for seat in range(1, players + 1)}
    t = Table(spec, TableSetup(seats=tuple(stacks), stakes=STAKES, stacks=stacks))
    total = sum(stacks.values())
    unseen: list[int] = []
    for _ in range(200):
        if t.phase in ("waiting", "settled", "void"):
            unseen = list(range(52))
        inp = _junk(rng) if rng.random() < 0.2 else _legal(t, rng, unseen)
        before = t.state
        events = t.apply(inp)
        assert events
        refused = isinstance(events[0], Refused)
        undoable = not refused and inp not in (
            ButtonPress(Button.NEW_HAND),
            ButtonPress(Button.UNDO),
        )
        if undoable and rng.random() < 0.5:
            t.apply(ButtonPress(Button.UNDO))
            assert t.state == before, inp
            t.apply(inp)
        for event in events:
            if isinstance(event, HandSettled):
                assert sum(n.amount for n in event.net) + event.rake == 0
        if t.phase in ("settled", "void"):
            assert sum(s for s in t.stacks.values() if s is not None) + _raked(t) == total
            total = sum(s for s in t.stacks.values() if s is not None)


def _raked(t: Table) -> int:
    settled = t.last_settlement
    return settled.rake if isinstance(settled, HandSettled) else 0
