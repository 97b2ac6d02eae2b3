"""Table.checkpoint / Table.from_checkpoint: a table restored between hands continues exactly.

docs/journal.md, Checkpoints: the controller journals a checkpoint at every hand's end and a
restart continues from it without the records before it, so a restored table must deal,
bet, settle and undo as the original would, seat changes (14.10(c), 14.12A(c)) included.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_engine_properties import _table
from tierhelp import examples

from controller.journal import codec, schema
from controller.journal import tablerecords as rec
from controller.poker.cards import DECK, Card
from controller.poker.engine import ConfigError, Stakes, Table, TableCheckpoint, TableSetup
from controller.poker.engine.autoplay import play_hand
from controller.poker.engine.events import DrawExpected, Event, HandStarted
from controller.poker.games import GAMES
from controller.poker.inputs import Button, ButtonPress, CardRead, TableInput

pytestmark = pytest.mark.fast

HANDS = 6
EXAMPLES = examples(40)


def _same_future(original: Table, restored: Table, rng: random.Random, hands: int) -> None:
    """Both tables take the same inputs and must give the same events and state."""
    assert restored.state == original.state
    assert restored.last_settlement == original.last_settlement

    def discard(pending: DrawExpected, hand: tuple[Card, ...]) -> list[Card]:
        del pending
        return rng.sample(hand, rng.randint(0, len(hand)))

    for _ in range(hands):
        if sum(1 for s in original.stacks.values() if s != 0) < 2:
            return
        deck = list(DECK)
        rng.shuffle(deck)
        inputs: list[TableInput] = []
        played = play_hand(original, deck, lambda p: rng.choice(p.options), inputs, discard=discard)
        again: list[Event] = [e for inp in inputs for e in restored.apply(inp)]
        assert again == played
        assert restored.state == original.state
        assert restored.checkpoint() == original.checkpoint()


def _restore_midway(game: str, data: st.DataObject) -> None:
    spec = GAMES[game]
    table = _table(spec, data)
    rng = random.Random(data.draw(st.integers(0, 2**32), label="seed"))
    before = data.draw(st.integers(0, HANDS), label="hands before the checkpoint")
    for _ in range(before):
        if sum(1 for s in table.stacks.values() if s != 0) < 2:
            break
        deck = list(DECK)
        rng.shuffle(deck)
        play_hand(table, deck, lambda p: rng.choice(p.options))
    if data.draw(st.booleans(), label="undo the last input after the checkpoint"):
        cp = table.checkpoint()
        restored = Table.from_checkpoint(spec, table.config, cp)
        assert restored.apply(ButtonPress(Button.UNDO)) == table.apply(ButtonPress(Button.UNDO))
        assert restored.state == table.state
        return
    cp = table.checkpoint()
    # The journal's form of it (docs/journal.md, Checkpoints) reads back to the same value.
    kept = json.loads(json.dumps(rec.table_checkpoint_json(cp)))
    assert rec.table_checkpoint_of(codec.decoder(schema.EngineData)(kept)) == cp
    restored = Table.from_checkpoint(spec, table.config, cp)
    _same_future(table, restored, rng, HANDS)


@settings(max_examples=EXAMPLES)
@given(st.data())
def test_five_card_stud_restored_from_a_checkpoint_plays_on_exactly(data: st.DataObject) -> None:
    """14.13: a five-card stud table restored from its checkpoint after random hands deals,
    bets, settles and undoes exactly as the original over the next hands."""
    _restore_midway("five-card-stud", data)


@settings(max_examples=EXAMPLES)
@given(st.data())
def test_mambo_restored_from_a_checkpoint_plays_on_exactly(data: st.DataObject) -> None:
    """14.13A: a Mambo table restored from its checkpoint plays on exactly as the original."""
    _restore_midway("mambo", data)


@settings(max_examples=EXAMPLES)
@given(st.data())
def test_triple_draw_restored_from_a_checkpoint_plays_on_exactly(data: st.DataObject) -> None:
    """14.12A (button and blinds, 14.10(c)): a triple draw table restored from its checkpoint
    moves the button and plays on exactly as the original."""
    _restore_midway("triple-draw", data)


STAKES = Stakes(small_blind=2, big_blind=5, small_bet=5, big_bet=10)


def _triple_draw(stacks: dict[int, int]) -> Table:
    config = TableSetup(seats=tuple(stacks), stakes=STAKES, dealer=1, stacks=stacks)
    return Table(GAMES["triple-draw"], config)


def _one_hand(table: Table, seed: int = 1) -> None:
    rng = random.Random(seed)
    deck = list(DECK)
    rng.shuffle(deck)
    play_hand(table, deck, lambda p: rng.choice(p.options))


def test_a_checkpoint_after_a_seat_change_keeps_the_new_seats_and_the_button_passes_14_10c() -> (
    None
):
    """14.10(c), 14.12A(c): after a player leaves the button seat and another sits down, the
    restored table moves the button among the seats occupied now, as the original does."""
    table = _triple_draw({1: 100, 2: 100, 3: 100})
    _one_hand(table)
    assert table.state.dealer == 1
    table.reseat((2, 3, 5), {5: 80})  # the button's player leaves; seat 5 sits down
    cp = table.checkpoint()
    assert (cp.seats, cp.closed, dict(cp.stacks)[5]) == ((2, 3, 5), True, 80)
    restored = Table.from_checkpoint(GAMES["triple-draw"], table.config, cp)
    assert restored.apply(ButtonPress(Button.UNDO)) == table.apply(ButtonPress(Button.UNDO))
    started = restored.apply(ButtonPress(Button.NEW_HAND))
    assert started == table.apply(ButtonPress(Button.NEW_HAND))
    assert started[0] == HandStarted(2, "triple-draw", (3, 5, 2), 2, ())  # 14.10(c): to seat 2
    table.apply(ButtonPress(Button.MISDEAL))
    restored.apply(ButtonPress(Button.MISDEAL))
    _same_future(table, restored, random.Random(3), 3)


@pytest.mark.parametrize("reseat", [False, True])
def test_rules_interpretation_misdeal_a_restart_after_a_void_hand_keeps_the_button(
    reseat: bool,
) -> None:
    """docs/rules-interpretation.md, Misdeal: the checkpoint of a voided hand (phase ``void``),
    with or without a seat change after it, restores a table that deals the next hand at the
    same button (seat 1) with the same blinds, as the original does."""
    table = _triple_draw({1: 100, 2: 100, 3: 100})
    table.apply(ButtonPress(Button.NEW_HAND))
    table.apply(CardRead(DECK[0]))
    table.apply(ButtonPress(Button.MISDEAL))
    if reseat:
        table.reseat((1, 2, 3, 4), {4: 60})
    cp = table.checkpoint()
    assert (cp.phase, cp.dealer, cp.closed) == ("void", 1, reseat)
    restored = Table.from_checkpoint(GAMES["triple-draw"], table.config, cp)
    started = restored.apply(ButtonPress(Button.NEW_HAND))
    assert started == table.apply(ButtonPress(Button.NEW_HAND))
    assert isinstance(started[0], HandStarted)
    assert started[0].dealer == 1
    table.apply(ButtonPress(Button.MISDEAL))
    restored.apply(ButtonPress(Button.MISDEAL))
    _same_future(table, restored, random.Random(6), 2)


def test_a_table_with_no_hand_yet_has_a_checkpoint_too() -> None:
    """Before the first hand the checkpoint is the configuration: hand 0, waiting."""
    table = _triple_draw({1: 100, 2: 100})
    cp = table.checkpoint()
    assert (cp.hand, cp.phase, cp.inputs) == (0, "waiting", ())
    restored = Table.from_checkpoint(GAMES["triple-draw"], table.config, cp)
    _same_future(table, restored, random.Random(4), 2)


def test_no_checkpoint_while_a_hand_is_in_play_or_an_alarm_is_open() -> None:
    """A checkpoint is taken between hands only; the error says what was expected."""
    table = _triple_draw({1: 100, 2: 100})
    table.apply(ButtonPress(Button.NEW_HAND))
    with pytest.raises(ValueError, match=r"hand 1 is held \(phase dealing\); expected a table"):
        table.checkpoint()
    table.apply(ButtonPress(Button.MISDEAL))
    table.apply(CardRead(DECK[0]))  # a stray card between hands: an alarm holds the table
    with pytest.raises(ValueError, match="alarm"):
        table.checkpoint()


def test_a_checkpoint_whose_hand_does_not_end_at_its_stacks_is_refused() -> None:
    """A tampered checkpoint (or an engine that now plays the hand otherwise) is refused,
    naming what the hand replays to and what the checkpoint says."""
    table = _triple_draw({1: 100, 2: 100, 3: 100})
    _one_hand(table)
    cp = table.checkpoint()
    stacks = tuple((seat, (stack or 0) + 5 if seat == 1 else stack) for seat, stack in cp.stacks)
    forged: TableCheckpoint = replace(cp, stacks=stacks)
    with pytest.raises(ConfigError, match="checkpoint of hand 1: its hand replays to hand 1"):
        Table.from_checkpoint(GAMES["triple-draw"], table.config, forged)


def test_notes_betting_structure_a_checkpoint_stack_off_the_smallest_chip_is_refused() -> None:
    """rules-interpretation.md, Betting structure: a stack is whole smallest chips. A checkpoint
    taken after a rebuy carries the stacks the rebuy made; one off the chip (a tampered checkpoint,
    or a table.toml whose chip changed since) is refused, naming the seat and the chip."""
    stakes = replace(STAKES, chip=5, small_blind=5, big_blind=5)
    config = TableSetup(seats=(1, 2, 3), stakes=stakes, dealer=1, stacks={1: 100, 2: 100, 3: 100})
    table = Table(GAMES["triple-draw"], config)
    _one_hand(table)
    table.rebuy(2, 40)
    cp = table.checkpoint()
    forged = replace(cp, stacks=tuple((s, 43 if s == 2 else st) for s, st in cp.stacks))
    with pytest.raises(ConfigError, match=r"seat 2 has 43; .*smallest chip 5"):
        Table.from_checkpoint(GAMES["triple-draw"], table.config, forged)


@pytest.mark.parametrize("change", ["reseat", "rebuy"])
def test_undo_of_a_stray_card_after_a_seat_change_keeps_the_change(change: str) -> None:
    """After a seat change or rebuy closed the last hand (14.10(c): the seats of the next
    hand), a stray card raises an alarm; undo dismisses it and the table stands as it was
    after the change (it used to rebuild the hand from before the change), and a restored
    checkpoint undoes it the same way."""
    table = _triple_draw({1: 100, 2: 100, 3: 100})
    _one_hand(table)
    if change == "reseat":
        table.reseat((1, 3, 6), {6: 50})
    else:
        table.rebuy(2, 40)
    before = (table.state, table.checkpoint())
    alarm = table.apply(CardRead(DECK[0]))
    assert alarm[0].kind == "alarm"
    undone = table.apply(ButtonPress(Button.UNDO))
    assert undone[0].kind == "undone"
    assert (table.state, table.checkpoint()) == before
    restored = Table.from_checkpoint(GAMES["triple-draw"], table.config, before[1])
    assert restored.apply(CardRead(DECK[0])) == alarm
    assert restored.apply(ButtonPress(Button.UNDO)) == undone
    _same_future(table, restored, random.Random(5), 2)
