"""Pots and side pots, the rake and odd chips, tested on the pure arithmetic of
``controller.poker.engine.pots`` (rules-interpretation.md, Betting structure and Odd chips).
"""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tablehelp import STAKES

from controller.poker.cards import parse_cards
from controller.poker.engine import ConfigError, Stakes
from controller.poker.engine.pots import Pot, build_pots, divide, settle_pots
from controller.poker.games import GAMES
from controller.poker.games.spec import OddChip, Rated, Showdown, ShowdownShare
from controller.poker.hands import HandValue, five_card_high, three_card_high

pytestmark = pytest.mark.fast


def _value(strength: int, cards: str) -> HandValue:
    return HandValue(strength, parse_cards(cards), "test hand")


def test_notes_betting_structure_each_all_in_level_closes_a_side_pot() -> None:
    """Seat 1 all-in for 10, seat 2 for 30, seats 3 and 4 for 50, seat 5 folded after 20:
    the main pot of 50 for all still in, side pots of 70 (seat 5's 20 in it) and 40.
    """
    committed = {1: 10, 2: 30, 3: 50, 4: 50, 5: 20}
    pots = build_pots(committed, live=[1, 2, 3, 4])
    assert [(p.amount, p.eligible, p.returned) for p in pots] == [
        (50, (1, 2, 3, 4), False),
        (70, (2, 3, 4), False),
        (40, (3, 4), False),
    ]
    assert sum(p.amount for p in pots) == sum(committed.values())


def test_an_uncalled_bet_is_returned_to_its_owner() -> None:
    """Seat 2 bets 10 more than anyone called: those 10 are a returned pot, never raked."""
    pots = build_pots({1: 5, 2: 15, 3: 5}, live=[1, 2])
    assert [(p.amount, p.eligible, p.returned) for p in pots] == [
        (15, (1, 2), False),
        (10, (2,), True),
    ]
    stakes = dataclasses.replace(STAKES, rake_percent=100)
    results, rake = settle_pots(
        committed={1: 5, 2: 15, 3: 5},
        live=[2],
        order=[1, 2, 3],
        stakes=dataclasses.replace(stakes, rake_without_showdown=True),
        showdown=Showdown(
            shares=(ShowdownShare("high", five_card_high, OddChip.HIGHEST_CARD_BY_SUIT, "x"),)
        ),
        rated={},
    )
    assert rake == 15  # the contested 15, not the returned 10
    assert [(r.amount, r.rake, r.returned) for r in results] == [(15, 15, False), (10, 0, True)]


def test_notes_betting_structure_a_rake_cap_off_the_smallest_chip_is_refused() -> None:
    """rules-interpretation.md, Betting structure: pots are divided in smallest chips, so a rake cap
    of 3 with a chip of 2 (it would leave one chip of a 47-chip pot to no one) is refused, the
    message naming the key, the value and the chip; a cap of 4 is taken.
    """
    posted = {"ante": 2, "bring_in": 2, "small_bet": 4, "big_bet": 8, "chip": 2}
    with pytest.raises(ConfigError, match=r"rake_cap=3; .*multiple of the smallest chip 2"):
        Stakes(**posted, rake_percent=10, rake_cap=3)
    stakes = Stakes(**posted, rake_percent=10, rake_cap=4)
    showdown = Showdown((ShowdownShare("high", five_card_high, OddChip.HIGHEST_CARD_BY_SUIT, ""),))
    results, rake = settle_pots(
        committed={1: 24, 2: 24},
        live=[1, 2],
        order=[1, 2],
        stakes=stakes,
        showdown=showdown,
        rated={"high": {1: _value(2, "As Ad 9c 5h 2d"), 2: _value(1, "Kc Qd 9h 5s 2c")}},
    )
    assert (rake, [(a.seat, a.amount) for a in results[0].awards]) == (4, [(1, 44)])


def test_14_13a_j_2_an_excess_of_several_chips_goes_whole_to_one_tied_player() -> None:
    """14.13A(j)2 ("the excess amount ... shall be given to the player with the highest
    ranking high poker card by suit"; docs/rules-interpretation.md, Odd chips): four A-K-Q
    straights tie for a pot of 11 with no qualifying low; each gets 2 and the excess of 3
    chips goes whole to the ace of spades (seat 1), not one chip each to three players.
    """
    hands = {1: "As Kh Qd", 2: "Ah Kd Qc", 3: "Ad Kc Qs", 4: "Ac Ks Qh"}
    rated = {
        "high": {seat: three_card_high(parse_cards(cards)) for seat, cards in hands.items()},
        "low": dict.fromkeys(hands),
    }
    result = divide(
        Pot(11, (1, 2, 3, 4)),
        name="main pot",
        rake=0,
        showdown=GAMES["mambo"].showdown,
        rated=rated,
        order=[1, 2, 3, 4],
        chip=1,
    )
    assert {a.seat: a.amount for a in result.awards} == {1: 5, 2: 2, 3: 2, 4: 2}
    assert [(o.seat, o.chips, o.rule) for o in result.odd_chips] == [(1, 3, "14.13A(j)2")]


def test_notes_odd_chips_triple_draw_first_tied_player_clockwise_from_the_button() -> None:
    """rules-interpretation.md, Odd chips (triple draw): three tied
    winners share 10; the odd chip goes to the first of them clockwise from the button.
    """
    share = ShowdownShare(
        "low", five_card_high, OddChip.FIRST_LEFT_OF_BUTTON, "rules-interpretation.md, Odd chips"
    )
    rated = {
        "low": {
            2: _value(7, "2c 3c 4c 5c 7d"),
            5: _value(7, "2d 3d 4d 5d 7c"),
            6: _value(7, "2h 3h 4h 5h 7s"),
        }
    }
    result = divide(
        Pot(10, (2, 5, 6)),
        name="main pot",
        rake=0,
        showdown=Showdown(shares=(share,)),
        rated=rated,
        order=[5, 6, 2],  # the button sits at seat 4: seat 5 is first to its left
        chip=1,
    )
    assert {a.seat: a.amount for a in result.awards} == {2: 3, 5: 4, 6: 3}
    assert [(o.seat, o.chips) for o in result.odd_chips] == [(5, 1)]


def _rated(game: str, hands: dict[int, str]) -> dict[str, dict[int, Rated | None]]:
    shares = GAMES[game].showdown.shares
    return {
        share.name: {seat: share.evaluate(parse_cards(cards)) for seat, cards in hands.items()}
        for share in shares
    }


def test_notes_odd_chips_five_card_stud_more_than_one_odd_chip_goes_one_at_a_time() -> None:
    """rules-interpretation.md, Odd chips: four nine-high straights tie for 11; each gets 2 and the
    three odd chips go one at a time by the next highest card by suit: the nines of spades, hearts
    and diamonds, one each; no player receives more than one, the nine of clubs none."""
    hands = {
        1: "9c 8s 7h 6d 5c",
        2: "9d 8c 7s 6h 5d",
        3: "9s 8h 7d 6c 5s",
        4: "9h 8d 7c 6s 5h",
    }
    result = divide(
        Pot(11, (1, 2, 3, 4)),
        name="main pot",
        rake=0,
        showdown=GAMES["five-card-stud"].showdown,
        rated=_rated("five-card-stud", hands),
        order=[1, 2, 3, 4],
        chip=1,
    )
    assert {a.seat: a.amount for a in result.awards} == {1: 2, 2: 3, 3: 3, 4: 3}
    assert [(o.seat, o.chips, o.rule) for o in result.odd_chips] == [
        (3, 1, "rules-interpretation.md, Odd chips"),  # the nine of spades
        (4, 1, "rules-interpretation.md, Odd chips"),  # the nine of hearts
        (2, 1, "rules-interpretation.md, Odd chips"),  # the nine of diamonds
    ]


def test_notes_odd_chips_triple_draw_more_than_one_odd_chip_goes_one_at_a_time_clockwise() -> None:
    """rules-interpretation.md, Odd chips: three tied seven-fives share 11; each gets 3 and the two
    odd chips go to the first and the next tied player clockwise from the button (seats 5, 6), one
    each.
    """
    hands = {2: "7c 5c 4c 3c 2d", 5: "7d 5d 4d 3d 2h", 6: "7h 5h 4h 3h 2s"}
    result = divide(
        Pot(11, (2, 5, 6)),
        name="main pot",
        rake=0,
        showdown=GAMES["triple-draw"].showdown,
        rated=_rated("triple-draw", hands),
        order=[5, 6, 2],  # the button sits at seat 4: seat 5 is first to its left
        chip=1,
    )
    assert {a.seat: a.amount for a in result.awards} == {2: 3, 5: 4, 6: 4}
    assert [(o.seat, o.chips) for o in result.odd_chips] == [(5, 1), (6, 1)]


def test_notes_odd_chips_each_pot_main_or_side_is_divided_on_its_own() -> None:
    """rules-interpretation.md, Odd chips: seat 3 is all-in for 5, seats 1 and 2 put in 10, seat 4
    folded after 8. Three tied hands share the main pot of 20 (6 each, its two odd chips to seats 1
    and 2, clockwise from the button); the side pot of 13 is seats 1's and 2's alone (6 each,
    its odd chip to seat 1). Merged, 33 would have divided otherwise."""
    hands = {1: "7c 5c 4c 3c 2d", 2: "7d 5d 4d 3d 2h", 3: "7h 5h 4h 3h 2s"}
    pots, _ = settle_pots(
        committed={1: 10, 2: 10, 3: 5, 4: 8},
        live=[1, 2, 3],
        order=[1, 2, 3, 4],
        stakes=Stakes(small_bet=2, big_bet=4, small_blind=1, big_blind=2),
        showdown=GAMES["triple-draw"].showdown,
        rated=_rated("triple-draw", hands),
    )
    assert [(p.amount, p.eligible) for p in pots] == [(20, (1, 2, 3)), (13, (1, 2))]
    assert [{a.seat: a.amount for a in p.awards} for p in pots] == [
        {1: 7, 2: 7, 3: 6},
        {1: 7, 2: 6},
    ]
    assert [[(o.seat, o.chips) for o in p.odd_chips] for p in pots] == [[(1, 1), (2, 1)], [(1, 1)]]


@given(
    st.dictionaries(st.integers(1, 9), st.integers(0, 200), min_size=2, max_size=9),
    st.data(),
)
def test_side_pots_hold_every_chip_and_only_eligible_seats_share_them(
    committed: dict[int, int], data: st.DataObject
) -> None:
    """rules-interpretation.md, Betting structure: whatever the commitments, the pots add up to
    every chip put in, and a pot's eligible seats are seats still in that put in at least its level.
    """
    seats = sorted(committed)
    live = data.draw(st.lists(st.sampled_from(seats), min_size=1, unique=True).map(sorted))
    if max(committed.values()) == 0:
        return
    top_live = max(committed[s] for s in live)
    if any(committed[s] > top_live for s in seats):
        return  # a folded seat cannot have put in more than every seat still in
    pots = build_pots(committed, live)
    assert sum(p.amount for p in pots) == sum(committed.values())
    for pot in pots:
        assert pot.eligible
        assert set(pot.eligible) <= set(live)
