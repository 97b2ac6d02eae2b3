"""What the dealer hears: every engine event rendered as a sentence."""

from __future__ import annotations

import pytest
from tablehelp import of_kind, play, table

from controller.poker.announce import RENDERERS, alarm_read, announce, facts, hidden_cards, told
from controller.poker.cards import Card
from controller.poker.engine import Stakes
from controller.poker.engine import events as events_module
from controller.poker.engine.events import (
    BURN,
    Alarm,
    CardDealt,
    CardDiscarded,
    CardMucked,
    DrawDeclared,
    Event,
    Refused,
    Undone,
)
from controller.poker.inputs import Button, ButtonPress, CardRead, ForeignTag

pytestmark = pytest.mark.fast


def test_every_event_of_a_played_hand_has_a_sentence() -> None:
    """A whole Mambo hand with a misdeal after it: every event renders, none is empty."""
    t = table("mambo")
    checks = " check_call check_call check_call"
    events: list[Event] = play(
        t, "new_hand Kh Ad Qc Ks 2d 8c" + checks + " 7s 9d 4c 5s" + checks + " 7h Th" + checks
    )
    events += play(t, "new_hand 2c misdeal")
    events += t.apply(ButtonPress(Button.FOLD))  # refused: no hand in play
    sentences = [announce(e) for e in events]
    assert all(sentences)
    assert any(isinstance(e, Refused) for e in events)


def test_the_bring_in_sentence_names_the_seat_and_the_card() -> None:
    """14.13(d): "Seat 2 brings in: lowest up-card 2 of clubs"."""
    t = table("five-card-stud")
    play(t, "new_hand Ah Kd Qc 9s 2c 2h")
    assert announce(t.pending) == "Seat 2 brings in: lowest up-card 2 of clubs"


def test_the_settlement_sentence_names_the_pot_the_winners_and_the_odd_chip() -> None:
    """14.13A(j)1: the split pot is announced with its shares and the odd chip's rule."""
    t = table("mambo")
    checks = " check_call check_call check_call"
    events = play(
        t, "new_hand Kh Ad Qc Ks 2d 8c" + checks + " 7s 9d 4c 5s" + checks + " 7h Th" + checks
    )
    settled = next(announce(e) for e in events if e.kind == "hand_settled")
    assert settled == (
        "Hand 1 settled. main pot 9: high 5 to seat 1 with pair of kings; low 4 to seat 2 with "
        "four-two-ace low; odd chip 1 to seat 1 (14.13A(j)1). Results: seat 1 +2, seat 2 +1, "
        "seat 3 -3."
    )


def test_every_kind_of_event_has_an_announcement() -> None:
    """No event class of the engine is left without a sentence."""
    kinds = [
        cls
        for cls in vars(events_module).values()
        if isinstance(cls, type) and issubclass(cls, Event) and cls is not Event
    ]
    assert len(kinds) >= 20
    assert all(cls in RENDERERS for cls in kinds), [c.__name__ for c in kinds if c not in RENDERERS]


def test_hole_cards_burns_and_discards_are_a_card_in_the_sentence_and_not_in_the_facts() -> None:
    """docs/display.md, What the table sees: a card dealt face down (Seat 1 gets a card face
    down), a burn and the draw's discards (14.12A(f): they go face down) are never named in an
    announcement or its facts; a face-up card is."""
    t = table("five-card-stud")
    events = play(t, "new_hand Ah Kd Qc 9s 2c 2h")
    dealt = [e for e in events if isinstance(e, CardDealt)]
    down = dealt[0]
    up = next(e for e in dealt if e.face == "up")
    assert down.face == "down"
    assert hidden_cards(down) == ("Ah",)
    assert announce(down) == "Seat 1 gets a card face down."
    assert "card" not in facts(down)
    assert facts(down)["seat"] == 1
    assert hidden_cards(up) == ()
    assert announce(up) == f"Seat {up.seat} gets {Card.parse(up.card).face} face up."
    assert facts(up)["card"] == up.card
    burn = CardDealt("7s", BURN, None, None)
    assert announce(burn) == "Burned a card."
    declared = DrawDeclared(seat=3, discards=("Js", "2c"))
    assert announce(declared) == "Seat 3 draws 2."
    assert facts(declared) == {"seat": 3, "discards": 2}
    assert "Js" not in announce(CardMucked("Js", 2)) + announce(CardDiscarded("Js", 2))


def test_the_card_that_raised_an_alarm_is_a_card_to_the_table_and_the_journal_keeps_it() -> None:
    """rules-interpretation.md, Integrity: a hole card read again raises an alarm; the announcement,
    the dealer's panel line and the log's facts say "a card", since naming it would name the hole
    card it repeats (seat 1's Ah); the event itself (the journal) keeps the code."""
    t = table("five-card-stud")
    play(t, "new_hand Ah")
    alarm = next(e for e in t.apply(CardRead(Card.parse("Ah"))) if isinstance(e, Alarm))
    assert alarm.read == "Ah"
    assert hidden_cards(alarm) == ("Ah",)
    assert alarm_read(alarm) == "a card"
    assert announce(alarm).startswith("Alarm: a card at the slot: the card was already seen")
    assert "Ah" not in announce(alarm)
    assert "read" not in facts(alarm)
    assert "Ah" not in repr(facts(alarm))


def test_an_alarm_names_a_tag_or_a_button_that_is_no_card() -> None:
    """A tag of no deck in play, or a button, names no card: the alarm says what was read."""
    tag = Alarm(read="tag E0040150", point="slot", expected="seat 2", reason="not enrolled")
    button = Alarm(read="draw_done", point="", expected="seat 2", reason="owed a card")
    assert hidden_cards(tag) == hidden_cards(button) == ()
    assert announce(tag).startswith("Alarm: tag E0040150 at the slot")
    assert alarm_read(button) == "draw_done"


def _told_nowhere(code: str, *events: Event) -> None:
    """Neither ``code`` nor its face is in any sentence or fact of ``events``."""
    face = Card.parse(code).face
    for event in events:
        said = announce(event) + repr(facts(event))
        assert code not in said, (event, said)
        assert face not in said, (event, said)


def test_a_refusal_and_an_undo_while_an_alarm_holds_the_hand_name_no_card() -> None:
    """docs/display.md, What the table sees: seat 1's hole card Ah read again holds the hand; the
    card read next (9d, unseen) is refused naming it and the alarm's Ah, and each undo names
    the read it takes back: the alarm's Ah, then seat 1's hole card itself. Every one of them is
    "a card" to the table and in the log's facts; the events (the journal) keep the codes."""
    t = table("five-card-stud")
    play(t, "new_hand Ah")
    alarm = of_kind(t.apply(CardRead(Card.parse("Ah"))), Alarm)[0]
    read = of_kind(t.apply(CardRead(Card.parse("9d"))), Refused)[0]
    pressed = of_kind(t.apply(ButtonPress(Button.CHECK_CALL)), Refused)[0]
    assert (read.input, "(Ah: " in read.reason, "(Ah: " in pressed.reason) == ("9d slot", 1, 1)
    assert hidden_cards(read) == ("9d", "Ah")
    assert announce(read) == (
        "Refused a card at the slot: the hand is held by an alarm (a card: the card was already "
        "seen this hand (seat 1)); press undo to dismiss the read, or misdeal."
    )
    assert facts(read)["input"] == "a card at the slot"
    assert announce(pressed).startswith("Refused check_call: the hand is held by an alarm (a card:")
    twin = of_kind(t.apply(ButtonPress(Button.UNDO)), Undone)[0]
    hole = of_kind(t.apply(ButtonPress(Button.UNDO)), Undone)[0]
    assert (twin.input, hole.input) == ("Ah slot", "Ah slot")
    assert announce(hole) == "Undone: a card at the slot."
    assert facts(hole) == {
        "input": "a card at the slot",
        "description": "undid a card at the slot; the hand is as it was before it",
    }
    _told_nowhere("Ah", alarm, read, pressed, twin, hole)
    _told_nowhere("9d", read)


def test_an_undone_burn_replacement_or_discard_names_no_card() -> None:
    """Triple draw (14.12A(f)): a discard over the reader, the burn and the replacement are face
    down; undone, each is "a card" (at the slot, at the discard reader)."""
    blinds = Stakes(small_blind=2, big_blind=5, small_bet=5, big_bet=10)
    t = table("triple-draw", dealer=3, stakes=blinds)
    # Seat 1 (left of the button, drawing first) is dealt 2c 5s 9h Kd Ac.
    play(t, "new_hand 2c 3d 4h 5s 7c 8d 9h Ts Jc Kd Qh 6d Ac 3s 4d" + " check_call" * 3)
    discarded = of_kind(play(t, "Kd@discard"), CardDiscarded)[0]
    assert t.apply(ButtonPress(Button.UNDO))[0] == Undone(
        "Kd discard", "undid Kd discard; the hand is as it was before it"
    )
    play(t, "Kd@discard draw_done 6c Td")
    undone = [of_kind(t.apply(ButtonPress(Button.UNDO)), Undone)[0] for _ in range(3)]
    assert [u.input for u in undone] == ["Td slot", "6c slot", "draw_done"]
    assert announce(undone[0]) == "Undone: a card at the slot."
    assert announce(Undone("Kd discard", "undid Kd discard; x")) == "Undone: a card at the discard."
    _told_nowhere("Kd", discarded, Undone("Kd discard", "undid Kd discard; x"))
    _told_nowhere("Td", undone[0])
    _told_nowhere("6c", undone[1])


def test_the_other_decks_card_an_alarm_names_is_a_card_and_the_tag_is_named() -> None:
    """rules-interpretation.md, Integrity: a tag of the other deck raises an alarm whose reason
    names that deck's card (drivers/deck.py); the card raised the alarm, its twin may be a hole
    card: "a card" in the sentence, the facts and a refusal quoting the alarm; the tag is named."""
    t = table("five-card-stud")
    play(t, "new_hand Ah")
    foreign = ForeignTag("04A1B2C3", "a card of the other deck (B), Ah")
    alarm = of_kind(t.apply(foreign), Alarm)[0]
    refused = of_kind(t.apply(ButtonPress(Button.FOLD)), Refused)[0]
    undone = of_kind(t.apply(ButtonPress(Button.UNDO)), Undone)[0]
    assert ["Ah" in said for said in (alarm.reason, refused.reason, undone.input)] == [True] * 3
    assert hidden_cards(alarm) == ("Ah",)
    assert alarm_read(alarm) == "tag 04A1B2C3"
    assert told(alarm, alarm.reason) == (
        "not a card of the active deck: a card of the other deck (B), a card"
    )
    assert announce(alarm).startswith("Alarm: tag 04A1B2C3 at the slot: not a card of the active")
    assert facts(alarm)["read"] == "tag 04A1B2C3"
    _told_nowhere("Ah", alarm, refused, undone)


def test_words_without_a_card_are_told_as_they_are() -> None:
    """A refusal or an undo naming no card, and a tag enrolled in no deck, are said unchanged."""
    refused = Refused("fold", "no one is to act; expected a card face down to seat 2")
    assert hidden_cards(refused) == ()
    assert announce(refused) == f"Refused fold: {refused.reason}."
    assert facts(Undone("fold", "undid fold")) == {"input": "fold", "description": "undid fold"}
    tag = Alarm(read="tag E0040150", point="slot", expected="seat 2", reason="not enrolled")
    assert told(tag, tag.reason) == "not enrolled"
