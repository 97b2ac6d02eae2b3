"""Discovery and hotplug against the real libudev, with umockdev emulating the devices.

Run inside ``umockdev-run`` (test_umockdev.py starts it). A shoe and a panel
are emulated in sysfs as USB serial devices; pyudev enumerates them and a
pyudev monitor receives their add and remove uevents.
"""

from __future__ import annotations

import json
import queue
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from backends import PtyBackend
from fake_device import FakeDevice
from test_driver_contract import count_opens
from umockdev_bed import (  # the fixture replaces the suite's leak check here
    PANEL_IDS,
    SHOE_IDS,
    Bed,
    _no_leaked_threads_fds_or_ptys,  # noqa: F401 -- a fixture, used by name
    under_umockdev,
)

from controller.cli.commands.devices import Wants, report
from controller.cli.main import main
from drivers.discovery import HotplugEvent, HotplugMonitor, scan
from drivers.seam.events import DeviceDown, DeviceUp, HelloOutcome, TagRead
from drivers.seam.settings import DeviceIdentity
from drivers.tablectl.link import LinkSettings
from drivers.tablectl.shoe import ShoeDriver
from simulator.clock import ManualClock

pytestmark = pytest.mark.skipif(not under_umockdev(), reason="runs inside umockdev-run")

SHOE = DeviceIdentity("shoe", *SHOE_IDS, "SHOE0001")
PANEL = DeviceIdentity("panel", *PANEL_IDS, "PANEL0001")
#: The driver's backoff: only the hotplug wake can reopen within WAIT.
PATIENT = 60.0
#: How long to wait for what must happen: far beyond a busy machine's delays, inside PATIENT.
WAIT = 30.0


@pytest.fixture(scope="module")
def bed() -> Iterator[Bed]:
    made = Bed()
    yield made
    made.testbed.clear()


@pytest.fixture(autouse=True)
def _empty_bed(bed: Bed) -> Iterator[None]:
    yield
    bed.testbed.clear()


def test_scan_finds_the_shoe_by_vendor_product_and_serial_and_says_why_not_others(
    bed: Bed,
) -> None:
    """The shoe is the tty whose USB ids and serial match; the others are named with why not."""
    bed.add_serial("ttyACM0", SHOE_IDS, "SHOE0001")
    bed.add_serial("ttyACM1", SHOE_IDS, "SHOE0099")
    bed.add_serial("ttyUSB0", ("0403", "6001"), "FT12345")
    found = {c.node: c for c in scan([SHOE, PANEL])}
    assert found["/dev/ttyACM0"].verdict.role == "shoe"
    assert "shoe: vendor 1209, product 7ab1 and serial SHOE0001 match" in (
        found["/dev/ttyACM0"].verdict.reasons
    )
    other_shoe = found["/dev/ttyACM1"].verdict
    assert other_shoe.role is None
    assert "not the shoe: serial SHOE0099 (want SHOE0001)" in other_shoe.reasons
    assert found["/dev/ttyUSB0"].verdict.role is None
    assert any("vendor 0403 (want 1209)" in r for r in found["/dev/ttyUSB0"].verdict.reasons)


def test_a_device_with_the_stable_name_is_matched_by_it(bed: Bed) -> None:
    """A tty the udev rules named /dev/tablectl/panel is the panel, whatever its ids."""
    bed.add_serial("ttyACM3", ("abcd", "0001"), "X1", links="/dev/tablectl/panel")
    (found,) = [c for c in scan([SHOE, PANEL]) if c.node == "/dev/ttyACM3"]
    assert found.verdict.role == "panel"
    assert found.verdict.reasons[-1] == "panel: has the stable name /dev/tablectl/panel"


def test_tablectl_devices_lists_each_device_and_its_verdict(bed: Bed) -> None:
    """`tablectl devices` prints every tty, what it is, and says a missing device is missing."""
    bed.add_serial("ttyACM0", SHOE_IDS, "SHOE0001")
    lines: list[str] = []
    wants = Wants([SHOE, PANEL], None, panel_named=False)
    status = report(scan([SHOE, PANEL]), [], wants, lines.append)
    text = "\n".join(lines)
    assert "/dev/ttyACM0  usb 1209:7ab1  serial SHOE0001" in text
    assert "=> the shoe" in text
    assert "the panel was not found" in text
    assert status == 1


def test_tablectl_devices_json_and_status_find_the_shoe_by_its_usb_identity(
    bed: Bed, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`tablectl devices --json`: every tty with its verdict, the panel missing (exit 1); and
    `tablectl status` names the tty udev finds for the shoe's USB match, the panel's missing."""
    bed.add_serial("ttyACM0", SHOE_IDS, "SHOE0001")
    bed.add_serial("ttyUSB0", ("0403", "6001"), "FT12345")
    shoe, panel = (f"{i.vendor_id}:{i.model_id}:{i.serial}" for i in (SHOE, PANEL))
    assert main(["devices", "--shoe", shoe, "--panel", panel, "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["version"] == 1
    assert report["missing"] == ["panel"]
    found = {device["node"]: device for device in report["devices"]}
    assert found["/dev/ttyACM0"]["verdict"]["role"] == "shoe"
    assert (found["/dev/ttyACM0"]["vendor_id"], found["/dev/ttyACM0"]["serial"]) == (
        SHOE_IDS[0],
        "SHOE0001",
    )
    assert found["/dev/ttyUSB0"]["verdict"]["role"] is None
    (tmp_path / "journal").mkdir()
    config = tmp_path / "table.toml"
    config.write_text(
        f"""[table]
id = "U-1"
game = "mambo"
seats = [1, 2]

[stakes]
small_bet = 5
big_bet = 10

[devices.shoe]
vendor_id = "{SHOE.vendor_id}"
product_id = "{SHOE.model_id}"
serial = "SHOE0001"

[devices.panel]
vendor_id = "{PANEL.vendor_id}"
product_id = "{PANEL.model_id}"
serial = "PANEL0001"

[decks]
a = "a.deck"
b = "b.deck"

[journal]
dir = "{tmp_path / "journal"}"

[control]
socket = "{tmp_path / "ctl.sock"}"
""",
        encoding="utf-8",
    )
    assert main(["status", "--config", str(config), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    by_role = {device["role"]: device for device in status["devices"]}
    assert by_role["shoe"]["udev_node"] == "/dev/ttyACM0"
    assert by_role["shoe"]["configured"] == f"usb {SHOE.vendor_id}:{SHOE.model_id} serial SHOE0001"
    assert by_role["panel"]["udev_node"] is None
    assert by_role["panel"]["path"] == "/dev/tablectl/panel"


def test_the_monitor_sees_the_shoe_leave_and_come_back(bed: Bed) -> None:
    """A pyudev monitor on a thread hands the shoe's remove and add to the queue."""
    events: queue.Queue[HotplugEvent] = queue.Queue()
    with HotplugMonitor([SHOE, PANEL], events):
        _usb, tty = bed.add_serial("ttyACM0", SHOE_IDS, "SHOE0001")
        bed.add_serial("ttyUSB0", ("0403", "6001"), "FT12345")
        assert events.get(timeout=WAIT) == HotplugEvent("shoe", "add", "/dev/ttyACM0")
        bed.unplug(tty)
        assert events.get(timeout=WAIT) == HotplugEvent("shoe", "remove", "/dev/ttyACM0")
        bed.replug(tty, "ttyACM0", SHOE_IDS, "SHOE0001")
        assert events.get(timeout=WAIT) == HotplugEvent("shoe", "add", "/dev/ttyACM0")
    # The adapter's add came before the shoe's last uevents, which the monitor passed on in
    # order: had it been taken for a table device, it would be on the queue by now.
    assert events.empty()  # the FTDI adapter was never taken for a table device


def wait_for(events: queue.Queue[Any], kind: type, timeout: float = WAIT) -> list[Any]:
    seen: list[Any] = []
    deadline = time.monotonic() + timeout
    while not seen or not isinstance(seen[-1], kind):
        remaining = deadline - time.monotonic()
        assert remaining > 0, f"no {kind.__name__} within {timeout} s; saw {seen}"
        try:
            seen.append(events.get(timeout=remaining))
        except queue.Empty:
            continue
    return seen


def test_an_unplug_and_replug_mid_hand_loses_no_card(bed: Bed, tmp_path: Path) -> None:
    """The shoe leaves mid-hand and comes back: udev's add wakes the driver at once (its
    backoff is 60 s), the hand goes on, and the cards dealt meanwhile arrive once each."""
    uid = [f"E0040150{n:08X}" for n in range(6)]
    driver_events: queue.Queue[Any] = queue.Queue()
    hotplug: queue.Queue[HotplugEvent] = queue.Queue()
    backend = PtyBackend(tmp_path)
    settings = LinkSettings(
        backend.url,
        heartbeat_timeout=5.0,
        query_interval=0.1,
        backoff_initial=PATIENT,
        backoff_max=PATIENT,
    )
    _usb, tty = bed.add_serial("ttyACM0", SHOE_IDS, "SHOE0001")
    clock = ManualClock()  # the link's: no heartbeat or silence but what the test lets pass
    with (
        FakeDevice(backend, clock=clock) as shoe,
        ShoeDriver(settings, driver_events, repeat_window=0.1, clock=clock) as driver,
        HotplugMonitor([SHOE], hotplug, on_add={"shoe": driver.wake}),
    ):
        opens = count_opens(driver)
        wait_for(driver_events, DeviceUp)
        for n in range(3):
            shoe.read(uid[n])
        reads: list[Any] = []
        while len([r for r in reads if isinstance(r, TagRead)]) < 3:
            reads += wait_for(driver_events, TagRead)

        shoe.unplug()
        bed.unplug(tty)
        assert hotplug.get(timeout=WAIT).action == "remove"
        wait_for(driver_events, DeviceDown)
        for n in range(3, 6):  # dealt while the cable is out
            shoe.read(uid[n])
        # The driver's reopen has failed: its next try is PATIENT away, so only the wake can
        # reconnect it within WAIT.
        deadline = time.monotonic() + WAIT
        while False not in opens:
            assert time.monotonic() < deadline, "the driver never tried to reopen"
            time.sleep(0.002)

        shoe.replug()
        replugged = time.monotonic()
        bed.replug(tty, "ttyACM0", SHOE_IDS, "SHOE0001")
        assert hotplug.get(timeout=WAIT).action == "add"
        ready = wait_for(driver_events, DeviceUp)[-1]
        assert ready.outcome is HelloOutcome.RESUMED
        assert time.monotonic() - replugged < WAIT, "reconnected by the hotplug wake"
        after: list[Any] = []
        while len([e for e in after if isinstance(e, TagRead)]) < 3:
            after += wait_for(driver_events, TagRead)
    got = [e.uid for e in reads + after if isinstance(e, TagRead)]
    assert got == uid
