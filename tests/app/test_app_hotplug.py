"""``tablectl run`` and hotplug: which devices are watched, a shoe that is not plugged in at
start, and a udev-matched shoe that comes back at another node.

The same wiring against the real libudev, with umockdev's uevents, is in
tests/drivers/umockdev_run.py (run by tests/drivers/test_umockdev.py).
"""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path

from apphelp import PATIENCE, THREE_SEATS

from controller.config.tabletoml import load_config
from controller.table.loop import wait_until
from controller.table.service import build_controller, hotplug_monitor, serve, watched_path
from drivers.discovery import HotplugEvent, judge
from drivers.seam.settings import Port
from simulator.table import Simulator
from simulator.tablefile import write_table_toml

#: The drivers' backoff, set so long that only a hotplug wake can reopen within the test's
#: wait (PATIENCE): a reopen seen then was the 'add''s, however slow the machine.
PATIENT = 600.0


def by_path(path: str) -> Port:
    return Port("shoe", path, None)


def test_a_pty_or_a_url_is_not_watched_a_device_path_is(tmp_path: Path) -> None:
    """A URL and a link to a pseudo-terminal have no udev device (the backoff reopens them);
    a device path, present or not yet, is watched for udev's 'add'."""
    with Simulator(transport="pty", directory=tmp_path / "sim", seed=1) as sim:
        assert watched_path(by_path(sim.address("shoe"))) is None
    assert watched_path(by_path("sim://table/shoe")) is None
    assert watched_path(by_path("socket://127.0.0.1:7001")) is None
    assert watched_path(by_path("/dev/tablectl/shoe")) == "/dev/tablectl/shoe"
    assert watched_path(by_path("/dev/serial/by-id/usb-x")) == "/dev/serial/by-id/usb-x"


def test_a_tty_whose_node_or_link_is_the_configured_path_plays_its_role() -> None:
    """judge: a device named by path is the tty with that node or link (udev's DEVLINKS)."""
    paths = {"shoe": "/dev/serial/by-id/usb-shoe"}
    linked = {"DEVNAME": "/dev/ttyACM3", "DEVLINKS": "/dev/serial/by-id/usb-shoe"}
    assert judge(linked, [], paths).role == "shoe"
    assert judge({"DEVNAME": "/dev/serial/by-id/usb-shoe"}, [], paths).role == "shoe"
    assert judge({"DEVNAME": "/dev/ttyACM4"}, [], paths).role is None


def write_config(tmp_path: Path, sim: Simulator) -> Path:
    """A table whose shoe is found by a USB identity that is not plugged in here."""
    return write_table_toml(
        tmp_path,
        table_id="HOTPLUG-2",
        game="mambo",
        config=THREE_SEATS,
        shoe={"vendor_id": "1209", "product_id": "7ab1", "serial": "SHOE0001"},
        panel={"path": sim.address("panel")},
        decks=sim.write_deck_files(tmp_path / "decks"),
    )


def test_a_matched_shoe_not_plugged_in_opens_the_table_paused_and_its_add_moves_the_driver(
    tmp_path: Path,
) -> None:
    """tablectl run: a udev-matched shoe that is not connected does not keep the table
    shut: it opens paused ("cannot open" the stable name); udev's 'add' names the node the
    shoe came at, and the driver opens it at once, well before its backoff."""
    with Simulator(transport="pty", directory=tmp_path / "sim", seed=4) as sim:
        settings = load_config(write_config(tmp_path, sim))
        controller = build_controller(settings)
        assert controller.shoe.settings.url == "/dev/tablectl/shoe"
        controller.shoe.settings = replace(
            controller.shoe.settings, backoff_initial=PATIENT, backoff_max=PATIENT
        )
        monitor = hotplug_monitor(settings, controller)
        assert monitor is not None
        assert monitor.on_event is not None
        assert [i.serial for i in monitor.identities] == ["SHOE0001"]
        stop = threading.Event()
        # The monitor's udev socket is left out here: umockdev_run.py drives it with uevents.
        table = threading.Thread(target=serve, args=(controller, stop))
        table.start()
        try:
            assert wait_until(lambda: controller.core.devices["panel"].connected, PATIENCE)
            # The shoe's first open has failed: its next try is PATIENT away.
            cannot = "cannot open /dev/tablectl/shoe"
            assert wait_until(lambda: cannot in controller.core.devices["shoe"].message, PATIENCE)
            assert controller.core.paused_by == ["shoe"]
            monitor.on_event(HotplugEvent("shoe", "add", sim.address("shoe")))
            # Opened at the 'add', not after the backoff (PATIENT, far beyond this wait).
            assert wait_until(lambda: controller.core.devices["shoe"].connected, PATIENCE)
            assert controller.shoe.settings.url == sim.address("shoe")
            assert controller.core.paused_by == []
        finally:
            stop.set()
            table.join()
