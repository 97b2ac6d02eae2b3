"""Mambo stud as 14.13A(a)-(l) deal and settle it, played through the engine.

Seats 1, 2, 3 with the dealer before seat 1. Each hand is written in dealing
order: the three down cards, the three up-cards, the first round, the burn,
the third cards (face down), the second round, the burn, the community card,
the final round.
"""

from __future__ import annotations

import pytest
from tablehelp import STAKES, net, of_kind, play, settlement, table

from controller.poker.engine import ConfigError, TableSetup
from controller.poker.engine.events import (
    ActionRequired,
    CardExpected,
    Refused,
    RoundStarted,
    Showdown,
)
from controller.poker.games import GAMES
from controller.poker.inputs import Button, ButtonPress

pytestmark = pytest.mark.fast

CHECKS = " check_call check_call check_call"


def test_14_13a_b_at_most_eleven_players() -> None:
    """14.13A(b): eleven seats are dealt; a twelfth is refused."""
    TableSetup(seats=tuple(range(1, 12)), stakes=STAKES).validate(GAMES["mambo"])
    with pytest.raises(ConfigError, match=r"seats \[12\].*at most 11"):
        TableSetup(seats=(1, 12), stakes=STAKES).validate(GAMES["mambo"])


def test_14_13a_d_lowest_up_card_brings_in_ties_by_suit() -> None:
    """14.13A(d): two fives up; the five of clubs (clubs lowest) brings in."""
    t = table("mambo")
    events = play(t, "new_hand Ah Kd Qc 5h 5c 9s")
    started = of_kind(events, RoundStarted)[0]
    assert (started.opener, started.forced, started.reason) == (
        2,
        True,
        "lowest up-card 5 of clubs",
    )


def test_14_13a_f_burn_third_card_down_to_callers_highest_up_card_opens_by_suit() -> None:
    """14.13A(f): seat 4 folds; after the burn seats 1, 2 and 3 get a card face down from the
    dealer's left; two kings up, the king of spades opens the second round.
    """
    t = table("mambo", seats=(1, 2, 3, 4))
    # Ups Kh Ks 2c Qd: seat 3 brings in, seat 4 folds, seats 1 and 2 call.
    play(t, "new_hand 2h 3d 4c 5c Kh Ks 2c Qd check_call fold check_call check_call")
    assert t.pending.destination == "burn"
    events = play(t, "7s 8d 8h")
    expected = [(e.seat, e.face) for e in of_kind(events, CardExpected)]
    assert expected == [(1, "down"), (2, "down"), (3, "down")]  # seat 4 folded: none
    events = play(t, "9d")
    started = of_kind(events, RoundStarted)[0]
    assert (started.opener, started.reason) == (2, "highest up-card king of spades")


def test_14_13a_h_1_pair_with_the_community_card_opens_over_a_higher_up_card() -> None:
    """14.13A(h)1: the community card is a five; seat 2's up five makes a pair and opens over
    seat 1's up ace.
    """
    t = table("mambo")
    play(t, "new_hand 2h 3d 4c As 5d 9s check_call check_call check_call")  # 5d brings in
    play(t, "7s 8d 8h 8c" + CHECKS)  # burn, third cards; As opens, all check
    events = play(t, "7d 5c")  # burn, community 5c
    started = of_kind(events, RoundStarted)[0]
    assert (started.opener, started.reason) == (2, "pair of fives with the community card")


def test_14_13a_h_2_equal_up_cards_go_to_the_player_closest_to_the_dealers_left() -> None:
    """14.13A(h)2: no pair; kings of diamonds (seat 1) and spades (seat 2) tie, and seat 1,
    closest to the dealer's left, opens: suits do not break this tie.
    """
    t = table("mambo")
    play(t, "new_hand Kh Kc Qd Kd Ks 8c check_call check_call check_call")  # 8c brings in
    play(t, "7s 9d 9c 5s" + CHECKS)
    events = play(t, "7h Th")
    started = of_kind(events, RoundStarted)[0]
    assert (started.opener, started.reason) == (1, "highest up-card king")


# Seat 1: Kh Ks 9d; seat 2: Ad 2d 4c; seat 3: Qc 8c 5s; burns 7s 7h; community Th.
SPLIT_HAND = "new_hand Kh Ad Qc Ks 2d 8c" + CHECKS + " 7s 9d 4c 5s" + CHECKS + " 7h Th" + CHECKS


def test_14_13a_j_1_odd_chip_of_the_split_goes_to_the_best_high_hand() -> None:
    """14.13A(j), (j)1: pot 9; kings take the high half 5 with the odd chip, 4-2-A low takes 4."""
    events = play(table("mambo"), SPLIT_HAND)
    pot = settlement(events).pots[0]
    assert pot.amount == 9
    assert [(s.share, s.amount, s.winners) for s in pot.shares] == [
        ("high", 5, (1,)),
        ("low", 4, (2,)),
    ]
    assert [(o.seat, o.chips, o.rule) for o in pot.odd_chips] == [(1, 1, "14.13A(j)1")]
    assert net(events) == {1: 2, 2: 1, 3: -3}


def test_14_13a_k_no_qualifying_low_the_whole_pot_goes_high() -> None:
    """14.13A(k): seat 2's A-2 with a nine and a ten is no six-or-better low: all 9 go high."""
    events = play(table("mambo"), SPLIT_HAND.replace("4c", "9c"))
    shown = of_kind(events, Showdown)[0]
    assert all(not h.qualifies for h in shown.hands if h.share == "low")
    assert {h.description for h in shown.hands if h.share == "low"} == {"no qualifying low"}
    assert net(events) == {1: 6, 2: -3, 3: -3}


def test_14_13a_j_2_tied_high_hands_odd_chip_to_the_highest_card_by_suit() -> None:
    """14.13A(j)2: two pairs of kings with a ten tie for the whole pot of 9 (no low); the king
    of spades holder gets the odd chip. 14.13A(h)2 also: king of diamonds (seat 1) opens the
    final round over the king of spades, by position.
    """
    t = table("mambo")
    events = play(
        t,
        "new_hand Kh Kc Qd Kd Ks 8c" + CHECKS + " 7s 9d 9c 5s" + CHECKS + " 7h Th" + CHECKS,
    )
    assert of_kind(events, RoundStarted)[2].opener == 1
    pot = settlement(events).pots[0]
    assert [(s.share, s.winners) for s in pot.shares] == [("high", (1, 2))]
    assert [(o.seat, o.chips, o.rule) for o in pot.odd_chips] == [(2, 1, "14.13A(j)2")]
    assert net(events) == {1: 1, 2: 2, 3: -3}


def test_14_13a_j_2_a_three_two_ace_straight_plays_the_three_as_its_highest_card() -> None:
    """14.13A(j)2; docs/rules-interpretation.md, Odd chips: heads-up, both seats make 3-2-A,
    a straight for the high half (3 chips) and the best low for the other (3 chips). The ace
    plays low in the straight, so the highest card is the three: the three of spades (seat 2)
    gets the high half's odd chip, not the ace of spades (seat 1). The low's odd chip goes to
    the lowest low card, the ace of hearts (seat 2, 14.13A(j)3).
    """
    t = table("mambo", seats=(1, 2))
    events = play(
        t,
        "new_hand As Ah 2c 2d check_call check_call 7s 3d 3s check_call check_call"
        " 7h Kd check_call check_call",
    )
    pot = settlement(events).pots[0]
    assert [(s.share, s.amount, s.description) for s in pot.shares] == [
        ("high", 3, "three-high straight"),
        ("low", 3, "three-two-ace low"),
    ]
    assert [(o.seat, o.chips, o.rule) for o in pot.odd_chips] == [
        (2, 1, "14.13A(j)2"),
        (2, 1, "14.13A(j)3"),
    ]


def test_14_13a_j_2_tied_hands_sharing_the_highest_card_the_next_highest_decides() -> None:
    """14.13A(j)2; docs/rules-interpretation.md, Odd chips: pot 7 (seat 3 folds), no low, the
    high hands tie as king-high straights whose highest card is the community Ks, the same card
    in both: it decides nothing, so the next highest does: Qh (seat 2) over Qc (seat 1), and
    seat 2 gets the odd chip (not seat 1, first in the dealing order)."""
    t = table("mambo")
    events = play(
        t,
        "new_hand Qc Qh 9c Jd Js Ah check_call check_call fold"  # Jd brings in, 2 calls, 3 folds
        " 7s 4c 5d check_call check_call"  # burn, third cards
        " 7h Ks check_call check_call",  # burn, community Ks
    )
    pot = settlement(events).pots[0]
    assert pot.amount == 7
    assert [(s.share, s.amount, s.winners, s.description) for s in pot.shares] == [
        ("high", 7, (1, 2), "king-high straight"),
    ]
    assert [(o.seat, o.chips, o.rule) for o in pot.odd_chips] == [(2, 1, "14.13A(j)2")]
    assert net(events) == {1: 0, 2: 1, 3: -1}


def test_14_13a_j_3_tied_low_hands_odd_chip_to_the_lowest_low_card_by_suit() -> None:
    """14.13A(j)3: pot 7 (seat 3 folds); seat 1's ace-king high takes 4 with the split's odd
    chip; both 4-2-A lows tie for 3, and the ace of clubs (seat 1) gets the odd low chip.
    """
    t = table("mambo")
    events = play(
        t,
        "new_hand Ac Ad 9c 4d 4h Js check_call check_call fold"  # 4d brings in, 2 calls, 3 folds
        " 7s Kc Qs check_call check_call"  # burn, third cards; 4h opens
        " 7h 2h check_call check_call",  # burn, community 2h; 4d opens by position
    )
    pot = settlement(events).pots[0]
    assert pot.amount == 7
    assert [(s.share, s.amount, s.winners) for s in pot.shares] == [
        ("high", 4, (1,)),
        ("low", 3, (1, 2)),
    ]
    assert [(o.seat, o.chips, o.rule) for o in pot.odd_chips] == [
        (1, 1, "14.13A(j)1"),
        (1, 1, "14.13A(j)3"),
    ]
    assert net(events) == {1: 3, 2: -2, 3: -1}


def test_14_13a_l_1_two_three_four_is_a_straight_high_and_a_low_and_scoops() -> None:
    """14.13A(l)1: seat 1's 2-3-4 is the best high (a straight over queens) and the only low."""
    t = table("mambo")
    events = play(
        t,
        "new_hand 2c Qc 9h 3d Qh Jc check_call check_call fold"  # 3d brings in, 2 calls, 3 folds
        " 7s 4h 9s check_call check_call"
        " 7h Ks check_call check_call",
    )
    pot = settlement(events).pots[0]
    assert [(s.share, s.winners) for s in pot.shares] == [("high", (1,)), ("low", (1,))]
    shown = {(h.seat, h.share): h for h in of_kind(events, Showdown)[0].hands}
    assert set(shown[1, "high"].cards) == set(shown[1, "low"].cards) == {"2c", "3d", "4h"}
    assert net(events) == {1: 4, 2: -3, 3: -1}


def test_14_13a_l_2_ace_four_five_suited_is_a_flush_high_and_a_low() -> None:
    """14.13A(l)2: A-4-5 of one suit is seat 1's flush for high and its five-four-ace low."""
    t = table("mambo", seats=(1, 2))
    events = play(
        t,
        "new_hand Ah Qc 4h Qd check_call check_call"  # 4h brings in, 2 calls
        " 7s 5h 9s check_call check_call"
        " 7d Kc check_call check_call",
    )
    shown = {(h.seat, h.share): h for h in of_kind(events, Showdown)[0].hands}
    assert set(shown[1, "high"].cards) == set(shown[1, "low"].cards) == {"Ah", "4h", "5h"}
    assert net(events) == {1: 3, 2: -3}


def test_14_13a_f_the_opener_must_bet_or_check_and_may_not_fold() -> None:
    """14.13A(f) "shall be required to bet or check": the second round's opener may check or
    bet; fold is refused naming the rule.
    """
    t = table("mambo", seats=(1, 2))
    play(t, "new_hand 2h 3d Kh 2c check_call check_call 5d 6d 7d")
    pending = t.pending
    assert isinstance(pending, ActionRequired)
    assert [o.meaning for o in pending.options] == ["check", "bet 5"]
    refused = t.apply(ButtonPress(Button.FOLD))[0]
    assert isinstance(refused, Refused)
    assert refused.reason == "seat 1 opens this round and must bet or check (14.13A(f))"
