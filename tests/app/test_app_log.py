"""The controller's log lines: each controller's own hand number, none before its first hand
(docs/app.md, The log); the facts of settlements, alarms and device events as fields."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from apphelp import PATIENCE, dealer, json_log, on_a_full_disk, sim_table

from controller.journal import JournalReader
from controller.journal import tablerecords as rec
from controller.poker.engine.events import Alarm
from controller.poker.inputs import Button
from controller.table.loop import wait_until
from controller.table.service import serve


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


def test_settlement_alarm_and_device_lines_carry_their_facts_as_fields(tmp_path: Path) -> None:
    """A shipper queries fields, not sentences: the settlement's pots, rake and nets as the
    journal has them; an alarm's read, point, reason and what was expected; a lost shoe's
    device and cause (lost), and its return's outcome; a device sentence's own number as
    ``sentence_seq`` (not written over by the line's ``seq``); the hand's anchor with the seq
    of the input that ended it."""
    with json_log(tmp_path) as lines, sim_table(tmp_path) as table:
        dealer(table, hands=2).run()
        controller = table.controller
        table.sim.unplug("shoe")
        assert wait_until(lambda: "shoe" in controller.core.paused_by, PATIENCE)
        table.sim.replug("shoe")
        assert wait_until(lambda: not controller.core.paused_by, PATIENCE)
        table.sim.shuffle(9)
        table.sim.press(Button.NEW_HAND)
        assert wait_until(lambda: controller.core.table.hand_number == 3, PATIENCE)
        table.sim.foreign_tag()
        assert wait_until(lambda: isinstance(controller.core.table.pending, Alarm), PATIENCE)
        alarm = controller.core.table.pending
    records = list(JournalReader(tmp_path / "journal"))
    journaled = [
        event
        for record in records
        if record.kind in rec.DECISIONS
        for event in record.data["events"]  # type: ignore[union-attr]
        if isinstance(event, dict)
    ]
    ours = table_lines(lines)
    settled = [line for line in ours if line["event"] == "hand_settled"]
    expected = [event for event in journaled if event["kind"] == "hand_settled"]
    assert [line["hand"] for line in settled] == [1, 2]
    for line, event in zip(settled, expected, strict=True):
        assert (line["net"], line["pots"], line["rake"]) == (
            event["net"],
            event["pots"],
            event["rake"],
        )
    (alarmed,) = [line for line in ours if line["event"] == "alarm"]
    assert isinstance(alarm, Alarm)
    assert (alarmed["level"], alarmed["hand"]) == ("warning", 3)
    assert (alarmed["read"], alarmed["point"], alarmed["reason"], alarmed["expected"]) == (
        alarm.read,
        alarm.point,
        alarm.reason,
        alarm.expected,
    )
    (paused,) = [line for line in ours if line["event"] == "table_paused"]
    assert (paused["level"], paused["device"], paused["cause"]) == ("warning", "shoe", "lost")
    back = [line for line in ours if line["event"] == "device_back" and line["device"] == "shoe"]
    assert back[-1]["outcome"]
    buttons = [line for line in lines if line["event"] == "button"]
    assert [line["sentence_seq"] for line in buttons] == [
        record.data["seq"] for record in records if record.kind == rec.BUTTON
    ]
    ends = {  # the input whose decision settled a hand: the anchor's input_seq
        record.data["input"]
        for record in records
        if record.kind in rec.DECISIONS
        and any(
            isinstance(e, dict) and e["kind"] == "hand_settled"
            for e in record.data["events"]  # type: ignore[union-attr]
        )
    }
    anchors = [line["input_seq"] for line in ours if line["event"] == "journal_anchor"]
    assert sorted(anchors) == sorted(ends)
    assert len(ends) == 2


def test_a_failed_journal_is_logged_with_the_hand_it_stopped_in(tmp_path: Path) -> None:
    """journal_failed (critical: the service stops) names the controller's hand, as its other
    lines do: here hand 1, resumed from the journal by the controller that then fails."""
    with json_log(tmp_path) as lines, sim_table(tmp_path) as table:
        dealer(table, hands=1).run()
        controller = on_a_full_disk(table)
        table.sim.press(Button.NEW_HAND)  # its journal record is what fails
        assert serve(controller, threading.Event()) is False
    (failed,) = [line for line in lines if line["event"] == "journal_failed"]
    assert (failed["level"], failed["hand"]) == ("critical", 1)
