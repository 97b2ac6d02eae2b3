"""Journals written before the journal schema still verify, recall and replay:
``tests/fixtures/journal-before-schema`` holds one per game (five-card stud 14.13, Mambo 14.13A,
triple draw 14.12A), with a misdeal and a seat change (tests/fixtures/README.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.cli.main import main
from controller.history.recall import format_hand, hands
from controller.journal import JournalReader, verify
from controller.poker.games import GAMES
from controller.table.core import TableCore
from simulator.simtable import demo_config

FIXTURES = Path(__file__).parent / "fixtures" / "journal-before-schema"
GAMES_DEALT = ["five-card-stud", "mambo", "triple-draw"]


@pytest.mark.fast
@pytest.mark.parametrize("game", GAMES_DEALT)
def test_the_journal_before_the_schema_verifies(game: str) -> None:
    report = verify(FIXTURES / game)
    assert report.intact, report.summary()
    assert report.records > 200


@pytest.mark.fast
@pytest.mark.parametrize("game", GAMES_DEALT)
def test_the_journal_before_the_schema_recalls_as_it_did(game: str) -> None:
    """Recall's text and its JSON hands are what the code of the day printed for them, in
    today's words (tests/fixtures/README.md)."""
    shown = hands(JournalReader(FIXTURES / game), 10)
    text = "\n\n".join(format_hand(hand) for hand in shown) + "\n"
    assert text == (FIXTURES / f"{game}.recall.txt").read_text(encoding="utf-8")
    assert [h.number for h in shown] == [1, 2, 3, 4, 5]
    assert "void (misdeal)" in text
    assert "seat change: sit seat 6 300" in text


@pytest.mark.fast
@pytest.mark.parametrize("game", GAMES_DEALT)
def test_the_journal_before_the_schema_recalls_as_json_as_it_did(
    game: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["recall", "--json", "--journal", str(FIXTURES / game)]) == 0
    got = json.loads(capsys.readouterr().out)
    expected = json.loads((FIXTURES / f"{game}.recall.json").read_text(encoding="utf-8"))
    assert got["intact"] is True
    assert got["hands"] == expected


@pytest.mark.fast
@pytest.mark.parametrize("game", GAMES_DEALT)
def test_the_journal_before_the_schema_replays_without_a_mismatch(game: str) -> None:
    """TableCore over every record, from the table's configuration of the day (four seats at
    the simulator's stakes): each decision and checkpoint equals what the engine decides now."""
    spec = GAMES[game]
    core = TableCore(spec, demo_config(spec, 4))
    for record in JournalReader(FIXTURES / game):
        core.replay(record)
    assert (core.finished, core.voided) == (5, 1)  # hands over, of which void
    assert tuple(s.seat for s in core.table.state.seats) == (1, 2, 3, 6)
