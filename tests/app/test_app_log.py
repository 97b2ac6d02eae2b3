"""The controller's log lines: each controller's own hand number, none before its first hand
(issue 15); the facts of settlements, alarms and device events as fields."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from apphelp import PATIENCE, dealer, json_log, sim_table

from controller.app.loop import wait_until
from controller.inputs import Button


def table_lines(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [line for line in lines if line["logger"] == "controller.table"]


def test_a_table_that_dealt_no_hand_logs_no_hand_field(tmp_path: Path) -> None:
    """Before the first hand is dealt no line carries ``hand`` (not ``"hand": 0``): the table
    opened and closed without a hand."""
    with json_log(tmp_path) as lines, sim_table(tmp_path) as table:
        assert wait_until(lambda: not table.controller.core.paused_by, PATIENCE)
    events = [line["event"] for line in table_lines(lines)]
    assert "table_opened" in events
    assert "table_closed" in events
    assert [line for line in lines if "hand" in line] == []


def test_two_controllers_in_one_process_log_their_own_hand_numbers(tmp_path: Path) -> None:
    """The hand number is each controller's: table A at hand 2, table B opened beside it
    (no hand yet) deals hand 1, then A's next line still says hand 2, and B's last says 1."""
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    with json_log(tmp_path) as lines, sim_table(first) as table_a:
        dealer(table_a, hands=2).run()
        with sim_table(second) as table_b:
            dealer(table_b, hands=1).run()
        a = table_a.controller
        inputs = a.inputs
        table_a.sim.press(Button.MISDEAL)  # between hands: refused, logged as table A's line
        assert wait_until(lambda: a.inputs == inputs + 1, PATIENCE)
    controller_lines = table_lines(lines)
    opened = [line for line in controller_lines if line["event"] == "table_opened"]
    assert [line.get("hand") for line in opened] == [None, None]
    (refused,) = [line for line in controller_lines if line["event"] == "refused"]
    assert refused["hand"] == 2
    closed = [line.get("hand") for line in controller_lines if line["event"] == "table_closed"]
    assert closed == [1, 2]  # B's closes first, inside A's block
