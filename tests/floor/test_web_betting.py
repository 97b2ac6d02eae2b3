"""The betting fold the floor page, the replay and the feeds share (controller/floor/web/
betting.py), through every fixture game's real journal (tests/fixtures/README.md): the pot it
adds up from the antes, blinds and bets is, at each round's end, the pot the engine counted."""

from __future__ import annotations

import pytest
from floorhelp import fixture_lines

from controller.floor.web.betting import ALL_IN, FOLDED, Betting
from controller.journal import schema
from controller.journal import tablerecords as rec
from controller.journal.record import parse_line
from controller.poker.engine import events as ev

GAMES = ("mambo", "five-card-stud", "triple-draw")


def events_of(game: str) -> list[ev.Event]:
    return [
        event
        for record in map(parse_line, fixture_lines(game))
        if record.kind in rec.DECISIONS
        for event in schema.decode_events(record)
    ]


@pytest.mark.fast
@pytest.mark.parametrize("game", GAMES)
def test_the_pot_added_up_is_the_engine_s_at_every_round_s_end(game: str) -> None:
    betting, rounds = Betting(), 0
    for event in events_of(game):
        if isinstance(event, ev.HandStarted):
            betting = Betting()
        if isinstance(event, ev.RoundCompleted):
            assert betting.pot == event.pot, (game, event)
            rounds += 1
        betting.follow(event)
    assert rounds > 3, "the fixture completes rounds"


@pytest.mark.fast
def test_a_street_clears_the_bets_and_the_seat_to_act_and_a_fold_stays_for_the_hand() -> None:
    betting, folds = Betting(), 0
    for event in events_of("mambo"):
        if isinstance(event, ev.HandStarted):
            betting = Betting()
        betting.follow(event)
        if isinstance(event, ev.StreetStarted):
            assert (betting.street, betting.bets, betting.to_act) == (event.street, {}, None)
        elif isinstance(event, ev.ActionRequired):
            assert betting.to_act == event.seat
        elif isinstance(event, ev.ActionTaken):
            assert betting.bets[event.seat] == event.round_total
            assert betting.to_act is None
            folds += event.action == "folds"
            if event.action == "folds":
                assert betting.status[event.seat] == FOLDED
    assert folds, "the fixture has a fold"


@pytest.mark.fast
def test_blinds_add_to_the_seat_s_bet_and_an_all_in_is_marked() -> None:
    betting = Betting()
    antes = (ev.SeatAmount(1, 1), ev.SeatAmount(2, 1))
    betting.follow(ev.HandStarted(1, "mambo", (1, 2, 3), dealer=1, antes=antes))
    betting.follow(ev.BlindPosted(2, "small", 5, all_in=False))
    betting.follow(ev.ActionTaken(3, "raises", 20, 20, all_in=True))
    assert (betting.pot, betting.bets, betting.status) == (27, {2: 5, 3: 20}, {3: ALL_IN})
