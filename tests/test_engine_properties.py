"""Properties over thousands of random legal hands of each game (hypothesis).

Each example sets a table (2 to the game's seat limit, known and unknown
stacks, short stacks for all-ins, a rake) and plays several hands with a
shuffled deck and random legal buttons, checking after every hand that chips
are conserved exactly, no card is dealt twice, exactly one seat is named
whenever a decision is pending, and the cards are expected in the order the
spec's procedure gives; and that the whole run, written as a hand script and
replayed at a fresh table, gives the same events and the same state.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.cards import DECK
from controller.engine import Stakes, Table, TableConfig
from controller.engine.autoplay import play_hand
from controller.engine.events import (
    ActionRequired,
    ActionTaken,
    CardDealt,
    Event,
    HandSettled,
    HandStarted,
    StreetStarted,
)
from controller.games import GAMES
from controller.games.spec import GameSpec
from controller.inputs import TableInput
from controller.script import parse_script, write_script

HANDS_PER_EXAMPLE = 20
EXAMPLES = 50  # x 20 hands: 1000 random hands of each game in the default run
SOAK_EXAMPLES = 600  # the slow soak: 12000 hands of each game


def _expected_order(
    spec: GameSpec, events: list[Event]
) -> list[tuple[str, int | None, str | None]]:
    """The card destinations the procedure gives, rebuilt from the spec and the folds seen."""
    order = next(e for e in events if isinstance(e, HandStarted)).seats
    folded: set[int] = set()
    expected: list[tuple[str, int | None, str | None]] = []
    for event in events:
        if isinstance(event, ActionTaken) and event.action == "folds":
            folded.add(event.seat)
        elif isinstance(event, StreetStarted):
            street = spec.streets[event.number - 1]
            if street.burn:  # 14.13(f),(g), 14.13A(f),(h)
                expected.append(("burn", None, None))
            for face in street.deal:  # 14.13(c),(f), 14.13A(c),(f): players still in, in order
                expected += [("seat", s, face.value) for s in order if s not in folded]
            expected += [("community", None, "up")] * street.community
    return expected


def _check_hand(
    spec: GameSpec, table: Table, events: list[Event], stacks_before: dict[int, int | None]
) -> None:
    settled = [e for e in events if isinstance(e, HandSettled)]
    assert len(settled) == 1
    hand = settled[0]
    # Chips are conserved exactly: every seat's result plus the rake is zero.
    assert sum(n.amount for n in hand.net) + hand.rake == 0
    for entry in hand.net:
        before = stacks_before[entry.seat]
        if before is not None:
            assert table.stacks[entry.seat] == before + entry.amount
            assert table.stacks[entry.seat] >= 0
    # No card is dealt twice.
    dealt = [e.card for e in events if isinstance(e, CardDealt)]
    assert len(dealt) == len(set(dealt))
    # Cards came in the order the procedure gives.
    got = [(e.destination, e.seat, e.face) for e in events if isinstance(e, CardDealt)]
    assert got == _expected_order(spec, events)[: len(got)]
    # Exactly one seat is named whenever a decision is pending, and it may act.
    folded: set[int] = set()
    for event in events:
        if isinstance(event, ActionTaken) and event.action == "folds":
            folded.add(event.seat)
        if isinstance(event, ActionRequired):
            assert isinstance(event.seat, int)
            assert event.seat not in folded
            assert event.options


def _table(spec: GameSpec, data: st.DataObject) -> Table:
    count = data.draw(st.integers(2, spec.max_seats), label="players")
    seats = tuple(
        sorted(data.draw(st.sets(st.integers(1, spec.max_seats), min_size=count, max_size=count)))
    )
    stack = st.one_of(st.none(), st.integers(0, 12), st.integers(13, 200))
    stacks = {s: v for s in seats if (v := data.draw(stack, label=f"stack {s}")) is not None}
    if sum(1 for s in seats if stacks.get(s, 1) > 0) < 2:
        stacks = {}
    stakes = Stakes(
        ante=data.draw(st.sampled_from([0, 1])),
        bring_in=data.draw(st.sampled_from([0, 2])),
        small_bet=5,
        big_bet=10,
        cap=data.draw(st.integers(1, 5)),
        rake_percent=data.draw(st.sampled_from([0, 5, 10])),
        rake_cap=data.draw(st.sampled_from([None, 3])),
        rake_without_showdown=data.draw(st.booleans()),
    )
    dealer = data.draw(st.integers(0, spec.max_seats), label="dealer")
    return Table(spec, TableConfig(seats=seats, stakes=stakes, dealer=dealer, stacks=stacks))


def _play(spec: GameSpec, data: st.DataObject) -> None:
    table = _table(spec, data)
    rng = random.Random(data.draw(st.integers(0, 2**32), label="seed"))
    inputs: list[TableInput] = []
    played: list[Event] = []
    for _ in range(HANDS_PER_EXAMPLE):
        if sum(1 for s in table.stacks.values() if s != 0) < 2:
            break
        deck = list(DECK)
        rng.shuffle(deck)
        before = table.stacks
        events = play_hand(table, deck, lambda pending: rng.choice(pending.options), inputs)
        _check_hand(spec, table, events, before)
        played += events
    # The engine is deterministic: the same inputs, written as a script and read back,
    # give the same events at a fresh table (a journal replay rebuilds the exact state).
    script = parse_script(write_script(spec.key, table.config, inputs))
    again = Table(spec, script.config)
    assert [e for line in script.lines for e in again.apply(line.input)] == played
    assert again.state == table.state


@settings(max_examples=EXAMPLES)
@given(st.data())
def test_five_card_stud_random_hands_conserve_chips_and_follow_14_13(data: st.DataObject) -> None:
    """14.13 and fixed-limit betting: chips conserved, no card twice, one seat to act, the
    procedure's card order, over random legal five-card stud hands.
    """
    _play(GAMES["five-card-stud"], data)


@settings(max_examples=EXAMPLES)
@given(st.data())
def test_mambo_random_hands_conserve_chips_and_follow_14_13a(data: st.DataObject) -> None:
    """14.13A and fixed-limit betting: chips conserved, no card twice, one seat to act, the
    procedure's card order, over random legal Mambo hands.
    """
    _play(GAMES["mambo"], data)


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(GAMES))
def test_soak_random_hands_of_every_game_keep_every_property(game: str) -> None:
    """The same properties over 12000 random hands of each game (run with -m slow)."""

    @settings(max_examples=SOAK_EXAMPLES)
    @given(st.data())
    def soak(data: st.DataObject) -> None:
        _play(GAMES[game], data)

    soak()
