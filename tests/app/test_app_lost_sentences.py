"""Sentences a device lost (docs/protocol.md 5, Lost sentences): what the controller makes of
the driver's DeviceUp(lost): journaled, warned of like a restart, resumed after."""

from __future__ import annotations

from pathlib import Path

import pytest
from apphelp import journal_records, ready

from controller.config.settings import JournalSettings
from controller.display.view import Severity
from controller.journal import tablerecords as rec
from controller.poker.inputs import Button
from controller.table.loop import Controller
from drivers.seam.events import ButtonPressed, HelloOutcome, LostRange
from simulator.simtable import unplugged_table

pytestmark = pytest.mark.fast


def alarms(controller: Controller) -> list[tuple[Severity, str]]:
    return [(a.severity, a.what) for a in controller.view.build(controller.core).alarms]


def test_lost_presses_are_journaled_warned_of_and_a_restart_resumes_after_them(
    tmp_path: Path,
) -> None:
    """docs/protocol.md 5, Lost sentences; docs/app.md, Devices lost and found: the panel's
    lost presses 12..23 are journaled with the device record, the display warns the dealer (as
    for a restart), and a restarted controller expects 24 from the panel, not 12 again."""
    options = JournalSettings(tmp_path / "journal", fsync=False)
    controller = unplugged_table(options)
    try:
        for device in ("shoe", "panel"):
            controller.inbox.put(ready(device, HelloOutcome.NEW_SESSION))
        controller.inbox.put(ButtonPressed(Button.NEW_HAND, 11))
        controller.inbox.put(ready("panel", HelloOutcome.LOST, LostRange(12, 23)))
        controller.drain()
        panel = controller.core.devices["panel"]
        assert (panel.connected, panel.lost, panel.restarted) == (True, "12..23", False)
        assert "press again any button" in panel.message
        assert (Severity.WARNING, "The panel lost sentences 12..23.") in alarms(controller)
        assert not controller.core.paused_by
    finally:
        controller.close()
    device_records = [data for kind, data in journal_records(options.dir) if kind == rec.DEVICE]
    assert device_records[-1]["outcome"] == "lost"
    assert device_records[-1]["lost"] == [12, 23]
    restarted = unplugged_table(options)
    try:
        assert restarted.panel.receiver.expected == 24
        assert restarted.core.devices["panel"].lost == "12..23"
    finally:
        restarted.close()


def test_the_lost_warning_ends_when_the_device_is_next_welcomed_in_step(tmp_path: Path) -> None:
    """docs/app.md, Devices lost and found: the warning of lost shoe sentences stays until the
    shoe is next welcomed without a loss; it tells the dealer to check the cards."""
    controller = unplugged_table(JournalSettings(tmp_path / "journal", fsync=False))
    try:
        for device in ("shoe", "panel"):
            controller.inbox.put(ready(device, HelloOutcome.NEW_SESSION))
        controller.inbox.put(ready("shoe", HelloOutcome.LOST, LostRange(10, 10)))
        controller.drain()
        shoe = controller.core.devices["shoe"]
        assert shoe.lost == "10"
        assert "check every card on the table" in shoe.message
        assert (Severity.WARNING, "The shoe lost sentences 10.") in alarms(controller)
        controller.inbox.put(ready("shoe", HelloOutcome.RESUMED))
        controller.drain()
        assert (shoe.lost, shoe.message) == ("", "")
        assert alarms(controller) == []
    finally:
        controller.close()
