"""``tablectl run``'s hotplug wiring against the real libudev, with umockdev emulating the shoe.

Run inside ``umockdev-run`` (test_umockdev.py starts it). The shoe is the
simulator's, on a real pty; umockdev emulates the USB tty udev announces for
it, with a link to the pty among its names (as the udev rules make
/dev/tablectl/shoe; a path outside /dev, which umockdev keeps to itself). So
the service's monitor hears the shoe come and go while the driver talks to the
simulated device through the configured path.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from test_driver_contract import count_opens
from umockdev_bed import (  # the fixture replaces the suite's leak check here
    SHOE_IDS,
    Bed,
    _no_leaked_threads_fds_or_ptys,  # noqa: F401 -- a fixture, used by name
    under_umockdev,
)

from controller.config.tabletoml import load_config
from controller.poker.engine import Stakes, TableSetup
from controller.poker.inputs import Button
from controller.table.loop import Controller, wait_until
from controller.table.service import build_controller, hotplug_monitor, serve
from simulator.table import Simulator
from simulator.tablefile import write_table_toml

pytestmark = pytest.mark.skipif(not under_umockdev(), reason="runs inside umockdev-run")

#: The driver's backoff is set this long so that only the hotplug wake can reopen in time.
PATIENT = 60.0
#: How long the test waits for what must happen: far beyond a busy machine's delays, and
#: well inside PATIENT, so a reopen within it was the wake's, never the backoff's.
WAIT = 30.0


@pytest.fixture
def bed() -> Iterator[Bed]:
    made = Bed()
    yield made
    made.testbed.clear()


def plug_shoe(bed: Bed, sim: Simulator, link: Path, usb: str | None = None) -> tuple[str, str]:
    """The shoe's USB device (made once) and its tty, with ``link`` among its names as the
    udev rules give it one (a link to the simulator's pty, made before udev's 'add')."""
    if usb is None:
        usb = bed.testbed.add_device(
            "usb",
            "usb1",
            None,
            ["idVendor", SHOE_IDS[0], "idProduct", SHOE_IDS[1], "serial", "SHOE0001"],
            [
                "ID_VENDOR_ID",
                SHOE_IDS[0],
                "ID_MODEL_ID",
                SHOE_IDS[1],
                "ID_SERIAL_SHORT",
                "SHOE0001",
            ],
        )
    link.symlink_to(Path(sim.address("shoe")).resolve())
    properties = [
        "DEVNAME", "/dev/ttyACM7",
        "DEVLINKS", str(link),
        "ID_VENDOR_ID", SHOE_IDS[0],
        "ID_MODEL_ID", SHOE_IDS[1],
        "ID_SERIAL_SHORT", "SHOE0001",
    ]  # fmt: skip
    tty = bed.testbed.add_device("tty", "ttyACM7", usb, [], properties)
    return usb, str(tty)


def write_config(tmp_path: Path, sim: Simulator, link: Path) -> Path:
    """A table whose shoe is named by a path udev makes, its panel the simulator's pty."""
    return write_table_toml(
        tmp_path,
        table_id="HOTPLUG-1",
        game="mambo",
        config=TableSetup(
            seats=(1, 2, 3), stakes=Stakes(small_bet=5, big_bet=10, ante=1, bring_in=2)
        ),
        shoe={"path": link, "serial": "SHOE0001"},
        panel={"path": sim.address("panel")},
        decks=sim.write_deck_files(tmp_path / "decks"),
    )


def shoe_connected(controller: Controller) -> bool:
    return controller.core.devices["shoe"].connected


def test_run_opens_paused_without_the_shoe_and_a_plug_or_replug_reopens_it_at_once(
    bed: Bed, tmp_path: Path
) -> None:
    """tablectl run: a shoe that is not plugged in leaves the table open and paused;
    udev's 'add' of /dev/tablectl/shoe wakes the driver at once; an unplug pauses the table
    again and a replug resumes it well before the driver's backoff."""
    with Simulator(transport="pty", directory=tmp_path / "sim", seed=4) as sim:
        link = tmp_path / "shoe"  # as /dev/tablectl/shoe: umockdev keeps /dev to itself
        settings = load_config(write_config(tmp_path, sim, link))
        controller = build_controller(settings)
        for driver in (controller.shoe, controller.panel):
            driver.settings = replace(driver.settings, backoff_initial=PATIENT, backoff_max=PATIENT)
        opens = count_opens(controller.shoe)
        hotplug = hotplug_monitor(settings, controller)
        assert hotplug is not None
        stop = threading.Event()
        table = threading.Thread(target=serve, args=(controller, stop), kwargs={"hotplug": hotplug})
        table.start()
        try:
            assert wait_until(lambda: controller.core.devices["panel"].connected, WAIT)
            # The shoe's first open has failed (its next try is PATIENT away), and the table
            # has heard of it.
            assert wait_until(lambda: opens == [False], WAIT)
            assert wait_until(
                lambda: f"cannot open {link}" in controller.core.devices["shoe"].message, WAIT
            )
            assert controller.core.paused_by == ["shoe"]

            plugged = time.monotonic()
            usb, tty = plug_shoe(bed, sim, link)
            assert wait_until(lambda: shoe_connected(controller), WAIT)
            assert time.monotonic() - plugged < WAIT, "opened by the hotplug wake, not the backoff"
            assert controller.core.paused_by == []

            sim.unplug("shoe")
            bed.unplug(tty)
            link.unlink()
            assert wait_until(lambda: not shoe_connected(controller), WAIT)
            # The reopen has failed: the next try is PATIENT away, so only the wake can
            # reopen it within WAIT.
            assert wait_until(lambda: opens[-1:] == [False] and len(opens) > 2, WAIT)
            sim.replug("shoe")
            replugged = time.monotonic()
            plug_shoe(bed, sim, link, usb)
            assert wait_until(lambda: shoe_connected(controller), WAIT)
            assert time.monotonic() - replugged < WAIT, "reopened by the hotplug wake"

            sim.shuffle(3)  # the table deals again: the hand starts with the shoe back
            sim.press(Button.NEW_HAND)
            assert wait_until(lambda: controller.core.table.hand_number == 1, WAIT)
        finally:
            stop.set()
            table.join()
            link.unlink(missing_ok=True)
