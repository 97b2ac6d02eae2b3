"""Table.rebuy: chips a player buys between hands, never during one (table stakes)."""

from __future__ import annotations

import pytest

from controller.poker.engine import Stakes, Table, TableSetup
from controller.poker.engine.events import HandStarted, HandVoided
from controller.poker.games import GAMES
from controller.poker.inputs import Button, ButtonPress

pytestmark = pytest.mark.fast

STAKES = Stakes(ante=1, bring_in=2, small_bet=5, big_bet=10)


def table(stacks: dict[int, int]) -> Table:
    return Table(GAMES["mambo"], TableSetup(seats=(1, 2, 3), stakes=STAKES, stacks=stacks))


def test_a_rebuy_between_hands_grows_the_stack_and_deals_a_busted_seat_in_again() -> None:
    """A seat with no chips is not dealt; after a rebuy it is, and its ante comes from the
    chips it bought."""
    t = table({1: 0, 2: 50, 3: 50})
    started = t.apply(ButtonPress(Button.NEW_HAND))[0]
    assert isinstance(started, HandStarted)
    assert started.seats == (2, 3)
    t.apply(ButtonPress(Button.MISDEAL))
    t.rebuy(1, 40)
    assert t.stacks == {1: 40, 2: 50, 3: 50}
    started = t.apply(ButtonPress(Button.NEW_HAND))[0]
    assert isinstance(started, HandStarted)
    assert started.seats == (1, 2, 3)
    assert t.stacks[1] == 39  # 14.13A(b): the ante


def test_a_rebuy_is_refused_during_a_hand_and_for_bad_amounts_or_seats() -> None:
    """Table stakes: no chips during a hand; the error names the seat and what was expected."""
    t = table({1: 10, 2: 10, 3: 10})
    t.apply(ButtonPress(Button.NEW_HAND))
    with pytest.raises(ValueError, match="hand 1 is in play; expected chips only between hands"):
        t.rebuy(1, 10)
    voided = t.apply(ButtonPress(Button.MISDEAL))[0]
    assert isinstance(voided, HandVoided)
    with pytest.raises(ValueError, match="seat 4 is not an occupied seat"):
        t.rebuy(4, 10)
    with pytest.raises(ValueError, match="expected a positive multiple of the smallest chip"):
        t.rebuy(1, 0)
    unknown = Table(GAMES["mambo"], TableSetup(seats=(1, 2), stakes=STAKES))
    with pytest.raises(ValueError, match="seat 1's stack is unknown"):
        unknown.rebuy(1, 10)


def test_undo_does_not_reach_back_past_a_rebuy() -> None:
    """The rebuy closes the last hand: undo cannot rewind its settlement under the new chips."""
    t = table({1: 10, 2: 10, 3: 10})
    t.apply(ButtonPress(Button.NEW_HAND))
    t.apply(ButtonPress(Button.MISDEAL))
    t.rebuy(2, 5)
    refused = t.apply(ButtonPress(Button.UNDO))
    assert refused[0].kind == "refused"
    assert t.stacks == {1: 10, 2: 15, 3: 10}
