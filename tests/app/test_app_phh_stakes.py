"""Stakes journaled with each hand: ``tablectl export`` and recall tell each hand by
the stakes it was dealt under (13:69F-8.3: the posted stakes), not by the configuration of the
day; a journal written before hands recorded them still exports, at the configuration's."""

from __future__ import annotations

import json
import shutil
import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from apphelp import dealer
from confighelp import export_config

from controller.cli.main import main
from controller.config.settings import JournalSettings
from controller.history.recall import hands
from controller.journal import JournalReader
from controller.poker.engine import Stakes
from controller.poker.engine.events import HandSettled, to_dict
from simulator.simtable import SimTable

FIXTURE = Path(__file__).parent.parent / "fixtures" / "journal-before-stakes"
#: The stakes of the second session, after the floor raised them between two runs.
RAISED = Stakes(small_bet=10, big_bet=20, ante=2, bring_in=5)
#: The configuration at the time of the export: neither session's.
TODAY = """ante = 5
bring_in = 10
small_bet = 25
big_bet = 50"""


def _session(
    tmp_path: Path, stakes: Stakes | None, hands: int, seed: int, seats: int = 6
) -> Stakes:
    """Run the simulated Mambo table (14.13A) on the journal in tmp_path for ``hands`` hands,
    under ``stakes`` (None: the simulator's own); return the stakes it was configured with.
    Each session's devices boot anew (their seed): the same boot would be taken for a resend."""
    journal = JournalSettings(tmp_path / "journal", fsync=False)
    table = SimTable("mambo", journal, seed=seed, seats=seats)
    table.directory = tmp_path
    if stakes is not None:
        table.config = replace(table.config, stakes=stakes)
    with table:
        dealer(table, hands=hands).run()
    return table.config.stakes


def _exported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[dict[int, dict[str, Any]], str]:
    """``tablectl export`` under today's configuration: each file by its hand, and stdout."""
    config = export_config(
        tmp_path, 'id = "STAKES-1"\ngame = "mambo"\nseats = [1, 2, 3, 4, 5, 6]', TODAY
    )
    out = tmp_path / "phh"
    assert main(["export", "--config", str(config), "--out", str(out)]) == 0
    files = {}
    for path in out.iterdir():
        phh = tomllib.loads(path.read_text(encoding="utf-8"))
        files[phh["hand"]] = phh
    return files, capsys.readouterr().out


def _stakes(phh: dict[str, Any]) -> tuple[int, int, int, int]:
    return (phh["antes"][0], phh["bring_in"], phh["small_bet"], phh["big_bet"])


def test_13_69f_8_3_each_hand_exports_at_the_stakes_it_was_dealt_under(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two hands dealt at one stakes, the configuration changed, two more dealt: the export,
    made under a third configuration, writes each hand at its own stakes; recall shows them."""
    first = _session(tmp_path, None, hands=2, seed=1)
    assert first != RAISED
    _session(tmp_path, RAISED, hands=2, seed=2)
    files, said = _exported(tmp_path, capsys)
    assert sorted(files) == [1, 2, 3, 4]
    for number in (1, 2):
        assert _stakes(files[number]) == (first.ante, first.bring_in, 5, 10), number
    for number in (3, 4):
        assert _stakes(files[number]) == (2, 5, 10, 20), number
    assert {phh["_tablectl_stakes"] for phh in files.values()} == {"journal"}
    assert "configuration's" not in said, "every hand had its stakes: no note"
    assert main(["recall", "4", "--journal", str(tmp_path / "journal")]) == 0
    stakes_lines = [line for line in capsys.readouterr().out.splitlines() if "stakes:" in line]
    assert stakes_lines == [
        "  stakes: ante 1, bring-in 2, bets 5/10",
        "  stakes: ante 1, bring-in 2, bets 5/10",
        "  stakes: ante 2, bring-in 5, bets 10/20",
        "  stakes: ante 2, bring-in 5, bets 10/20",
    ]


def test_a_journal_written_before_hands_recorded_their_stakes_exports_at_the_configurations(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """tests/fixtures/journal-before-stakes (written by the code before this record): every
    hand exports, at the configuration's stakes, the files and the command say so; recall
    says the journal does not hold them."""
    shutil.copytree(FIXTURE, tmp_path / "journal")
    files, said = _exported(tmp_path, capsys)
    assert sorted(files) == [1, 2, 3]
    for phh in files.values():
        # The antes are the hand's own (its start journaled them); the rest is configured.
        assert _stakes(phh) == (1, 10, 25, 50)
        assert phh["_tablectl_stakes"] == "configuration"
    assert "3 hands written" in said
    assert (
        "hands 1-3: the journal does not record the stakes (written before hands recorded "
        "them); written with the configuration's, ante 5, bring-in 10, bets 25/50" in said
    )
    assert main(["recall", "--journal", str(tmp_path / "journal")]) == 0
    out = capsys.readouterr().out
    assert out.count("stakes: not in the journal (written before hands recorded them)") == 3


def test_a_table_opens_on_a_journal_written_before_and_journals_the_stakes_from_then_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The old journal's last checkpoint holds no stakes: its hand is replayed under the
    configuration's (the fixture's table's), and the next hand journals its own."""
    shutil.copytree(FIXTURE, tmp_path / "journal")
    dealt = _session(tmp_path, None, hands=1, seed=2, seats=3)
    files, said = _exported(tmp_path, capsys)
    assert sorted(files) == [1, 2, 3, 4]
    assert [files[n]["_tablectl_stakes"] for n in (1, 2, 3, 4)] == ["configuration"] * 3 + [
        "journal"
    ]
    assert _stakes(files[4]) == (dealt.ante, dealt.bring_in, dealt.small_bet, dealt.big_bet)
    assert _stakes(files[3]) == (1, 10, 25, 50), "hand 3 at today's configuration, as noted"
    assert "hands 1-3: the journal does not record the stakes" in said


def test_14_19c_tablectl_export_of_a_raked_session_replays_to_each_hands_settlement(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A raked Mambo session (5% up to 3, taken before a pot is divided: 14.19(c)): ``tablectl
    export`` writes each hand's posted rake and what the table raked; ``tablectl import-phh``
    and ``tablectl replay`` settle each hand as the journal did, chip for chip."""
    raked = Stakes(small_bet=5, big_bet=10, ante=1, bring_in=2, rake_percent=5, rake_cap=3)
    _session(tmp_path, raked, hands=4, seed=3)
    journal = {
        hand.number: next(e for e in hand.events if isinstance(e, HandSettled))
        for hand in hands(JournalReader(tmp_path / "journal"))
    }
    files, _said = _exported(tmp_path, capsys)
    assert sorted(files) == sorted(journal)
    assert any(settled.rake for settled in journal.values()), "a hand raked"
    for number, settled in journal.items():
        phh = files[number]
        assert (phh["_tablectl_rake_percent"], phh["_tablectl_rake_cap"]) == (5, 3)
        assert phh["_tablectl_rake"] == settled.rake
        assert main(["import-phh", str(tmp_path / "phh" / f"hand-{number}.phh")]) == 0
        script = tmp_path / f"hand-{number}.hand"
        script.write_text(capsys.readouterr().out, encoding="utf-8")
        assert main(["replay", str(script)]) == 0
        printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        replayed = [event for event in printed if event["kind"] == "hand_settled"]
        table_paid = json.loads(json.dumps(to_dict(settled)))
        table_paid["hand"] = 1  # the script deals its hand as the table's first
        assert replayed == [table_paid], number
