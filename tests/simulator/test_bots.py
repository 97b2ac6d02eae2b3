"""The dealer bots' pure core: legal whole hands, their records, and scripts played exactly.

The random bot's inputs are fed to a separate, fresh engine ``Table`` (no
hardware): every settlement must equal the bot's record, the chips must be
conserved, and no hand may get stuck.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from bot_games import THREE_GAMES

from controller.history.script import parse_script, write_script
from controller.poker.cards import Card
from controller.poker.engine import Stakes, Table, TableSetup
from controller.poker.engine.events import (
    ActionTaken,
    Alarm,
    CardMucked,
    DiscardsReshuffled,
    Event,
    HandSettled,
    HandStarted,
    HandVoided,
    NewHandExpected,
    Refused,
)
from controller.poker.games import GAMES
from controller.poker.games.spec import ForcedBet, GameSpec
from controller.poker.inputs import Button, ButtonPress, CardRead, ReadPoint
from simulator.acts import (
    Deal,
    Discard,
    HandRecord,
    Press,
    Rebuy,
    Restock,
    Shuffle,
    feed,
    table_input,
)
from simulator.decks import cut, shuffled
from simulator.random_bot import RandomBot, RebuyRule, default_stakes, short_of_players
from simulator.scripted_bot import ScriptedBot

ROOT = Path(__file__).resolve().parents[2]


def raked(spec: GameSpec) -> Stakes:
    """The game's default stakes with a rake, so the rake is part of every comparison."""
    base = default_stakes(spec)
    return Stakes(
        small_bet=base.small_bet,
        big_bet=base.big_bet,
        ante=base.ante,
        bring_in=base.bring_in,
        small_blind=base.small_blind,
        big_blind=base.big_blind,
        rake_percent=5,
        rake_cap=4,
        rake_without_showdown=True,
    )


def play_against_fresh_table(
    bot: RandomBot,
) -> tuple[Table, list[HandSettled | HandVoided], list[Event]]:
    """Feed every act of ``bot`` to a separate table; return it, its settlements, its events."""
    table = Table(bot.spec, bot.config)
    settlements: list[HandSettled | HandVoided] = []
    events: list[Event] = []
    for act in bot:
        produced = feed(table, act)
        events += produced
        settlements += [e for e in produced if isinstance(e, HandSettled | HandVoided)]
    return table, settlements, events


@pytest.mark.parametrize("spec", THREE_GAMES, ids=lambda spec: spec.key)
def test_random_bot_plays_2000_legal_hands_each_settled_as_its_record_says(spec: GameSpec) -> None:
    """2,000 hands, fed to a fresh engine: every settlement equals the bot's record, the
    inputs are the record's, nothing is refused, and the chips are conserved (rebuys in,
    rake out). All-ins, rebuys, mucked folds and (in the draw) reshuffled discards occur.
    """
    bot = RandomBot(spec, seats=3, stakes=raked(spec), seed=11, hands=2000)
    start = bot.chips_in_play
    table, settlements, events = play_against_fresh_table(bot)

    assert len(bot.records) == len(settlements) == 2000, "every hand ended"
    assert isinstance(table.pending, NewHandExpected), "the last hand is not stuck"
    for record, settled in zip(bot.records, settlements, strict=True):
        assert record.differences(settled) == []
    kinds = Counter(type(e).__name__ for e in events)
    assert kinds["Refused"] == kinds["Alarm"] == 0
    fed = [inp for record in bot.records for inp in record.inputs]
    assert len(fed) == sum(1 for e in events if e.kind in _ACCEPTED), "one event per input"

    # Chips: what the seats bought, less the house's rake, is what is at the table.
    assert bot.raked > 0
    assert bot.rebought > 0
    assert start + bot.rebought - bot.raked == bot.chips_in_play
    assert sum(s for s in table.stacks.values() if s is not None) == bot.chips_in_play
    for record in bot.records:
        assert sum(record.net.values()) == -record.rake

    assert any(isinstance(e, ActionTaken) and e.all_in for e in events), "all-ins happen"
    assert any(isinstance(e, CardMucked) for e in events), "folded hands are mucked"
    if spec.has_draws:
        assert any(isinstance(e, DiscardsReshuffled) for e in events), "14.12A(f) reshuffles"


#: The first event each accepted input causes (to count the inputs the table took).
_ACCEPTED = {
    "hand_started",
    "card_dealt",
    "card_mucked",
    "card_discarded",
    "action_taken",
    "draw_declared",
}


def test_the_bot_deals_from_a_new_shuffle_and_cut_before_every_hand() -> None:
    """13:69F-14.5 (rules-interpretation.md, Shuffle, cut and decks): each hand begins with a
    shuffle from a new seed and a cut of at least ten; the cards dealt are that stub's, top
    first."""
    bot = RandomBot("mambo", seats=4, seed=5, hands=30)
    list(bot)
    seeds = set()
    for record in bot.records:
        shuffle = next(a for a in record.acts if isinstance(a, Shuffle))
        assert 10 <= shuffle.cut <= 42
        assert shuffle.deck == "A"
        seeds.add(shuffle.seed)
        stub = cut(shuffled(shuffle.seed), shuffle.cut)
        dealt = [a.card for a in record.acts if isinstance(a, Deal)]
        assert dealt == stub[: len(dealt)]
        assert not any(a.named for a in record.acts if isinstance(a, Deal))
        assert record.acts.index(shuffle) < record.acts.index(Press(Button.NEW_HAND))
    assert len(seeds) == 30


def test_the_same_seed_plays_the_same_hands_and_another_seed_others() -> None:
    """The bot's only randomness is its seed."""
    first = RandomBot("five-card-stud", seats=5, seed=2, hands=50)
    again = RandomBot("five-card-stud", seats=5, seed=2, hands=50)
    other = RandomBot("five-card-stud", seats=5, seed=3, hands=50)
    assert list(first) == list(again)
    assert list(first) != list(other)


def test_alternating_decks_put_a_and_b_in_play_in_turn() -> None:
    """rules-interpretation.md, Shuffle, cut and decks: with a shuffler the two decks alternate."""
    bot = RandomBot("mambo", seats=3, seed=1, hands=4, alternate_decks=True)
    decks = [a.deck for a in bot if isinstance(a, Shuffle)]
    assert decks == ["A", "B", "A", "B"]


def test_a_busted_seat_buys_in_again_before_the_next_hand() -> None:
    """The rebuy rule: a seat below ``below`` after a hand is topped up to the buy-in, between
    hands, and the bot's table knows it (Table.rebuy)."""
    rule = RebuyRule(buy_in=30, below=10)
    bot = RandomBot("mambo", seats=3, seed=4, hands=200, rebuy=rule)
    stacks_before_rebuy: list[int] = []
    for act in bot:
        if isinstance(act, Rebuy):
            stacks_before_rebuy.append(rule.buy_in - act.chips)
            assert isinstance(bot.table.pending, NewHandExpected), "only between hands"
    assert stacks_before_rebuy
    assert all(s < 10 for s in stacks_before_rebuy)
    assert bot.rebought == sum(rule.buy_in - s for s in stacks_before_rebuy)


@pytest.mark.fast
@pytest.mark.parametrize("game", ["mambo", "triple-draw"])
def test_without_rebuys_a_broke_seat_sits_out_and_the_bot_ends_with_one_seat_left(
    game: str,
) -> None:
    """A table configured elsewhere (a table.toml's short stacks), no rebuy rule: a seat with
    no chips is not dealt in, on the bot's table as on any fresh table fed its acts
    (rules-interpretation.md, Blinds and the button); with fewer than two seats that have chips
    the bot ends, saying why, before pressing a new hand the table would refuse."""
    spec = GAMES[game]
    base = default_stakes(spec)
    config = TableSetup(
        seats=(1, 2, 3, 4),
        stakes=base,
        dealer=1 if spec.forced_bet is ForcedBet.BLINDS else 0,
        stacks={1: 30, 2: 20, 3: 25, 4: 15},
    )
    bot = RandomBot(spec, seed=7, hands=200, rebuy=None, config=config)
    fresh = Table(spec, config)
    dealt_in: list[tuple[int, ...]] = []
    for act in bot:
        before = fresh.stacks
        for event in feed(fresh, act):
            assert not isinstance(event, Refused | Alarm), (act, event)
            if isinstance(event, HandStarted):  # every seat with chips, and only those
                assert sorted(event.seats) == [
                    seat for seat, chips in sorted(before.items()) if chips
                ]
                dealt_in.append(event.seats)
    assert len(bot.records) < 200, "the seats went broke"
    assert any(len(seats) < 4 for seats in dealt_in), "a broke seat sat out a hand"
    holders = [seat for seat, stack in bot.table.stacks.items() if stack]
    assert len(holders) == 1
    assert bot.ended == short_of_players(bot.table.stacks)
    assert bot.ended.startswith(f"fewer than two seats have chips (seat {holders[0]}: ")
    assert bot.ended.endswith(": none)")
    assert isinstance(fresh.pending, NewHandExpected)
    assert bot.chips_in_play == sum(config.stacks.values()) - bot.raked


def test_unknown_stacks_never_go_all_in_and_never_rebuy() -> None:
    """Without known stacks (rebuy=None) all-in is never legal, so never pressed."""
    bot = RandomBot("five-card-stud", seats=4, seed=8, hands=200, rebuy=None)
    acts = list(bot)
    assert Press(Button.ALL_IN) not in acts
    assert not any(isinstance(a, Rebuy) for a in acts)
    assert all(stack is None for stack in bot.table.stacks.values())


def test_weights_steer_the_choice_among_legal_buttons_only() -> None:
    """Weights only pick among legal options: never folding still folds nobody, and the hands
    all reach a showdown."""
    bot = RandomBot("mambo", seats=3, seed=3, hands=40, weights={Button.CHECK_CALL: 1})
    acts = list(bot)
    assert Press(Button.FOLD) not in acts
    assert Press(Button.BET_RAISE) not in acts
    assert all(
        isinstance(r.settlement, HandSettled) and not r.settlement.uncontested for r in bot.records
    )


def test_bad_options_are_refused_with_what_was_expected() -> None:
    """A game, seat count, weight or rebuy rule that cannot be used names what was expected."""
    with pytest.raises(ValueError, match="game 'poker': expected one of"):
        RandomBot("poker")
    with pytest.raises(ValueError, match=r"seats=12: Mambo.* seats 2 to 11"):
        RandomBot("mambo", seats=12)
    with pytest.raises(ValueError, match="expected non-negative weights"):
        RandomBot("mambo", weights={Button.UNDO: 1})
    with pytest.raises(ValueError, match="below=0"):
        RebuyRule(buy_in=10, below=0)


def test_differences_name_what_the_controller_settled_otherwise() -> None:
    """A record compared with another hand's settlement names each differing field."""
    bot = RandomBot("mambo", seats=3, seed=6, hands=2)
    list(bot)
    first, second = bot.records
    assert first.differences(first.settlement) == []
    assert first.differences(None) == [
        "hand 1: expected hand_settled, the controller settled nothing"
    ]
    found = first.differences(second.settlement)
    assert found
    assert all(line.startswith("hand 1: ") for line in found)
    assert any(line.startswith("hand 1: hand expected 1, got 2") for line in found)


def test_acts_map_to_the_inputs_the_devices_report() -> None:
    """A deal is a read at the slot, a discard at the discard reader, a press a button; a
    shuffle, a restock and a rebuy are not reported by any device."""
    kd = Card.parse("Kd")
    assert table_input(Deal(kd)) == CardRead(kd, ReadPoint.DEALING_SLOT)
    assert table_input(Discard(kd)) == CardRead(kd, ReadPoint.DISCARD_READER)
    assert table_input(Press(Button.FOLD)) == ButtonPress(Button.FOLD)
    for act in (Shuffle("A", 1, 10), Restock((kd,)), Rebuy(1, 5)):
        assert table_input(act) is None


# --- The scripted bot -----------------------------------------------------------------------


def test_scripted_bot_reproduces_a_hand_script_exactly() -> None:
    """docs/scripts/mambo-split.hand: the bot's inputs are the script's, in order, the cards
    dealt by name after a shuffle, and its record is the settlement the replay computes
    (the odd chip to the high hand, 14.13A(j)1)."""
    script = parse_script((ROOT / "docs/scripts/mambo-split.hand").read_text(), "mambo-split")
    bot = ScriptedBot(script)
    acts = list(bot)
    assert isinstance(acts[0], Shuffle)
    assert acts[1] == Press(Button.NEW_HAND)
    assert all(a.named for a in acts if isinstance(a, Deal))
    produced = [inp for a in acts if (inp := table_input(a)) is not None]
    assert produced == [line.input for line in script.lines]

    replay = Table(GAMES["mambo"], script.config)
    events = [e for line in script.lines for e in replay.apply(line.input)]
    (settled,) = [e for e in events if isinstance(e, HandSettled)]
    (record,) = bot.records
    assert record.inputs == tuple(produced)
    assert record.differences(settled) == []


def test_scripted_bot_keeps_refusals_alarms_and_undo_as_the_script_has_them() -> None:
    """An incident script (a card dealt twice, undo, a refused press) is reproduced as is: the
    bot does not stop on it, and the record holds the hand's settlement."""
    text = """
    game five-card-stud
    seats 1 2
    stakes ante=1 bring-in=2 small-bet=5 big-bet=10
    stacks 1=50 2=50
    new_hand
    Ah
    2c
    Kd
    Kd            # dealt twice: an alarm holds the hand
    draw_done     # refused: held by the alarm (and stud has no draws)
    undo          # dismisses the read
    3d
    misdeal       # voids the hand: the antes go back
    """
    script = parse_script(text, "incident")
    bot = ScriptedBot(script)
    acts = list(bot)
    produced = [inp for a in acts if (inp := table_input(a)) is not None]
    assert produced == [line.input for line in script.lines]
    named_twice = [a for a in acts if isinstance(a, Deal) and a.card == Card.parse("Kd")]
    assert len(named_twice) == 2
    (record,) = bot.records
    assert isinstance(record.settlement, HandVoided)
    assert record.net == {1: 0, 2: 0}


@pytest.mark.parametrize("spec", THREE_GAMES, ids=lambda spec: spec.key)
def test_random_hands_written_as_a_script_are_played_back_exactly(spec: GameSpec) -> None:
    """Ten random hands written out as a hand script (controller.history.script.write_script) and
    played by the scripted bot: the same inputs, hand by hand, and the same settlements."""
    random_bot = RandomBot(spec, seats=4, seed=3, hands=10, rebuy=RebuyRule(buy_in=1000))
    list(random_bot)
    inputs = [inp for record in random_bot.records for inp in record.inputs]
    text = write_script(spec.key, random_bot.config, inputs)
    scripted = ScriptedBot(parse_script(text, "written"), game=spec)
    list(scripted)
    assert len(scripted.records) == 10
    for played, dealt in zip(scripted.records, random_bot.records, strict=True):
        assert played.inputs == dealt.inputs
        assert played.differences(dealt.settlement) == []


def test_scripted_bot_needs_a_game() -> None:
    """A script without 'game' needs one given, and the two must agree."""
    script = parse_script("seats 1 2\nstakes small-bet=2 big-bet=4\nnew_hand\n")
    with pytest.raises(ValueError, match="names no game"):
        ScriptedBot(script)
    assert ScriptedBot(script, game="mambo").spec.key == "mambo"
    named = parse_script("game mambo\nseats 1 2\nstakes small-bet=2 big-bet=4\n")
    with pytest.raises(ValueError, match="the script is 'mambo' but the game given"):
        ScriptedBot(named, game="five-card-stud")


def test_a_scripted_discard_reader_read_is_a_discard_act() -> None:
    """A card at the discard reader in a script becomes a Discard act (the shoe's discard
    reader reads it), not a deal."""
    script = parse_script("game mambo\nseats 1 2\nstakes small-bet=2 big-bet=4\nKd discard\n")
    assert list(ScriptedBot(script)) == [Discard(Card.parse("Kd"))]


def test_random_bot_records_every_act_of_a_hand() -> None:
    """A record's acts run from the rebuys and the shuffle to the hand's last input."""
    bot = RandomBot("mambo", seats=3, seed=9, hands=20, rebuy=RebuyRule(buy_in=20, below=15))
    acts = list(bot)
    assert [a for r in bot.records for a in r.acts] == acts
    for record in bot.records:
        assert isinstance(record, HandRecord)
        first_press = record.acts.index(Press(Button.NEW_HAND))
        assert all(isinstance(a, Rebuy | Shuffle) for a in record.acts[:first_press])


@pytest.mark.slow
@pytest.mark.timeout(1800)  # minutes on a loaded machine: more than the suite's 300 s
@pytest.mark.parametrize("spec", THREE_GAMES, ids=lambda spec: spec.key)
@pytest.mark.parametrize("full", [False, True], ids=["heads-up", "full-table"])
def test_random_bot_soak_20000_hands_heads_up_and_at_a_full_table(
    spec: GameSpec, full: bool
) -> None:
    """The long run: 20,000 hands heads-up and at a full table, each settled as recorded,
    nothing refused, the chips conserved."""
    seats = spec.max_seats if full else 2
    bot = RandomBot(spec, seats=seats, stakes=raked(spec), seed=100 + seats, hands=20_000)
    start = bot.chips_in_play
    table, settlements, events = play_against_fresh_table(bot)
    assert len(bot.records) == len(settlements) == 20_000
    assert isinstance(table.pending, NewHandExpected)
    for record, settled in zip(bot.records, settlements, strict=True):
        assert record.differences(settled) == []
    assert not any(e.kind in {"refused", "alarm"} for e in events)
    assert start + bot.rebought - bot.raked == bot.chips_in_play
