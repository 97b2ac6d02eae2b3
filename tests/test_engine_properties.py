"""Properties over thousands of random legal hands of each game (hypothesis).

Each example sets a table (2 to the game's seat limit, known and unknown
stacks, short stacks for all-ins, a rake; blinds in a button game) and plays
several hands with a shuffled deck, random legal buttons and, in a draw game,
random discards, checking after every hand that chips are conserved exactly,
no card is dealt twice unless a short stub legally reshuffled it (14.12A(f)),
exactly one seat is named whenever a decision is pending, and the cards are
expected in the order the spec's procedure gives (draws included: in turn from
the button's left, the burn before the draw's first new card, one replacement
per discard); and that the whole run, written as a hand script and replayed at
a fresh table, gives the same events and the same state.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.history.script import parse_script, write_script
from controller.poker.cards import DECK, Card
from controller.poker.engine import ConfigError, HouseRules, ShortAllIn, Stakes, Table, TableSetup
from controller.poker.engine.autoplay import play_hand
from controller.poker.engine.events import (
    ActionRequired,
    ActionTaken,
    CardDealt,
    DiscardsReshuffled,
    DrawDeclared,
    DrawExpected,
    Event,
    HandSettled,
    HandStarted,
    StreetStarted,
)
from controller.poker.games import GAMES
from controller.poker.games.spec import GameSpec
from controller.poker.inputs import TableInput

HANDS_PER_EXAMPLE = 20
EXAMPLES = 50  # x 20 hands: 1000 random hands of each game in the default run
SOAK_EXAMPLES = 600  # the slow soak: 12000 hands of each game


def _expected_order(
    spec: GameSpec, events: list[Event], rules: HouseRules
) -> list[tuple[str, int | None, str | None]]:
    """The card destinations the procedure gives, rebuilt from the spec, the house rules and
    the folds seen."""
    order = next(e for e in events if isinstance(e, HandStarted)).seats
    folded: set[int] = set()
    expected: list[tuple[str, int | None, str | None]] = []
    burn_due = False
    drawers: list[int] = []
    draws = 0
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
            # 14.12A(f),(h),(j): the players still in draw in turn from the button's left.
            drawers = [s for s in order if s not in folded] if street.draw else []
            draws += street.draw is not None
            # rules-interpretation.md, Burns and draws: before each draw, or the first only (a house
            # rule).
            burn_due = (
                street.draw is not None
                and street.draw.burn
                and (rules.burn_before_each_draw or draws == 1)
            )
        elif isinstance(event, DrawDeclared):
            assert drawers, f"seat {event.seat} drew out of turn"
            assert event.seat == drawers.pop(0)
            if event.discards and burn_due:  # 14.12A(f): burn before the first new card
                expected.append(("burn", None, None))
                burn_due = False
            expected += [("seat", event.seat, "down")] * len(event.discards)
    return expected


def _check_cards_dealt_once(events: list[Event]) -> None:
    """No card is dealt twice in a hand, unless a short stub reshuffled it back first; the
    reshuffle comes only when the stub cannot cover the draw, and never takes the drawing
    player's own discards of this draw (14.12A(f); rules-interpretation.md, Burns and draws).
    """
    seen: set[str] = set()
    back: set[str] = set()
    last_draw: DrawDeclared | None = None
    for event in events:
        if isinstance(event, CardDealt):
            if event.card in seen:
                assert event.card in back, f"{event.card} dealt twice without a reshuffle"
                back.discard(event.card)
            seen.add(event.card)
        elif isinstance(event, DrawDeclared):
            last_draw = event
        elif isinstance(event, DiscardsReshuffled):
            assert last_draw is not None
            assert last_draw.seat == event.seat
            assert not set(event.cards) & set(last_draw.discards)
            assert set(event.cards) <= seen
            stub = len(DECK) - len(seen) + len(back)
            assert stub < len(last_draw.discards) + 1  # short even without the burn
            back |= set(event.cards)


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
    # No card is dealt twice, unless legally reshuffled (14.12A(f)).
    _check_cards_dealt_once(events)
    # Cards came in the order the procedure gives.
    got = [(e.destination, e.seat, e.face) for e in events if isinstance(e, CardDealt)]
    assert got == _expected_order(spec, events, table.rules)[: len(got)]
    # Exactly one seat is named whenever a decision is pending, and it may act.
    folded: set[int] = set()
    for event in events:
        if isinstance(event, ActionTaken) and event.action == "folds":
            folded.add(event.seat)
        if isinstance(event, ActionRequired):
            assert isinstance(event.seat, int)
            assert event.seat not in folded
            assert event.options
        if isinstance(event, DrawExpected):
            assert event.seat not in folded


def _table(spec: GameSpec, data: st.DataObject) -> Table:
    count = data.draw(st.integers(2, spec.max_seats), label="players")
    seats = tuple(
        sorted(data.draw(st.sets(st.integers(1, spec.max_seats), min_size=count, max_size=count)))
    )
    # Every amount in smallest chips (rules-interpretation.md, Betting structure); a chip above 1
    # with a rake cap that binds is where a division could lose a part of a chip.
    chip = data.draw(st.sampled_from([1, 2, 5]), label="chip")
    stack = st.one_of(st.none(), st.integers(0, 12), st.integers(13, 200))
    stacks = {s: v * chip for s in seats if (v := data.draw(stack, label=f"stack {s}")) is not None}
    if sum(1 for s in seats if stacks.get(s, 1) > 0) < 2:
        stacks = {}
    blinds = spec.has_draws  # button games open with blinds (14.12A(c), 14.10)
    rake_cap = data.draw(st.one_of(st.none(), st.integers(0, 12)), label="rake cap")
    if rake_cap is not None and rake_cap % chip:
        # A cap off the chip is refused (it would lose a part of a chip); take the one below.
        with pytest.raises(ConfigError, match=f"rake_cap={rake_cap}; "):
            Stakes(small_bet=5 * chip, big_bet=10 * chip, chip=chip, rake_cap=rake_cap)
        rake_cap -= rake_cap % chip
    stakes = Stakes(
        ante=data.draw(st.sampled_from([0, 1])) * chip,
        bring_in=0 if blinds else data.draw(st.sampled_from([0, 2])) * chip,
        small_blind=data.draw(st.sampled_from([2, 3])) * chip if blinds else 0,
        big_blind=data.draw(st.sampled_from([5, 10])) * chip if blinds else 0,
        small_bet=5 * chip,
        big_bet=10 * chip,
        cap=data.draw(st.integers(1, 5)),
        chip=chip,
        rake_percent=data.draw(st.sampled_from([0, 5, 10])),
        rake_cap=rake_cap,
        rake_without_showdown=data.draw(st.booleans()),
    )
    dealer = data.draw(st.integers(0, spec.max_seats), label="dealer")
    # Every house rule, either way (rules-interpretation.md, House rules).
    rules = HouseRules(
        opener_must_bet=data.draw(st.booleans(), label="opener must bet"),
        short_all_in=data.draw(st.sampled_from(list(ShortAllIn)), label="short all-in"),
        cap_lifts_heads_up=data.draw(st.booleans(), label="cap lifts heads-up"),
        bring_in_has_option=data.draw(st.booleans(), label="bring-in option"),
        burn_before_each_draw=data.draw(st.booleans(), label="burn before each draw"),
    )
    config = TableSetup(seats=seats, stakes=stakes, dealer=dealer, stacks=stacks, rules=rules)
    return Table(spec, config)


def _play(spec: GameSpec, data: st.DataObject) -> None:
    table = _table(spec, data)
    rng = random.Random(data.draw(st.integers(0, 2**32), label="seed"))

    def discard(pending: DrawExpected, hand: tuple[Card, ...]) -> list[Card]:
        del pending  # any number, any cards (14.12A(f)); five often, so the stub runs short
        return list(hand) if rng.random() < 0.3 else rng.sample(hand, rng.randint(0, len(hand)))

    inputs: list[TableInput] = []
    played: list[Event] = []
    for _ in range(HANDS_PER_EXAMPLE):
        if sum(1 for s in table.stacks.values() if s != 0) < 2:
            break
        deck = list(DECK)
        rng.shuffle(deck)
        before = table.stacks
        events = play_hand(
            table, deck, lambda pending: rng.choice(pending.options), inputs, discard=discard
        )
        _check_hand(spec, table, events, before)
        played += events
    # The engine is deterministic: the same inputs, written as a script and read back,
    # give the same events at a fresh table (a journal replay rebuilds the exact state).
    script = parse_script(write_script(spec.key, table.config, inputs))
    assert script.config.rules == table.rules  # the script posts the rules it was dealt under
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


@settings(max_examples=EXAMPLES)
@given(st.data())
def test_triple_draw_random_hands_conserve_chips_and_follow_14_12a(data: st.DataObject) -> None:
    """14.12A and fixed-limit betting with blinds: chips conserved, no card twice unless a
    short stub reshuffled it (14.12A(f)), one seat to act, draws in turn from the button's
    left with the burn and one replacement per discard, over random legal triple draw hands
    with random discards.
    """
    _play(GAMES["triple-draw"], data)


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(GAMES))
def test_soak_random_hands_of_every_game_keep_every_property(game: str) -> None:
    """The same properties over 12000 random hands of each game (run with -m slow)."""

    @settings(max_examples=SOAK_EXAMPLES)
    @given(st.data())
    def soak(data: st.DataObject) -> None:
        _play(GAMES[game], data)

    soak()
