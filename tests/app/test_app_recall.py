"""``tablectl recall [N]``: the last hands from the journal, also while the table is held."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from apphelp import PATIENCE, dealer, sim_table

from controller.cli.main import main
from controller.config.settings import JournalSettings
from controller.history.recall import hands
from controller.journal import JournalReader, schema, verify
from controller.journal import tablerecords as rec
from controller.poker.engine.events import Alarm
from controller.poker.games import GAMES
from controller.poker.inputs import Button
from controller.table.core import TableCore
from controller.table.loop import wait_until
from simulator.simtable import SimTable, demo_config

#: Each game's journal as the code before the schema wrote it (tests/fixtures/README.md).
FIXTURES = Path(__file__).parent.parent / "fixtures" / "journal-before-schema"


def test_recall_shows_the_last_hands_in_order_with_cards_actions_and_settlement(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Game recall: the last N hands, oldest first, each with its cards (burns too),
    actions and settlement; the default is 10."""
    with sim_table(tmp_path, "five-card-stud") as table:
        dealer(table, hands=12).run()
    assert main(["recall", "3", "--journal", str(tmp_path / "journal")]) == 0
    out = capsys.readouterr().out
    heads = [line for line in out.splitlines() if line.startswith("Hand ")]
    assert [h.split(",")[0] for h in heads] == ["Hand 10", "Hand 11", "Hand 12"]
    assert out.count("settled:") == 3
    assert "burn " in out
    assert "face down" in out
    assert "face up" in out
    assert main(["recall", "--journal", str(tmp_path / "journal")]) == 0
    heads = [line for line in capsys.readouterr().out.splitlines() if line.startswith("Hand ")]
    assert len(heads) == 10
    assert heads[0].startswith("Hand 3,")


def test_recall_works_while_an_alarm_holds_the_hand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Recall reads the journal while the controller runs and an alarm holds the hand
    (rules-interpretation.md, Integrity); the held hand is shown in progress, with its alarm."""
    with sim_table(tmp_path) as table:
        dealer(table, hands=1).run()
        controller = table.controller
        table.sim.shuffle(11)
        table.sim.press(Button.NEW_HAND)
        assert wait_until(lambda: controller.core.table.hand_number == 2, PATIENCE)
        table.sim.foreign_tag()
        assert wait_until(lambda: isinstance(controller.core.table.pending, Alarm), PATIENCE)
        # The core holds the alarm as it takes the tag's record; recall reads the alarm in the
        # decision record, journaled only after the announcement (controller/table/loop.py):
        # wait until the journal's last record is that decision.
        journal = controller.journal
        assert wait_until(
            lambda: journal.last is not None and journal.last.kind in rec.DECISIONS, PATIENCE
        )
        assert main(["recall", "--journal", str(tmp_path / "journal")]) == 0
    out = capsys.readouterr().out
    assert "Hand 1, Mambo Stud" in out
    assert "Hand 2, Mambo Stud" in out
    assert "(in progress)" in out
    assert "ALARM tag " in out


@pytest.mark.parametrize("game", ["five-card-stud", "mambo", "triple-draw"])
def test_a_table_opens_on_the_journal_before_the_schema_and_deals_on_in_version_1(
    tmp_path: Path, game: str
) -> None:
    """The controller opens on the old journal (its last checkpoint has no version), deals a
    hand whose start and checkpoint carry version 1; the journal of both versions verifies,
    recalls every hand and replays whole through TableCore."""
    spec = GAMES[game]
    before = TableCore(spec, demo_config(spec, 4))
    for record in JournalReader(FIXTURES / game):
        before.replay(record)
    table = before.table
    seated = replace(
        demo_config(spec, 4),
        seats=tuple(s.seat for s in table.state.seats),
        stacks={seat: chips for seat, chips in table.stacks.items() if chips is not None},
        dealer=table.checkpoint().dealer,
    )
    shutil.copytree(FIXTURES / game, tmp_path / "journal")
    sim = SimTable(game, JournalSettings(tmp_path / "journal", fsync=False), seed=7, seats=4)
    sim.directory = tmp_path
    sim.config = seated
    with sim:
        dealer(sim, hands=1).run()
    journal = tmp_path / "journal"
    assert verify(journal).intact
    records = list(JournalReader(journal))
    versions = {r.seq: r.data.get("version") for r in records if r.kind in schema.VERSIONED}
    old = max(r.seq for r in JournalReader(FIXTURES / game))
    assert {v for seq, v in versions.items() if seq <= old} == {None}
    assert {v for seq, v in versions.items() if seq > old} == {schema.VERSION}  # hand 6, checkpoint
    assert [h.number for h in hands(records)] == [1, 2, 3, 4, 5, 6]
    core = TableCore(spec, demo_config(spec, 4))  # the table's first configuration
    for record in records:
        core.replay(record)
    assert (core.finished, core.voided) == (6, 1)
