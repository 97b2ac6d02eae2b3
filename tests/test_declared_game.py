"""Games are declared, not coded: a game the engine has never seen, seven-card stud, is
declared here as data and played through the unchanged engine.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import combinations

import pytest
from tablehelp import STAKES, of_kind, play, settlement

from controller.poker.cards import DECK, Card
from controller.poker.engine import Table, TableSetup
from controller.poker.engine.autoplay import play_hand
from controller.poker.engine.events import CardExpected, Showdown
from controller.poker.games.five_card_stud import highest_hand_showing
from controller.poker.games.openers import lowest_up_card
from controller.poker.games.spec import (
    BetSize,
    BettingRound,
    Face,
    ForcedBet,
    GameSpec,
    OddChip,
    ShowdownShare,
    Street,
)
from controller.poker.games.spec import (
    Showdown as ShowdownSpec,
)
from controller.poker.hands import HandValue, five_card_high

pytestmark = pytest.mark.fast


def best_five_of_seven(cards: Sequence[Card]) -> HandValue:
    """Seven-card stud's showdown: the best five-card high hand of the seven."""
    return max((five_card_high(five) for five in combinations(cards, 5)), key=lambda v: v.strength)


def _street(name: str, face: Face, size: BetSize) -> Street:
    return Street(name, burn=True, deal=(face,), betting=BettingRound(size, highest_hand_showing))


SEVEN_CARD_STUD = GameSpec(
    key="seven-card-stud",
    name="seven-card stud",
    rule="test declaration",
    max_seats=7,
    forced_bet=ForcedBet.BRING_IN,
    streets=(
        Street(
            "third street",
            burn=False,
            deal=(Face.DOWN, Face.DOWN, Face.UP),
            betting=BettingRound(BetSize.SMALL, lowest_up_card, forced=True),
        ),
        _street("fourth street", Face.UP, BetSize.SMALL),
        _street("fifth street", Face.UP, BetSize.BIG),
        _street("sixth street", Face.UP, BetSize.BIG),
        _street("seventh street", Face.DOWN, BetSize.BIG),
    ),
    showdown=ShowdownSpec(
        shares=(ShowdownShare("high", best_five_of_seven, OddChip.HIGHEST_CARD_BY_SUIT, "test"),)
    ),
)


def test_a_seven_card_stud_declared_in_a_test_is_dealt_two_down_one_up_then_to_seventh() -> None:
    """The engine deals the declared game: two down and one up, four more streets, the last
    face down, and the showdown takes the best five of seven.
    """
    t = Table(SEVEN_CARD_STUD, TableSetup(seats=(1, 2), stakes=STAKES))
    events = play(t, "new_hand As Kd Ah Kc 9s 2c")  # downs As Kd Ah Kc, ups 9s 2c
    faces = [e.face for e in of_kind(events, CardExpected)]
    assert faces == ["down", "down", "down", "down", "up", "up"]
    events = play(
        t,
        "check_call check_call"  # 2c brings in, seat 1 calls
        " 3d 9d 3c check_call check_call"  # fourth street: seat 1's nines open
        " 4d 9h 4c check_call check_call"
        " 5d 7s 5c check_call check_call"
        " 6d",
    )
    assert of_kind(events, CardExpected)[-1] == CardExpected("seat", 1, "down")
    events = play(t, "Qh Qs check_call check_call")
    shown = {h.seat: h.description for h in of_kind(events, Showdown)[0].hands}
    assert shown == {1: "nines full of aces", 2: "king-high flush"}
    assert [(n.seat, n.amount) for n in settlement(events).net] == [(1, 3), (2, -3)]


def test_the_declared_game_plays_many_random_hands_conserving_chips() -> None:
    """Two hundred random hands of the declared game: every hand settles and chips are conserved."""
    rng = random.Random(7)
    t = Table(SEVEN_CARD_STUD, TableSetup(seats=(1, 2, 3, 4), stakes=STAKES))
    for _ in range(200):
        deck = list(DECK)
        rng.shuffle(deck)
        events = play_hand(t, deck, lambda pending: rng.choice(pending.options))
        settled = settlement(events)
        assert sum(n.amount for n in settled.net) + settled.rake == 0
