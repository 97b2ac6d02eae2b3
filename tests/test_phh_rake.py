"""The rake through a PHH hand history (14.19(c): the rake is taken before a pot is divided;
docs/rules-interpretation.md, Rake). PHH has no rake field (PokerKit takes its rake as a
function, not from the file), so tablectl's export writes the posted chip, raise cap and rake
and the chips the table raked as its own ``_tablectl_`` fields; ``import-phh`` reads them back,
and the hand replayed through its hand script settles as the table did, chip for chip: every
pot and its rake, every share and odd chip, every net and stack, in all three games, side pots
among them. A history that leaves a rake out is refused, not paid to the winners."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest

from controller.cli.main import main
from controller.history.phh.convert import to_hand_script
from controller.history.phh.export import export_hand
from controller.history.phh.parse import PhhError, PhhUnsupported, read_phh
from controller.history.recall import HandRecord
from controller.history.script import parse_script
from controller.journal.tablerecords import HandTerms
from controller.poker.cards import DECK, Card
from controller.poker.engine import Stakes, Table, TableSetup
from controller.poker.engine.autoplay import play_hand
from controller.poker.engine.events import (
    ActionRequired,
    DrawExpected,
    Event,
    HandSettled,
    Option,
    to_dict,
)
from controller.poker.games import GAMES

pytestmark = pytest.mark.fast

GAMES_ = ("five-card-stud", "mambo", "triple-draw")
STARTED = datetime(2026, 12, 1, tzinfo=UTC).isoformat()
HANDS = 60


def _stakes(game: str, kind: str) -> Stakes:
    """Two raked stakes: ``capped``, a chip of 1 and 7% up to 9 (a pot at a showdown only);
    ``fives``, a chip of 5, 10% with no cap, a pot won without a showdown raked too, and a
    raise cap of five bets (table.toml's [stakes], docs/deploy.md)."""
    draw = game == "triple-draw"
    if kind == "capped":
        forced = {"small_blind": 5, "big_blind": 10} if draw else {"ante": 1, "bring_in": 2}
        return Stakes(small_bet=10, big_bet=20, rake_percent=7, rake_cap=9, **forced)
    forced = {"small_blind": 5, "big_blind": 10} if draw else {"ante": 5, "bring_in": 5}
    return Stakes(
        small_bet=10,
        big_bet=20,
        chip=5,
        cap=5,
        rake_percent=10,
        rake_without_showdown=True,
        **forced,
    )


def _random_hand(game: str, stakes: Stakes, seed: int) -> tuple[TableSetup, list[Event]]:
    """A random hand: 2-6 of the game's seats, stacks short enough for side pots, one seat's
    stack unknown, the dealer (the button) anywhere."""
    spec = GAMES[game]
    rng = random.Random(seed)
    seats = tuple(sorted(rng.sample(range(1, spec.max_seats + 1), rng.randint(2, 6))))
    stacks = {seat: rng.choice([15, 35, 60, 120, 400, 400]) for seat in seats[1:]}
    draw = game == "triple-draw"
    dealer = rng.choice(seats) if draw else rng.randrange(0, spec.max_seats + 1)
    config = TableSetup(seats, stakes, dealer, stacks)
    deck = list(DECK)
    rng.shuffle(deck)

    def choose(pending: ActionRequired) -> Option:
        return rng.choice(pending.options)

    def discard(pending: DrawExpected, held: tuple[Card, ...]) -> list[Card]:
        del pending
        return rng.sample(list(held), rng.choice([0, 1, 2]))

    return config, play_hand(Table(spec, config), deck, choose, discard=discard)


def _exported(game: str, stakes: Stakes, events: list[Event]) -> str:
    hand = HandRecord(1, game, STARTED, finished=True, events=events, terms=HandTerms(stakes))
    return export_hand(hand, stakes, "RAKE-1")


def _settled(events: list[Event]) -> HandSettled:
    (settled,) = [event for event in events if isinstance(event, HandSettled)]
    return settled


def _replayed(text: str) -> HandSettled:
    """The file imported and its hand script replayed, as ``tablectl import-phh`` and
    ``tablectl replay`` do: the script's text parsed, its inputs through a table of its setup."""
    converted = to_hand_script(read_phh(text, "hand-1.phh"))
    script = parse_script(converted.script(), "hand.hand")
    assert not script.errors
    assert script.game is not None
    table = Table(GAMES[script.game], script.config)
    return _settled([event for line in script.lines for event in table.apply(line.input)])


def _contested(settled: HandSettled) -> int:
    return sum(not pot.returned for pot in settled.pots)


@pytest.mark.parametrize("kind", ["capped", "fives"])
@pytest.mark.parametrize("game", GAMES_)
def test_14_19c_a_raked_hand_replays_from_its_phh_to_the_tables_settlement(
    game: str, kind: str
) -> None:
    """Random raked hands of each game, exported, imported and replayed: the settlement is the
    table's, pot by pot (the rake from the main pot first), share by share, odd chip by odd
    chip. The sample holds raked hands, raked hands with a side pot, and (capped) a rake at its
    cap or (fives) a pot raked without a showdown. Triple draw hands with a reshuffle, which
    PHH cannot state (14.12A(f)), are refused by the import and counted."""
    stakes = _stakes(game, kind)
    seen: Counter[str] = Counter()
    for seed in range(HANDS):
        _config, events = _random_hand(game, stakes, seed)
        table_paid = _settled(events)
        text = _exported(game, stakes, events)
        assert f"_tablectl_rake = {table_paid.rake}\n" in text
        try:
            replayed = _replayed(text)
        except PhhUnsupported as why:
            seen[f"refused: {game}, {'a reshuffle' if 'dealt twice' in str(why) else why}"] += 1
            continue
        assert replayed == table_paid, f"{game} {kind} seed {seed}"
        if table_paid.rake:
            seen["raked"] += 1
            seen["raked with a side pot"] += _contested(table_paid) > 1
            seen["raked at its cap"] += table_paid.rake == stakes.rake_cap
            seen["raked without a showdown"] += table_paid.uncontested
            seen["raked, odd chips"] += any(pot.odd_chips for pot in table_paid.pots)
    refused = sum(n for reason, n in seen.items() if reason.startswith("refused"))
    assert refused == seen["refused: triple-draw, a reshuffle"] < HANDS // 4, seen
    assert seen["raked"] >= HANDS // 5, seen
    assert seen["raked with a side pot"] >= 1, seen
    if kind == "capped":
        assert seen["raked at its cap"] >= 1, seen
        assert not seen["raked without a showdown"], seen
    else:
        assert seen["raked without a showdown"] >= 1, seen
    if game == "mambo":
        assert seen["raked, odd chips"] >= 1, seen  # 14.13A(j)1: a split pot's odd chip


#: Two players tied for the pot after its rake, a third folding first: the pot left is odd, so
#: the odd chip goes by the game's rule (rules-interpretation.md, Odd chips). Dealt from seat 1.
TIES = {
    # 14.13(c)-(e): a down card, an up card, three more up-cards each after a burn; seat 1's
    # Kd brings in, seat 3 folds to it. Seats 1 and 2 tie with A-K-Q-J-9.
    "five-card-stud": (
        "As Ah 8d Kd Ks Ac 2c Qh Qd 3c Jc Jh 4c 9s 9c",
        Stakes(small_bet=10, big_bet=20, ante=1, bring_in=2, rake_percent=10),
    ),
    # 14.12A(d): five cards a player from the button's left (seat 1); seats 1 and 2 stand pat
    # with 7-5-4-3-2, seat 3 (the button) folds first.
    "triple-draw": (
        "7h 7d Kc 5d 5c Kd 4c 4s Qc 3s 3h Qd 2h 2d Jc",
        Stakes(small_bet=10, big_bet=20, small_blind=5, big_blind=10, rake_percent=7),
    ),
}


@pytest.mark.parametrize("game", sorted(TIES))
def test_a_raked_tie_replays_its_odd_chip_to_the_same_seat(game: str) -> None:
    codes, stakes = TIES[game]
    spec = GAMES[game]
    dealt = [Card.parse(code) for code in codes.split()]
    deck = dealt + [card for card in DECK if card not in dealt]
    config = TableSetup((1, 2, 3), stakes, 3 if game == "triple-draw" else 0)

    def choose(pending: ActionRequired) -> Option:
        buttons = {option.button: option for option in pending.options}
        if pending.seat == 3 and "fold" in buttons:
            return buttons["fold"]
        # 14.13(f): the five-card stud opener must bet; the others check or call.
        return buttons.get("check_call", pending.options[0])

    events = play_hand(Table(spec, config), deck, choose)
    table_paid = _settled(events)
    (pot,) = table_paid.pots
    assert pot.rake > 0, table_paid
    assert pot.odd_chips, table_paid
    assert len(pot.shares[0].winners) == 2, "a tie"
    assert _replayed(_exported(game, stakes, events)) == table_paid


def _one_raked_hand(game: str) -> tuple[Stakes, list[Event]]:
    """The first random hand of the game raked at a showdown with a side pot, its winners'
    stacks known (an unknown stack, ``inf``, ends unknown whatever it wins)."""
    stakes = _stakes(game, "capped")
    for seed in range(HANDS):
        _config, events = _random_hand(game, stakes, seed)
        settled = _settled(events)
        known = {entry.seat for entry in settled.stacks}
        winners = {entry.seat for entry in settled.net if entry.amount > 0}
        if settled.rake and _contested(settled) > 1 and winners <= known:
            return stakes, events
    raise AssertionError(f"no raked {game} hand with a side pot in {HANDS} seeds")


@pytest.mark.parametrize("game", GAMES_)
def test_import_phh_then_replay_prints_the_tables_settlement(
    tmp_path: Path, game: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``tablectl import-phh hand-1.phh > hand.hand``, ``tablectl replay hand.hand``: the
    script posts the rake (``rake-percent=7 rake-cap=9``), and replay's ``hand_settled`` is the
    table's, as JSON."""
    stakes, events = _one_raked_hand(game)
    phh = tmp_path / "hand-1.phh"
    phh.write_text(_exported(game, stakes, events), encoding="utf-8")
    assert main(["import-phh", str(phh)]) == 0
    script = capsys.readouterr().out
    assert " rake-percent=7 rake-cap=9 rake-without-showdown=no\n" in script
    (tmp_path / "hand.hand").write_text(script, encoding="utf-8")
    assert main(["replay", str(tmp_path / "hand.hand")]) == 0
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    settled = [event for event in printed if event["kind"] == "hand_settled"]
    assert settled == [json.loads(json.dumps(to_dict(_settled(events))))]


def _without(text: str, *names: str) -> str:
    return "".join(
        line
        for line in text.splitlines(keepends=True)
        if line.split(" = ")[0] not in {f"_tablectl_{name}" for name in names}
    )


@pytest.mark.parametrize("game", GAMES_)
def test_a_history_that_leaves_the_rake_out_is_refused_not_paid_to_the_winners(
    game: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A raked hand's file without the rake fields (as the export wrote it before it gave
    them): the hand replayed at no rake would pay a winner the chips the table raked; its
    ``finishing_stacks`` say so, and ``import-phh`` says why it does not convert it (exit 1)."""
    stakes, events = _one_raked_hand(game)
    old = _without(
        _exported(game, stakes, events), "rake", "rake_percent", "rake_cap", "chip", "cap"
    )
    with pytest.raises(
        PhhUnsupported,
        match=r"^finishing_stacks: p\d \(seat \d+\) ends the hand with \d+; replayed at the "
        r"file's stakes \(no rake, raked 0\) it ends with \d+: the source settled",
    ):
        to_hand_script(read_phh(old))
    phh = tmp_path / "hand-1.phh"
    phh.write_text(old, encoding="utf-8")
    assert main(["import-phh", str(phh)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"{phh}: not converted: finishing_stacks: p")


def test_a_rake_the_files_stakes_do_not_take_is_refused_naming_both() -> None:
    stakes, events = _one_raked_hand("mambo")
    text = _exported("mambo", stakes, events)
    raked = _settled(events).rake
    wrong = text.replace(f"_tablectl_rake = {raked}\n", f"_tablectl_rake = {raked - 1}\n")
    with pytest.raises(
        PhhUnsupported,
        match=rf"^_tablectl_rake = {raked - 1}: the table raked {raked - 1}; the file's stakes "
        rf"\(rake 7% up to 9, none without a showdown\) rake {raked} from the hand$",
    ):
        to_hand_script(read_phh(wrong))


def test_a_file_that_gives_the_rake_but_no_finishing_stacks_is_checked_by_the_rake() -> None:
    stakes, events = _one_raked_hand("triple-draw")
    text = "".join(
        line
        for line in _exported("triple-draw", stakes, events).splitlines(keepends=True)
        if not line.startswith("finishing_stacks = ")
    )
    assert _replayed(text) == _settled(events)
    raked = _settled(events).rake
    with pytest.raises(PhhUnsupported, match=rf"^_tablectl_rake = {raked + 1}: "):
        to_hand_script(
            read_phh(text.replace(f"_tablectl_rake = {raked}\n", f"_tablectl_rake = {raked + 1}\n"))
        )


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("rake_percent", "101", "_tablectl_rake_percent = 101; expected a whole percentage, 0"),
        ("rake_percent", "5.5", "_tablectl_rake_percent = 5.5; expected a whole percentage"),
        ("rake_cap", "-1", "_tablectl_rake_cap = -1; expected the most chips raked from a hand"),
        ("rake_without_showdown", '"no"', "_tablectl_rake_without_showdown = 'no'; expected "),
        ("chip", "0", "_tablectl_chip = 0; expected the smallest chip, a whole number of 1"),
        ("cap", "true", "_tablectl_cap = True; expected the bets of a round"),
        ("rake", "-6", "_tablectl_rake = -6; expected the chips the table raked"),
    ],
)
def test_a_malformed_stakes_field_is_refused_naming_it(
    field: str, value: str, message: str
) -> None:
    stakes, events = _one_raked_hand("five-card-stud")
    text = _without(_exported("five-card-stud", stakes, events), field)
    with pytest.raises(PhhError, match=f"^hand-1.phh: {re.escape(message)}"):
        read_phh(f"{text}_tablectl_{field} = {value}\n", "hand-1.phh")


def test_posted_stakes_no_table_takes_are_refused_naming_the_field() -> None:
    """table.toml's [stakes] (docs/deploy.md): every amount and the rake cap are whole chips of
    the smallest chip; a file whose chip does not divide them names the field that breaks."""
    stakes, events = _one_raked_hand("triple-draw")
    text = _exported("triple-draw", stakes, events)
    assert "_tablectl_chip = 1\n" in text
    with pytest.raises(
        PhhError,
        match=r"^the stakes \(_tablectl_rake_cap\): rake_cap=9; expected no cap or a "
        r"non-negative multiple of the smallest chip 5$",
    ):
        to_hand_script(read_phh(text.replace("_tablectl_chip = 1\n", "_tablectl_chip = 5\n")))
    with pytest.raises(
        PhhError, match=r"^the stakes \(small_bet\): small_bet=10; expected a non-negative "
    ):
        to_hand_script(read_phh(text.replace("_tablectl_chip = 1\n", "_tablectl_chip = 3\n")))
