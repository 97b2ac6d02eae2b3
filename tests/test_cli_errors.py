"""Bad input gets a clear error naming the input and what was expected, never a traceback;
and the commands work on the tables the docs describe."""

from __future__ import annotations

import math
import random
import tomllib
import warnings
from pathlib import Path

import pytest
from confighelp import export_config
from pokerkit import HandHistory

from controller.cli.main import main
from controller.history.phh.convert import to_hand_script
from controller.history.phh.parse import read_phh
from controller.journal import JournalWriter
from controller.journal.tablerecords import decision_data
from controller.poker.cards import DECK
from controller.poker.engine import Stakes, Table, TableSetup
from controller.poker.engine.autoplay import play_hand
from controller.poker.games import GAMES

#: The bench table of docs/simulator.md has no [stacks]: only seat 2 here has a known stack
#: (as a ``tablectl seat sit 2 --chips 300`` would give it); seats 1 and 3 bet from unknown ones.
KNOWN = {2: 300}
STUD_STAKES = Stakes(small_bet=5, big_bet=10, ante=1, bring_in=2)
DRAW_STAKES = Stakes(small_bet=2, big_bet=4, small_blind=1, big_blind=2)


def _journal_hands(directory: Path, game: str, hands: int = 4) -> Table:
    """Play ``hands`` random hands of ``game`` at three seats through the engine and journal
    their decisions as the controller does; return the table (its stacks after them)."""
    draw = game == "triple-draw"
    config = TableSetup(
        seats=(1, 2, 3),
        stakes=DRAW_STAKES if draw else STUD_STAKES,
        dealer=1 if draw else 0,
        stacks=KNOWN,
    )
    table = Table(GAMES[game], config)
    rng = random.Random(7)
    with JournalWriter.open(directory, fsync=False) as writer:
        for number in range(hands):
            deck = list(DECK)
            rng.shuffle(deck)
            events = play_hand(table, deck, lambda pending: rng.choice(pending.options))
            writer.append(*decision_data(number, events))
    return table


def _table_toml(tmp_path: Path, game: str) -> Path:
    """A table.toml without [stacks], its journal in tmp_path / "journal"."""
    if game == "triple-draw":
        table, stakes = "button = 1", "small_bet = 2\nbig_bet = 4\nsmall_blind = 1\nbig_blind = 2"
    else:
        table, stakes = "", "small_bet = 5\nbig_bet = 10\nante = 1\nbring_in = 2"
    return export_config(
        tmp_path, f'id = "BENCH-1"\ngame = "{game}"\nseats = [1, 2, 3]\n{table}', stakes
    )


def _export(tmp_path: Path, game: str, capsys: pytest.CaptureFixture[str]) -> list[Path]:
    config = _table_toml(tmp_path, game)
    out = tmp_path / "phh"
    status = main(["export", "--config", str(config), "--out", str(out)])
    captured = capsys.readouterr()
    assert (status, captured.err) == (0, ""), captured.err
    assert "4 hands written" in captured.out
    return sorted(out.iterdir(), key=lambda p: int(p.stem.split("-")[1]))


@pytest.mark.parametrize("game", ["five-card-stud", "mambo", "triple-draw"])
def test_export_of_a_table_without_stacks_writes_unknown_stacks_as_inf(
    tmp_path: Path, game: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A table without [stacks] (it crashed with KeyError): every hand is written; a seat the
    table knows no stack of has ``inf`` (PokerKit's unknown stack), the known seat its chips."""
    table = _journal_hands(tmp_path / "journal", game)
    files = _export(tmp_path, game, capsys)
    assert [p.name for p in files] == [f"hand-{n}.phh" for n in range(1, 5)]
    for path in files:
        phh = tomllib.loads(path.read_text(encoding="utf-8"))
        for seat, start, finish in zip(
            phh["seats"], phh["starting_stacks"], phh["finishing_stacks"], strict=True
        ):
            if seat in KNOWN:
                assert isinstance(start, int)
                assert isinstance(finish, int)
            else:
                assert start == finish == math.inf
    last = tomllib.loads(files[-1].read_text(encoding="utf-8"))
    assert last["finishing_stacks"][last["seats"].index(2)] == table.stacks[2]


def test_an_exported_triple_draw_hand_with_unknown_stacks_replays_and_imports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PokerKit replays each file to its finishing stacks, and ``tablectl import-phh`` reads it
    back (an ``inf`` stack as an unknown one: the hand script's stacks name seat 2 alone)."""
    _journal_hands(tmp_path / "journal", "triple-draw")
    for path in _export(tmp_path, "triple-draw", capsys):
        text = path.read_text(encoding="utf-8")
        history = HandHistory.loads(text)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # PokerKit warns of the user fields (_tablectl_...)
            states = list(history)
        assert [float(s) for s in states[-1].stacks] == tomllib.loads(text)["finishing_stacks"]
        hand = read_phh(text, str(path))
        assert hand.seats is not None
        stacks = zip(hand.seats, hand.starting_stacks, strict=True)
        known = [seat for seat, stack in stacks if stack is not None]
        assert known == [2]  # the others' stacks are unknown
        assert set(to_hand_script(hand).config.stacks) == {2}, "the import keeps the seats"


def test_export_has_no_phh_flag(capsys: pytest.CaptureFixture[str]) -> None:
    """PHH is export's only format: no ``--phh`` to give."""
    with pytest.raises(SystemExit):
        main(["export", "--help"])
    assert "--phh" not in capsys.readouterr().out


def test_enroll_on_a_port_that_does_not_exist_says_so_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``enroll --port /dev/ttyNOPE``: no retrying (it waited out its silence timeout, 60 s by
    default): the port is named as missing, the exit status is 2, no deck file is written."""
    port = tmp_path / "ttyNOPE"
    deck = tmp_path / "red.deck"
    status = main(["enroll", "--deck", str(deck), "--port", str(port), "--timeout", "1"])
    out = capsys.readouterr().out
    assert status == 2
    assert f"error: port {port} does not exist" in out
    assert "connection lost" not in out
    assert not deck.exists()


@pytest.mark.parametrize("game", ["five-card-stud", "mambo"])
def test_import_phh_reads_back_tablectls_own_stud_export_with_unknown_stacks(
    tmp_path: Path, game: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """tablectl's own stud export (F5S, FMB/6) has no blinds: the import said
    ``blinds_or_straddles = None; expected a list`` with the path twice, then refused the
    variant. Now it converts: exit 0, a hand script with seat 2's stack alone (the
    others bet from unknown stacks, written inf)."""
    _journal_hands(tmp_path / "journal", game)
    path = _export(tmp_path, game, capsys)[0]
    assert main(["import-phh", str(path)]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert f"game {game}" in captured.out
    assert "stacks 2=" in captured.out


def test_import_phh_of_a_variant_it_does_not_convert_names_the_variants_it_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A PHH variant tablectl deals no game of (seven-card stud): exit 1, the file named once,
    its variant, and the variants tablectl converts."""
    path = tmp_path / "seven.phh"
    path.write_text(
        'variant = "F7S"\nantes = [1, 1]\nbring_in = 2\nsmall_bet = 5\nbig_bet = 10\n'
        "starting_stacks = [100, 100]\nactions = []\n",
        encoding="utf-8",
    )
    assert main(["import-phh", str(path)]) == 1
    assert capsys.readouterr().err == (
        f"{path}: not converted: variant 'F7S'; tablectl converts ['F2L3D', 'F5S', 'FMB/6'] "
        "(fixed-limit Triple Draw 2-7, 14.12A; fixed-limit Five-Card Stud, 14.13; fixed-limit "
        "Mambo Stud, 14.13A) only\n"
    )


def test_import_phh_names_a_missing_field_and_the_file_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An F2L3D file without its blinds: the field is missing (not ``= None``), the file is
    named once, exit 2."""
    path = tmp_path / "hand.phh"
    path.write_text('variant = "F2L3D"\nstarting_stacks = [100, 100]\nactions = []\n')
    assert main(["import-phh", str(path)]) == 2
    err = capsys.readouterr().err
    assert err == f"{path}: blinds_or_straddles is missing; expected a list of whole chip amounts\n"


def test_seat_out_of_range_names_the_seats_of_the_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``seat sit 12`` at an 11-seat Mambo table (14.13A(b)): refused before the controller is
    asked (none runs here), naming the seat and the seats the game has; exit 1."""
    config = _table_toml(tmp_path, "mambo")
    assert main(["seat", "--config", str(config), "sit", "12", "--chips", "500"]) == 1
    assert capsys.readouterr().err == (
        "tablectl seat: refused: seat 12 is out of range; Mambo Stud has seats 1 to 11 "
        "(N.J.A.C. 13:69F-14.13A)\n"
    )
    assert main(["seat", "--config", str(config), "leave", "0"]) == 1
    assert "seat 0 is out of range" in capsys.readouterr().err


def test_the_refusal_to_run_as_root_names_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """As root, ``tablectl run`` refuses and says how a bench runs it anyway: ``--as-root``."""
    monkeypatch.setattr("os.geteuid", lambda: 0)
    config = tmp_path / "table.toml"
    config.touch()  # a --config that is not there is refused first, as the command line is read
    assert main(["run", "--config", str(config)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("tablectl run: refusing to run as root: run as the user tablectl")
    assert err.rstrip().endswith("pass --as-root")


@pytest.mark.parametrize("command", [["recall"], ["journal", "verify"]])
def test_recall_and_verify_read_the_journal_dir_of_the_config(
    tmp_path: Path, command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """``--config table.toml`` names the journal by its [journal] dir, as for seat and export;
    a configuration that cannot be read is named, exit 2; --config and --journal are either."""
    _journal_hands(tmp_path / "journal", "mambo", hands=2)
    config = _table_toml(tmp_path, "mambo")
    assert main([*command, "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert ("Hand 2, Mambo Stud" in out) if command == ["recall"] else ("intact" in out)
    missing = tmp_path / "none.toml"
    with pytest.raises(SystemExit) as refused:
        main([*command, "--config", str(missing)])
    assert refused.value.code == 2
    assert f"argument --config: {missing}: expected a readable file" in capsys.readouterr().err
    with pytest.raises(SystemExit) as usage:
        main([*command, "--config", str(config), "--journal", str(tmp_path / "journal")])
    assert usage.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err
