"""Integrity: alarms hold the hand, illegal buttons are refused, misdeal and undo
(rules-interpretation.md, Integrity).
"""

from __future__ import annotations

import pytest
from tablehelp import of_kind, play, table

from controller.poker.cards import Card
from controller.poker.engine.events import (
    ActionRequired,
    Alarm,
    CardDealt,
    CardExpected,
    CardMucked,
    HandVoided,
    Refused,
    Undone,
)
from controller.poker.inputs import TOGETHER, Button, ButtonPress, CardRead, ForeignTag, ReadPoint

pytestmark = pytest.mark.fast

DEAL_TWO = "new_hand Ah Kd Qc 9s 2c 2h"  # seat 2's 2c brings in


def test_notes_integrity_a_card_where_a_burn_is_expected_is_the_burn() -> None:
    """rules-interpretation.md, Burns and draws; Integrity: whatever card comes out first is the
    burn."""
    t = table("five-card-stud")
    play(t, DEAL_TWO + " check_call check_call check_call")
    events = t.apply(CardRead(Card.parse("As")))
    dealt = of_kind(events, CardDealt)[0]
    assert (dealt.card, dealt.destination) == ("As", "burn")


def test_notes_integrity_a_card_not_in_the_deck_raises_an_alarm_that_holds_the_hand() -> None:
    """rules-interpretation.md, Integrity: a foreign tag is an alarm naming the tag and the
    expectation; until the dealer undoes it, a card and a button are refused; after undo the deal
    goes on.
    """
    t = table("five-card-stud")
    play(t, "new_hand Ah")
    events = t.apply(ForeignTag("04A1B2C3", "a card of the other deck, Kd"))
    alarm = of_kind(events, Alarm)[0]
    assert alarm.read == "tag 04A1B2C3"
    assert alarm.expected == "expected a card face down to seat 2"
    assert "other deck" in alarm.reason
    assert t.pending == alarm
    refused = t.apply(CardRead(Card.parse("Kd")))
    assert isinstance(refused[0], Refused)
    assert "press undo" in refused[0].reason
    assert isinstance(t.apply(ButtonPress(Button.FOLD))[0], Refused)
    events = t.apply(ButtonPress(Button.UNDO))
    assert isinstance(events[0], Undone)
    assert t.pending == CardExpected("seat", 2, "down")
    play(t, "Kd")


def test_notes_integrity_two_cards_at_once_raise_an_alarm_undo_dismisses() -> None:
    """rules-interpretation.md, Integrity (two cards at once): a tag read together with another
    is an alarm that does not name the card; undo dismisses that read and the card dealt alone
    afterwards goes where the table expects it."""
    t = table("five-card-stud")
    play(t, "new_hand Ah")
    alarm = of_kind(t.apply(ForeignTag("04A1B2C3D4E5F6", TOGETHER)), Alarm)[0]
    assert (alarm.read, alarm.reason) == ("tag 04A1B2C3D4E5F6", f"two cards at once: {TOGETHER}")
    assert isinstance(t.apply(CardRead(Card.parse("Kd")))[0], Refused)
    assert isinstance(t.apply(ButtonPress(Button.UNDO))[0], Undone)
    assert t.pending == CardExpected("seat", 2, "down")
    play(t, "Kd")


def test_notes_integrity_a_card_seen_twice_in_a_hand_raises_an_alarm() -> None:
    """rules-interpretation.md, Integrity: Ah read again raises an alarm naming where Ah went."""
    t = table("five-card-stud")
    play(t, "new_hand Ah")
    alarm = of_kind(t.apply(CardRead(Card.parse("Ah"))), Alarm)[0]
    assert alarm.reason == "the card was already seen this hand (seat 1)"
    assert t.state.seats[1].down == ()


def test_notes_integrity_a_card_when_none_is_expected_raises_an_alarm() -> None:
    """rules-interpretation.md, Integrity: a card during the betting is an alarm; misdeal also
    resolves it."""
    t = table("five-card-stud")
    play(t, DEAL_TWO)
    alarm = of_kind(t.apply(CardRead(Card.parse("5d"))), Alarm)[0]
    assert alarm.reason == "a card when none is expected"
    assert alarm.expected == "expected seat 2 to act, no card"
    events = t.apply(ButtonPress(Button.MISDEAL))
    assert of_kind(events, HandVoided)
    assert t.pending.kind == "new_hand_expected"


def test_a_button_that_is_not_legal_now_is_refused_and_nothing_changes() -> None:
    """Integrity: fold while cards are being dealt, a second new hand, a misdeal between hands:
    each refused with the reason; the table's state is unchanged.
    """
    t = table("five-card-stud")
    refused = t.apply(ButtonPress(Button.MISDEAL))
    assert isinstance(refused[0], Refused)
    play(t, "new_hand Ah")
    before = t.state
    for button in (Button.FOLD, Button.NEW_HAND, Button.DRAW_DONE):
        events = t.apply(ButtonPress(button))
        assert len(events) == 1
        assert isinstance(events[0], Refused)
        assert t.state == before
    refused = t.apply(ButtonPress(Button.CHECK_CALL))[0]
    assert isinstance(refused, Refused)
    assert "no one is to act" in refused.reason


def test_the_forced_bet_cannot_be_folded() -> None:
    """14.13(d): the lowest up-card must bring in; fold is refused with the rule."""
    t = table("five-card-stud")
    play(t, DEAL_TWO)
    refused = t.apply(ButtonPress(Button.FOLD))[0]
    assert isinstance(refused, Refused)
    assert "14.13(d)" in refused.reason


def test_misdeal_voids_the_hand_and_returns_every_bet_and_ante() -> None:
    """rules-interpretation.md, Integrity: after antes, a bring-in, a completion and a call, a
    misdeal puts every chip back where it was.
    """
    stacks = {1: 50, 2: 60, 3: 70}
    t = table("five-card-stud", stacks=stacks)
    play(t, DEAL_TWO + " check_call bet_raise check_call")
    assert t.stacks != stacks
    events = t.apply(ButtonPress(Button.MISDEAL))
    voided = of_kind(events, HandVoided)[0]
    assert {r.seat: r.amount for r in voided.returned} == {1: 6, 2: 3, 3: 6}
    assert t.stacks == stacks
    play(t, "new_hand")  # the next hand deals normally


def test_undo_reverts_the_last_action_and_says_so() -> None:
    """Undo: seat 3's fold is undone with an audit event; seat 3 is to act again."""
    t = table("five-card-stud")
    play(t, DEAL_TWO + " check_call fold")
    events = t.apply(ButtonPress(Button.UNDO))
    assert events[0] == Undone("fold", "undid fold; the hand is as it was before it")
    assert isinstance(t.pending, ActionRequired)
    assert t.pending.seat == 3
    assert not t.state.seats[2].folded


def test_undo_after_everyone_folded_reopens_the_hand_and_restores_the_stacks() -> None:
    """Undo: the fold that ended the hand is undone; the pot and the stacks are as before it."""
    stacks = {1: 50, 2: 60, 3: 70}
    t = table("five-card-stud", stacks=stacks)
    play(t, DEAL_TWO + " check_call fold")
    mid = t.state
    play(t, "fold")
    assert t.phase == "settled"
    t.apply(ButtonPress(Button.UNDO))
    assert t.state == mid


def test_undo_with_nothing_to_undo_is_refused() -> None:
    """Undo: at the start of a hand there is nothing to undo."""
    t = table("five-card-stud")
    play(t, "new_hand")
    assert isinstance(t.apply(ButtonPress(Button.UNDO))[0], Refused)


def test_folded_cards_at_the_discard_reader_go_to_the_muck_a_live_hand_is_an_alarm() -> None:
    """rules-interpretation.md, Integrity: seat 3 folds and its cards pass the discard reader; a
    live seat's card there is an alarm.
    """
    t = table("five-card-stud")
    play(t, DEAL_TWO + " check_call fold")
    events = t.apply(CardRead(Card.parse("Qc"), ReadPoint.DISCARD_READER))
    assert of_kind(events, CardMucked) == [CardMucked("Qc", 3)]
    alarm = of_kind(t.apply(CardRead(Card.parse("Ah"), ReadPoint.DISCARD_READER)), Alarm)[0]
    assert alarm.reason == "the card belongs to seat 1, still in the hand"
