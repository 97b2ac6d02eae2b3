"""The table's words (docs/display.md, The table's words): a bet or raise said in one convention
on every surface, a ten drawn as ``10``, a game by its one display name."""

from __future__ import annotations

import re

import pytest
from tablehelp import of_kind, play, table

from controller.display import render
from controller.display.view import FACE_DOWN, SeatView, ShowdownView, ShownHand
from controller.history.recall import HandRecord, describe, format_hand
from controller.poker.announce import action_words, announce, option_text
from controller.poker.cards import DECK, Card, Rank
from controller.poker.engine.events import ActionRequired, ActionTaken, HandStarted
from controller.poker.games import GAMES
from controller.table.paneltext import waiting_for
from controller.table.viewbuilder import action_prompt

pytestmark = pytest.mark.fast

#: Five-card stud, three seats: seat 2's 2c brings in, then seats 3, 1 and 2 act in turn.
DEAL = "new_hand Ah Kd Qc 9s 2c 2h"


def test_a_raise_is_said_to_the_level_the_seats_bet_comes_to_on_every_surface() -> None:
    """Seat 2 brought in 2 and faces a raise to 10: its raise puts in 13 and takes its bet to 15.
    The option (display, panel, announcement), the announcement of the raise (the log and the
    display's log strip) and recall (and the floor's web view, which shows recall's lines) all
    say 15, the level; the event keeps the 13 chips as the journal does."""
    t = table("five-card-stud")
    play(t, DEAL + " check_call bet_raise bet_raise")  # brings in 2, completes to 5, raises to 10
    prompt = t.pending
    assert isinstance(prompt, ActionRequired)
    assert prompt.seat == 2
    raising = next(o for o in prompt.options if o.button == "bet_raise")
    assert raising.amount == 13
    assert option_text(raising) == "raise to 15"
    assert announce(prompt) == "Seat 2 to act (to call 8): fold, call 8, raise to 15."
    assert waiting_for(prompt) == (2, "S2: fold/call 8/raise to 15")
    shown = action_prompt(prompt)
    assert shown is not None
    assert [option.text for option in shown.options] == ["fold", "call 8", "raise to 15"]

    (raised,) = of_kind(play(t, "bet_raise"), ActionTaken)
    assert (raised.action, raised.amount, raised.round_total) == ("raises", 13, 15)
    assert announce(raised) == "Seat 2 raises to 15."
    assert describe(raised) == "  seat 2 raises to 15"


@pytest.mark.parametrize(
    ("action", "said"),
    [
        (ActionTaken(2, "brings in", 2, 2, False), "brings in 2"),
        (ActionTaken(2, "brings in for a full bet", 5, 5, False), "brings in for 5"),
        (ActionTaken(3, "completes", 3, 5, False), "completes to 5"),
        (ActionTaken(1, "bets", 10, 10, False), "bets 10"),
        (ActionTaken(1, "raises", 13, 15, False), "raises to 15"),
        (ActionTaken(1, "raises", 8, 15, True), "raises to 15, all-in"),
        (ActionTaken(2, "calls", 8, 10, False), "calls 8"),
        (ActionTaken(2, "calls", 4, 6, True), "calls 4, all-in"),
        (
            ActionTaken(3, "raises all-in (short)", 6, 11, True),
            "goes all-in to 11, short of a full bet",
        ),
        (ActionTaken(3, "checks", 0, 0, False), "checks"),
        (ActionTaken(3, "folds", 0, 5, False), "folds"),
    ],
)
def test_every_action_is_said_in_the_tables_convention(action: ActionTaken, said: str) -> None:
    """An amount after "to" is the level the seat's bet comes to this round; any other amount
    is the chips the action put in (a bet's and a bring-in's are both); an all-in says so once.
    The announcement and recall say the same words."""
    assert action_words(action) == said
    assert announce(action) == f"Seat {action.seat} {said}."
    assert describe(action) == f"  seat {action.seat} {said}"


def test_a_ten_reads_10_in_every_form_the_screen_draws() -> None:
    """A ten is ``10`` as on the card, never the code's ``T``: flat in a seat box and in the
    showdown's list of hands, on the board, two lines tall, edge to edge, and in the log strip's
    announcements."""
    ten, nine = Card.parse("Td"), Card.parse("9c")
    assert ten.face == "10♦"
    assert all(card.face.startswith("10") == (card.rank is Rank.TEN) for card in DECK)
    assert render.card_text(ten).plain == "10♦"
    assert render.cards_text((FACE_DOWN, ten, nine)).plain == "▚▞ 10♦ 9♣"
    assert render.compact_cards_text((FACE_DOWN, ten, nine)).plain == "▚10♦9♣"
    assert render.tall_cards_text((ten,)).plain == "10 \n ♦ "
    assert render.seat_body(SeatView(1, stack=5, cards=(ten, nine)), width=20).plain == (
        "10♦ 9♣\nstack 5"
    )
    # Flat, a ten is a cell wider: the seat box measures the cards, not their count.
    assert render.fitted_cards_text((ten, nine), 6, tall=False).plain == "10♦ 9♣"
    assert render.fitted_cards_text((ten, nine), 5, tall=False).plain == "10♦9♣"
    t = table("five-card-stud")
    events = play(t, "new_hand Ah Kd Qc Td 9c 2h")
    assert announce(next(e for e in events if getattr(e, "card", "") == "Td")) == (
        "Seat 1 gets 10♦ face up."
    )
    every_text = " ".join(announce(e) for e in events)
    assert not re.search(r"(?<![0-9A-Za-z])T[cdhs♠♥♦♣]", every_text), every_text


def test_the_showdown_list_draws_a_ten_as_the_seat_boxes_do() -> None:
    """The list of hands turned up and the seat boxes draw the same cards the same way."""
    cards = (Card.parse("Ts"), Card.parse("Th"), Card.parse("4c"))
    showdown = ShowdownView((ShownHand(3, cards, "pair of tens"),), ())
    assert render.shown_hands_text(showdown).plain.split("\n")[0] == "  Seat 3  10♠ 10♥ 4♣"
    assert render.seat_body(SeatView(3, cards=cards)).plain.split("\n")[0] == "10♠ 10♥ 4♣"


def test_each_game_has_one_display_name_every_surface_shows() -> None:
    """One name a game, its spec's, in title case ("Five-Card Stud"): the announcement of a
    hand (the display's log strip, the log) and recall's head show it, though the journal keeps
    the game's key; a key of no game known is shown as journaled."""
    for key, spec in GAMES.items():
        words = re.split(r"[ -]", spec.name)
        assert all(word[:1].isupper() or word[:1].isdigit() for word in words), spec.name
        started = HandStarted(7, key, (1, 2), 1, ())
        assert announce(started).startswith(f"Hand 7, {spec.name}: seats 1, 2 dealt in")
        head = format_hand(HandRecord(7, key, "2026-12-06T10:00:00Z")).split("\n")[0]
        assert head == f"Hand 7, {spec.name}, 2026-12-06T10:00:00Z (in progress)"
    assert len({spec.name.lower() for spec in GAMES.values()}) == len(GAMES)
    assert GAMES["five-card-stud"].name == "Five-Card Stud"
    assert GAMES["mambo"].name == "Mambo Stud"
    assert GAMES["triple-draw"].name == "Triple Draw 2-7"
    assert announce(HandStarted(7, "omaha", (1, 2), 1, ())).startswith("Hand 7, omaha: ")
