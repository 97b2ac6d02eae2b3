"""What the dealer hears: every engine event rendered as a sentence."""

from __future__ import annotations

import pytest
from tablehelp import play, table

from controller.announce import RENDERERS, alarm_read, announce, facts, hidden_cards
from controller.cards import Card
from controller.engine import events as events_module
from controller.engine.events import (
    BURN,
    Alarm,
    CardDealt,
    CardDiscarded,
    CardMucked,
    DrawDeclared,
    Event,
    Refused,
)
from controller.inputs import Button, ButtonPress, CardRead

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
