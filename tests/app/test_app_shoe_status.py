"""The shoe's state (docs/protocol.md 3.1 ``STA``) reaches the dealer: a reader fault or a jam
pauses the table until the shoe reports it cleared, an open lid or an empty shoe is a warning,
and the journal rebuilds it all after a restart (docs/app.md, The shoe's state)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from apphelp import PATIENCE, json_log, panel_text, ready, sim_table, texts_received

from controller.config.settings import JournalSettings
from controller.display.view import DeviceState, Severity, TableView
from controller.journal import tablerecords as rec
from controller.poker.engine.events import SEAT, ActionRequired, Alarm, CardExpected, Option
from controller.poker.games import GAMES
from controller.poker.inputs import Button
from controller.table.core import Cause, Pause, ShoeWarning, TableCore
from controller.table.loop import Controller, wait_until
from controller.table.paneltext import panel_line
from drivers.seam.events import DeviceDown, Feed, HelloOutcome, Lid, Reader, ShoeState
from simulator.simtable import demo_config, unplugged_table

ASKED = ActionRequired(3, "to act", 5, (Option("fold", 0, "fold"),))
DEAL_TO_4 = CardExpected(SEAT, 4, "down")


@pytest.mark.parametrize(
    ("pending", "pauses", "warnings", "shown"),
    [
        (ASKED, [Pause("shoe", Cause.READER_FAULT)], (), (0, "PAUSED: shoe reader fault")),
        (ASKED, [Pause("shoe", Cause.JAMMED)], (), (0, "PAUSED: shoe jammed")),
        (
            ASKED,
            [Pause("shoe", Cause.READER_FAULT), Pause("shoe", Cause.JAMMED)],
            (ShoeWarning.LID_OPEN,),
            (0, "PAUSED: shoe reader fault; shoe jammed"),
        ),
        (ASKED, [], (ShoeWarning.LID_OPEN,), (3, "Shoe lid open: close it")),
        (DEAL_TO_4, [], (ShoeWarning.EMPTY,), (4, "Shoe empty: load cards or MISDEAL")),
        (
            Alarm("Kd", "slot", "seat 2", "seen twice"),
            [],
            (ShoeWarning.LID_OPEN,),
            (0, "ALARM a card: UNDO or MISDEAL"),
        ),
    ],
)
def test_the_panel_puts_a_shoe_fault_first_and_a_shoe_warning_after_an_alarm(
    pending: CardExpected | ActionRequired | Alarm,
    pauses: list[Pause],
    warnings: tuple[ShoeWarning, ...],
    shown: tuple[int, str],
) -> None:
    """docs/protocol.md 3.1 STA: a reader fault or a jam pauses the table (the panel says so,
    no seat lit); an open lid or an empty shoe replaces the line but keeps the seat the table
    waits for lit; an integrity alarm (rules-interpretation.md, Integrity) outranks a warning."""
    assert panel_line(pending, pauses, warnings) == shown


@pytest.mark.parametrize(
    ("fault", "clear", "cause", "line"),
    [
        (
            lambda sim: sim.set_reader(Reader.FAULT),
            lambda sim: sim.set_reader(Reader.OK),
            Cause.READER_FAULT,
            "PAUSED: shoe reader fault",
        ),
        (
            lambda sim: sim.set_jam(True),
            lambda sim: sim.set_jam(False),
            Cause.JAMMED,
            "PAUSED: shoe jammed",
        ),
    ],
    ids=["reader-fault", "jam"],
)
def test_a_shoe_fault_mid_hand_pauses_the_table_through_a_restart_until_it_clears(
    tmp_path: Path, fault: object, clear: object, cause: Cause, line: str
) -> None:
    """docs/protocol.md 3.1 STA: a reader fault lets cards leave the shoe unread and a jam
    holds one in the slot, so the table pauses as for a lost shoe: the panel and the display
    say so and what to do, the log warns (table_paused). A restart still knows the fault from
    the journal; the shoe's report that it cleared resumes the hand where it stopped."""
    views: list[TableView] = []
    with json_log(tmp_path) as lines, sim_table(tmp_path, display=views.append) as table:
        controller = table.controller
        assert wait_until(lambda: not controller.core.paused_by, PATIENCE)
        table.sim.shuffle(5)
        table.sim.press(Button.NEW_HAND)
        assert wait_until(lambda: panel_text(table).startswith("Card to seat"), PATIENCE)
        dealing = panel_text(table)
        fault(table.sim)  # type: ignore[operator]  # a lambda of the parametrization
        assert wait_until(lambda: panel_text(table) == line, PATIENCE), panel_text(table)
        assert controller.core.pauses == [Pause("shoe", cause)]
        # The view is built on the driver's thread after the panel's line is set.
        assert wait_until(lambda: bool(views[-1].pausing_devices), PATIENCE)
        shoe = views[-1].pausing_devices[0]
        assert (shoe.name, shoe.state) == ("shoe", DeviceState.FAULT)
        assert "resumes where it stopped" in shoe.message
        table.stop_controller()
        drawn = texts_received(table)
        controller = table.start_controller()
        assert controller.core.shoe != rec.ShoeCondition()  # replayed from the journal
        assert wait_until(lambda: controller.core.devices["shoe"].connected, PATIENCE)
        # The panel keeps the line it was last sent: the restarted controller's own is a text
        # received after the restart.
        assert wait_until(lambda: texts_received(table) > drawn, PATIENCE)
        assert wait_until(lambda: panel_text(table) == line, PATIENCE), panel_text(table)
        clear(table.sim)  # type: ignore[operator]  # a lambda of the parametrization
        assert wait_until(lambda: not controller.core.paused_by, PATIENCE)
        assert wait_until(lambda: panel_text(table) == dealing, PATIENCE), panel_text(table)
        assert wait_until(lambda: not views[-1].pausing_devices, PATIENCE), views[-1].devices
    paused = [line for line in lines if line["event"] == "table_paused"]
    assert paused[0]["level"] == "warning"
    assert paused[0]["reason"] == cause.value


def _hellos(controller: Controller, outcome: HelloOutcome) -> None:
    for device in ("shoe", "panel"):
        controller.inbox.put(ready(device, outcome))


def test_a_restart_during_a_reader_fault_stays_paused_until_the_shoe_reports_ok(
    tmp_path: Path,
) -> None:
    """docs/journal.md, replay: the shoe_status records rebuild the shoe's state, so a restarted
    controller whose shoe has said hello but not yet its state is still paused by the fault it
    journaled (docs/protocol.md 3.1 STA); the shoe's ok ends the pause."""
    options = JournalSettings(tmp_path / "journal", fsync=False)
    controller = unplugged_table(options)
    try:
        _hellos(controller, HelloOutcome.NEW_SESSION)
        controller.inbox.put(ShoeState(Lid.CLOSED, Reader.FAULT, Feed.OK, 1))
        controller.drain()
        assert controller.core.pauses == [Pause("shoe", Cause.READER_FAULT)]
    finally:
        controller.close()
    controller = unplugged_table(options)
    try:
        _hellos(controller, HelloOutcome.RESUMED)
        controller.drain()
        assert controller.core.pauses == [Pause("shoe", Cause.READER_FAULT)]
        controller.inbox.put(ShoeState(Lid.CLOSED, Reader.OK, Feed.OK, 2))
        controller.drain()
        assert controller.core.pauses == []
    finally:
        controller.close()


def test_a_shoe_fault_is_logged_as_a_pause_once_as_it_begins_and_once_as_it_clears(
    tmp_path: Path,
) -> None:
    """docs/app.md, The shoe's state: a jam logs table_paused when it begins; the shoe's next
    report while the jam holds (its lid opened) is a shoe_status at info, not a second pause;
    the report that the feed is clear logs shoe_fault_cleared. A shoe lost and back while still
    jammed is paused anew, so its pause is logged again after its device_back."""
    with json_log(tmp_path) as lines:
        controller = unplugged_table(JournalSettings(tmp_path / "journal", fsync=False))
        try:
            _hellos(controller, HelloOutcome.NEW_SESSION)
            controller.inbox.put(ShoeState(Lid.CLOSED, Reader.OK, Feed.JAM, 1))
            controller.inbox.put(ShoeState(Lid.OPEN, Reader.OK, Feed.JAM, 2))
            controller.inbox.put(ShoeState(Lid.CLOSED, Reader.OK, Feed.OK, 3))
            controller.inbox.put(ShoeState(Lid.CLOSED, Reader.OK, Feed.JAM, 4))
            controller.inbox.put(DeviceDown("shoe", "unplugged"))
            controller.inbox.put(ready("shoe", HelloOutcome.RESUMED))
            controller.inbox.put(ShoeState(Lid.CLOSED, Reader.OK, Feed.JAM, 5))
            controller.drain()
        finally:
            controller.close()
    shoe = [
        (line["event"], line.get("reason", line.get("feed")))
        for line in lines
        if line["event"] in ("table_paused", "shoe_status", "shoe_fault_cleared", "device_back")
    ]
    assert shoe == [
        ("device_back", None),  # the shoe's hello
        ("device_back", None),  # the panel's
        ("table_paused", "jammed"),
        ("shoe_status", "jam"),
        ("shoe_fault_cleared", "ok"),
        ("table_paused", "jammed"),
        ("table_paused", "unplugged"),
        ("device_back", None),
        ("table_paused", "jammed"),
    ]


def test_a_checkpoint_carries_the_shoes_state() -> None:
    """docs/journal.md, Checkpoints: a fault reported before a hand's end still pauses a
    restart that replays from the checkpoint on (docs/protocol.md 3.1 STA)."""
    spec = GAMES["mambo"]
    core = TableCore(spec, demo_config(spec))
    for device in ("shoe", "panel"):
        ready = {"device": device, "event": "ready", "outcome": "new_session", "boot": "B"}
        core.take(rec.DEVICE, ready)
    status = {**rec.Origin("shoe", "B", 1).fields(), "lid": "closed", "reader": "ok"}
    core.take(rec.SHOE_STATUS, {**status, "feed": "jam"})
    restored = TableCore(spec, demo_config(spec))
    restored.restore(core.checkpoint())
    assert restored.pauses == [Pause("shoe", Cause.JAMMED)]


def test_a_shoe_status_record_with_an_unknown_word_is_refused_naming_it() -> None:
    """A journal record this controller did not write (docs/protocol.md 3.1 STA's words only)
    stops the replay with an error naming the field and the words expected."""
    spec = GAMES["mambo"]
    core = TableCore(spec, demo_config(spec))
    status = {**rec.Origin("shoe", "B", 1).fields(), "lid": "ajar", "reader": "ok", "feed": "ok"}
    expected = 'shoe_status).lid: expected one of open, closed, not "ajar"'
    with pytest.raises(rec.RecordFormatError, match=re.escape(expected)):
        core.take(rec.SHOE_STATUS, status)


def test_an_open_lid_in_a_hand_and_an_empty_shoe_when_a_card_is_due_warn_the_dealer(
    tmp_path: Path,
) -> None:
    """docs/protocol.md 3.1 STA: between hands the lid is open to load the shoe (no warning);
    in a hand an open lid lets a card out unread, and an empty shoe cannot give the card due:
    the panel and the display warn (amber, the hand not held), the log warns, and the warning
    ends when the shoe reports the lid closed or cards loaded."""
    views: list[TableView] = []
    with json_log(tmp_path) as lines, sim_table(tmp_path, display=views.append) as table:
        controller = table.controller
        assert wait_until(lambda: not controller.core.paused_by, PATIENCE)
        table.sim.set_lid(Lid.OPEN)
        with table.sim.locked():
            table.sim.shoe.load([])  # the dealer takes the cards out through the lid
        assert wait_until(lambda: controller.core.shoe.feed == "empty", PATIENCE)
        assert controller.core.shoe.lid == "open"
        assert wait_until(lambda: panel_text(table) == "Shuffle; NEW HAND for hand 1", PATIENCE)
        assert not views[-1].alarms
        table.sim.press(Button.NEW_HAND)
        line = "Shoe lid open: close it"
        assert wait_until(lambda: panel_text(table) == line, PATIENCE), panel_text(table)
        warnings = [Severity.WARNING] * 2
        assert wait_until(lambda: [a.severity for a in views[-1].alarms] == warnings, PATIENCE)
        table.sim.set_lid(Lid.CLOSED)
        line = "Shoe empty: load cards or MISDEAL"
        assert wait_until(lambda: panel_text(table) == line, PATIENCE), panel_text(table)
        table.sim.shuffle(5)
        assert wait_until(lambda: panel_text(table).startswith("Card to seat"), PATIENCE)
        assert wait_until(lambda: not views[-1].alarms, PATIENCE), views[-1].alarms
        assert not controller.core.paused_by
    warned = [line["warning"] for line in lines if line["event"] == "shoe_warning"]
    assert warned == ["lid open", "empty"]
    assert all(line["level"] == "warning" for line in lines if line["event"] == "shoe_warning")
