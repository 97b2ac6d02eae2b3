"""Five-card stud as 14.13(a)-(h) deal it, played through the engine hand by hand."""

from __future__ import annotations

import pytest
from tablehelp import STAKES, net, of_kind, play, settlement, table

from controller.display.render import prompt_text
from controller.poker.announce import announce
from controller.poker.engine import ConfigError, TableSetup
from controller.poker.engine.events import (
    ActionRequired,
    CardExpected,
    Refused,
    RoundStarted,
    Showdown,
    StreetStarted,
)
from controller.poker.games import GAMES
from controller.poker.inputs import Button, ButtonPress
from controller.table.paneltext import panel_line
from controller.table.viewbuilder import action_prompt

pytestmark = pytest.mark.fast

# Seats 1, 2, 3, dealer before seat 1: dealt in the order 1, 2, 3.
DEAL_TWO = "new_hand Ah Kd Qc 9s 2c 2h"  # downs A K Q; ups 9s 2c 2h: seat 2's 2c brings in


def test_14_13_b_at_most_eight_players() -> None:
    """14.13(b): a ninth seat is refused, naming the seats and the limit."""
    with pytest.raises(ConfigError, match=r"seats \[9\].*at most 8"):
        TableSetup(seats=(1, 2, 9), stakes=STAKES).validate(GAMES["five-card-stud"])


def test_14_13_c_one_down_then_one_up_from_the_first_player_left_of_the_dealer() -> None:
    """14.13(c): with the dealer after seat 3, seat 4 gets the first card; a round down, then up."""
    t = table("five-card-stud", seats=(1, 2, 4, 6), dealer=3)
    events = play(t, "new_hand")
    expected = [(e.seat, e.face) for e in of_kind(events, CardExpected)]
    assert expected == [(4, "down")]
    destinations = []
    for card in ("Ah", "Kd", "Qc", "Js", "Th", "9d", "8c", "7s"):
        destinations += [(e.seat, e.face) for e in of_kind(play(t, card), CardExpected)]
    assert destinations == [
        (6, "down"), (1, "down"), (2, "down"),
        (4, "up"), (6, "up"), (1, "up"), (2, "up"),
    ]  # fmt: skip


def test_14_13_d_lowest_up_card_brings_in_with_suit_ties() -> None:
    """14.13(d), 14.9(d) via rules-interpretation.md, Cards: two deuces up; the deuce of clubs
    brings in."""
    t = table("five-card-stud")
    events = play(t, DEAL_TWO)
    started = of_kind(events, RoundStarted)[0]
    assert (started.opener, started.forced) == (2, True)
    assert announce(of_kind(events, ActionRequired)[0]) == (
        "Seat 2 brings in: lowest up-card 2 of clubs"
    )
    options = {o.button: o.amount for o in t.pending.options}
    assert options == {"check_call": 2, "bet_raise": 5}  # bring in 2, or a full small bet


def test_14_13_d_ace_is_high_for_the_bring_in() -> None:
    """14.13(d), rules-interpretation.md, Forced bets: ace high, so an up ace never brings in over a
    three."""
    t = table("five-card-stud")
    events = play(t, "new_hand Kh Kd Qc As 3c 4h")
    assert of_kind(events, RoundStarted)[0].opener == 2


def test_14_13_e_round_ends_when_the_last_player_has_responded() -> None:
    """14.13(e): bring-in, call, complete, call, call: the round is complete, the burn is next."""
    t = table("five-card-stud")
    play(t, DEAL_TWO + " check_call check_call bet_raise check_call")
    assert isinstance(t.pending, ActionRequired)
    assert t.pending.seat == 3
    events = play(t, "check_call")
    assert of_kind(events, StreetStarted)[0].street == "third street"
    assert isinstance(t.pending, CardExpected)
    assert t.pending.destination == "burn"


def test_14_13_f_burn_then_one_card_up_only_to_players_who_called() -> None:
    """14.13(f): seat 1 folds; after the burn, the up-cards go to seats 2 and 3 only."""
    t = table("five-card-stud")
    # Bring-in by seat 2; seat 3 calls; seat 1 folds.
    play(t, DEAL_TWO + " check_call check_call fold")
    assert (t.pending.destination, t.pending.seat) == ("burn", None)
    seen = [(e.destination, e.seat, e.face) for e in of_kind(play(t, "5d 6d"), CardExpected)]
    assert seen == [("seat", 2, "up"), ("seat", 3, "up")]


def test_14_13_f_highest_hand_showing_opens_and_ties_go_left_of_the_dealer() -> None:
    """14.13(f): seats 1 and 3 both show K-7; seat 1, closest to the dealer's left, opens
    though seat 3 holds the spade king (suits do not break this tie, rules-interpretation.md, High
    hands).
    """
    t = table("five-card-stud")
    play(t, "new_hand 2h 3d 4c Kh 2c Ks check_call check_call check_call")
    events = play(t, "5d 7d 8c 7c")
    started = of_kind(events, RoundStarted)[0]
    assert started.opener == 1
    assert started.reason.startswith("highest hand showing")


def test_14_13_f_a_pair_showing_beats_a_higher_card() -> None:
    """14.13(f): a pair of fours showing opens over ace-king."""
    t = table("five-card-stud")
    play(t, "new_hand 2h 3d 5c As 4c 9s check_call check_call check_call")
    events = play(t, "5d Kd 4d 8c")
    assert of_kind(events, RoundStarted)[0].opener == 2


def test_14_13_g_burn_before_each_of_the_two_last_streets() -> None:
    """14.13(g): fourth and fifth streets are each preceded by a burn and dealt face up."""
    t = table("five-card-stud", seats=(1, 2))
    play(t, "new_hand 2h 3d Kh 2c check_call check_call")  # bring-in 2c, call
    play(t, "5d 6d 7d bet_raise check_call")  # third street: seat 1 bets, seat 2 calls
    events = play(t, "8d")
    assert [(e.destination, e.seat, e.face) for e in of_kind(events, CardExpected)] == [
        ("seat", 1, "up")
    ]
    play(t, "9d Td bet_raise check_call")
    assert t.pending.destination == "burn"


def test_14_13_h_showdown_the_highest_five_card_hand_wins() -> None:
    """14.13(h): seat 1's pair of kings beats seat 2's ace high; seat 1 wins the antes and bets.

    Each later round's opener bets and the other calls (14.13(f)): 28 from each seat.
    """
    t = table("five-card-stud", seats=(1, 2))
    events = play(
        t,
        "new_hand Kh 3d Kc 2c check_call check_call"  # downs Kh 3d, ups Kc 2c
        " 5d 6d 7s bet_raise check_call"  # burn 5d; seat 1 (K-6) bets 5
        " 8d 9c Jh bet_raise check_call"  # burn 8d; seat 1 (K-9-6) bets 10
        " Td Qs As bet_raise check_call",  # burn Td; seat 2 (A-J-7-2) bets 10
    )
    shown = of_kind(events, Showdown)[0]
    assert {h.seat: h.description for h in shown.hands}[1] == "pair of kings"
    assert net(events) == {1: 28, 2: -28}


def test_a_hand_everyone_else_folds_ends_at_once_without_a_showdown() -> None:
    """Fixed-limit betting: when all but one fold, the hand is settled at once, no showdown."""
    t = table("five-card-stud")
    events = play(t, DEAL_TWO + " check_call fold fold")
    assert not of_kind(events, Showdown)
    settled = settlement(events)
    assert settled.uncontested
    assert net(events) == {1: -1, 2: 2, 3: -1}


def test_notes_odd_chips_five_card_stud_odd_chip_to_the_highest_card_by_suit() -> None:
    """rules-interpretation.md, Odd chips: two identical straights split an odd pot of 59; the
    holder of the ace of spades gets the odd chip.
    """
    t = table("five-card-stud", seats=(1, 2, 3))
    events = play(
        t,
        # downs As Ah 2d, ups Kd Kc 3c: seat 3 brings in, all call; pot 3 antes + 3 x 2 = 9.
        "new_hand As Ah 2d Kd Kc 3c check_call check_call check_call"
        " 4h Qs Qd 5c bet_raise check_call fold"  # seat 1 opens by position and bets
        " 4d Jd Js bet_raise check_call"
        " 4s Th Tc bet_raise check_call",  # seats 1 and 2: ace-high straights
    )
    settled = settlement(events)
    pot = settled.pots[0]
    assert pot.amount == 59
    assert {a.seat: a.amount for a in pot.awards} == {1: 30, 2: 29}
    assert [(o.seat, o.chips, o.rule) for o in pot.odd_chips] == [
        (1, 1, "rules-interpretation.md, Odd chips")
    ]


def test_notes_odd_chips_five_card_stud_a_five_high_straight_plays_the_five_as_its_highest() -> (
    None
):
    """rules-interpretation.md, Odd chips; docs/rules-interpretation.md, Odd chips: two 5-4-3-2-A
    straights split an odd pot of 57. The ace plays low, so each hand's highest card is its five:
    the five of spades (seat 2) gets the odd chip, not the ace of spades (seat 1).
    """
    t = table("five-card-stud", seats=(1, 2, 3))
    events = play(
        t,
        # downs As Ah Kh, ups 2c 2d Kc: seat 1 brings in, seat 2 calls, seat 3 folds: pot 7.
        "new_hand As Ah Kh 2c 2d Kc check_call check_call fold"
        " Qh 3d 3h bet_raise check_call Qd 4h 4c bet_raise check_call"
        " Qc 5c 5s bet_raise check_call",
    )
    pot = settlement(events).pots[0]
    assert (pot.amount, pot.shares[0].description) == (57, "five-high straight")
    assert {a.seat: a.amount for a in pot.awards} == {1: 28, 2: 29}
    assert [(o.seat, o.chips, o.rule) for o in pot.odd_chips] == [
        (2, 1, "rules-interpretation.md, Odd chips")
    ]


def test_14_13_f_an_all_in_opener_the_next_seat_is_told_why_it_acts() -> None:
    """14.13(f); docs/rules-interpretation.md, Who opens a later round: seat 1 is all-in and
    shows the pair of aces, so it opens but cannot act; seat 2 (2c 9h showing) acts first,
    free to check, and the prompt, the display and the panel say why it is seat 2, not that
    seat 2 shows the highest hand.
    """
    t = table("five-card-stud", seats=(1, 2, 3), stacks={1: 3})
    # Ups As 2c 9d: seat 2 brings in, seat 3 calls, seat 1 calls its last 2 all-in.
    events = play(t, "new_hand Kh Kc Qd As 2c 9d check_call check_call check_call 7s Ad 9h 8c")
    pending = t.pending
    assert isinstance(pending, ActionRequired)
    expected = "seat 1, highest hand showing, pair of aces, is all-in"
    assert (pending.seat, pending.reason) == (2, expected)
    assert announce(events[-1]) == f"Seat 2 to act ({expected}): fold, check, bet 5."
    prompt = action_prompt(pending)
    assert prompt is not None
    assert prompt_text(prompt).plain.startswith(expected + "\n")
    assert panel_line(pending, []) == (2, "S2: fold/check/bet 5")


def test_14_13_d_a_bring_in_seat_all_in_on_the_ante_the_next_seat_is_told_why_it_acts() -> None:
    """14.13(d); docs/rules-interpretation.md, Bring-in: seat 2 has the lowest up-card but
    went all-in on the ante; seat 3 opens the round unforced and is told that seat 2, the
    low card, is all-in (not that seat 3 holds the lowest up-card).
    """
    t = table("five-card-stud", seats=(1, 2, 3), stacks={2: 1})
    events = play(t, "new_hand Kh Kc Qd As 2c 9d")
    expected = "Seat 3 to act (seat 2, lowest up-card 2 of clubs, is all-in): fold, check, bet 5."
    assert announce(events[-1]) == expected


def test_14_13_f_the_opener_of_a_later_round_is_required_to_bet() -> None:
    """14.13(f) "shall be required to bet", then (e) fold, call or raise: the opener's only
    button is the bet; check and fold are refused naming the rule, and nothing changes.
    """
    t = table("five-card-stud", seats=(1, 2))
    play(t, "new_hand 2h 3d Kh 2c check_call check_call 5d 6d 7d")
    pending = t.pending
    assert isinstance(pending, ActionRequired)
    assert [(o.button, o.meaning) for o in pending.options] == [("bet_raise", "bet 5")]
    before = t.state
    for button in (Button.CHECK_CALL, Button.FOLD):
        refused = t.apply(ButtonPress(button))[0]
        assert isinstance(refused, Refused)
        assert refused.reason == "seat 1 opens this round and must bet (14.13(f))"
        assert t.state == before
    play(t, "bet_raise")
    assert {o.button for o in t.pending.options} == {"fold", "check_call", "bet_raise"}
