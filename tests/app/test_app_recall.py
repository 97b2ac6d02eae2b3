"""``tablectl recall [N]``: the last hands from the journal, also while the table is held."""

from __future__ import annotations

from pathlib import Path

import pytest
from apphelp import PATIENCE, dealer, sim_table

from controller.app.loop import wait_until
from controller.cli import main
from controller.engine.events import Alarm
from controller.inputs import Button


def test_recall_shows_the_last_hands_in_order_with_cards_actions_and_settlement(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 7, game recall: the last N hands, oldest first, each with its cards (burns too),
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
    """Issue 7: recall reads the journal while the controller runs and an alarm holds the hand
    (NOTES.md, Integrity); the held hand is shown in progress, with its alarm."""
    with sim_table(tmp_path) as table:
        dealer(table, hands=1).run()
        controller = table.controller
        table.sim.shuffle(11)
        table.sim.press(Button.NEW_HAND)
        assert wait_until(lambda: controller.core.table.hand_number == 2, PATIENCE)
        table.sim.foreign_tag()
        assert wait_until(lambda: isinstance(controller.core.table.pending, Alarm), PATIENCE)
        assert main(["recall", "--journal", str(tmp_path / "journal")]) == 0
    out = capsys.readouterr().out
    assert "Hand 1, mambo" in out
    assert "Hand 2, mambo" in out
    assert "(in progress)" in out
    assert "ALARM tag " in out
