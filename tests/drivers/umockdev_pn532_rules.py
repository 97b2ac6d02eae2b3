"""udev/98-tablectl-pn532.rules under the real ``udevadm test``, on USB-serial adapters
emulated by umockdev in a PC's topology (a PCI USB controller, its root hub, the adapter on
a port, its interface, its tty), so that udev's own path_id finds the adapter's USB port.

Run by test_pn532_umockdev.py inside a private mount namespace (test_umockdev.py's
NAMESPACE_SCRIPT) where /etc/udev/rules.d holds only these rules, /etc/group has a
``tablectl`` group, and /dev and /run are scratch copies.
"""

from __future__ import annotations

import grp
import re
from collections.abc import Iterator
from typing import Any

import gi
import pytest
from umockdev_bed import (  # the fixture replaces the suite's leak check here
    _no_leaked_threads_fds_or_ptys,  # noqa: F401 -- a fixture, used by name
    under_umockdev,
)
from umockdev_rules import udevadm_test

gi.require_version("UMockdev", "1.0")
from gi.repository import UMockdev  # noqa: E402 -- gi.require_version must come first

pytestmark = pytest.mark.skipif(not under_umockdev(), reason="runs inside umockdev-run")

RULES = "98-tablectl-pn532.rules"
CP210X = ("10c4", "ea60")
FTDI = ("0403", "6001")
CH340 = ("1a86", "7523")


class PcBed:
    """One PCI USB controller (0000:00:14.0) and its root hub; adapters on its ports."""

    def __init__(self) -> None:
        self.testbed: Any = UMockdev.Testbed.new()
        pci = self.testbed.add_device(
            "pci", "0000:00:14.0", None, ["class", "0x0c0330"], ["PCI_SLOT_NAME", "0000:00:14.0"]
        )
        self.hub = self.testbed.add_device(
            "usb", "usb1", pci, ["busnum", "1", "devnum", "1"], ["DEVTYPE", "usb_device"]
        )
        self._ttys = 0

    def plug(self, port: int, ids: tuple[str, str], serial: str | None) -> str:
        """An adapter on root hub port ``port``; its tty's sysfs path."""
        attributes = ["idVendor", ids[0], "idProduct", ids[1], "busnum", "1", "devnum", str(port)]
        if serial is not None:
            attributes += ["serial", serial]
        device = self.testbed.add_device(
            "usb", f"1-{port}", self.hub, attributes, ["DEVTYPE", "usb_device"]
        )
        interface = self.testbed.add_device(
            "usb", f"1-{port}:1.0", device, ["bInterfaceNumber", "00"], ["DEVTYPE", "usb_interface"]
        )
        name = f"ttyUSB{self._ttys}"
        tty = self.testbed.add_device(
            "tty",
            name,
            interface,
            ["dev", f"188:{self._ttys}"],
            ["DEVNAME", f"/dev/{name}", "MAJOR", "188", "MINOR", str(self._ttys)],
        )
        self._ttys += 1
        return str(tty)


@pytest.fixture
def bed() -> Iterator[PcBed]:
    made = PcBed()
    yield made
    made.testbed.clear()


def actions(log: str) -> list[str]:
    """What lines of the rules file did to the device ('GROUP 990', "LINK 'tablectl/shoe'");
    not udev's note that path_id, a builtin it runs once an event, had run already."""
    done = re.findall(rf"{re.escape(RULES)}:\d+ (.+)", log)
    return [line for line in done if not line.startswith("Skipping builtin 'path_id'")]


def test_a_ch340_in_its_port_is_the_slot_reader(bed: PcBed) -> None:
    """No serial number: the USB port (ID_PATH) names it, group, mode and properties."""
    result = udevadm_test(bed.plug(3, CH340, None))
    done = actions(result.log)
    assert result.properties["ID_PATH"] == "pci-0000:00:14.0-usb-0:3:1.0"
    assert "LINK 'tablectl/shoe'" in done, result.log
    assert f"GROUP {grp.getgrnam('tablectl').gr_gid}" in done, result.log
    assert "MODE 0660" in done, result.log
    assert "/dev/tablectl/shoe" in result.properties["DEVLINKS"].split()
    assert result.properties["ID_MM_DEVICE_IGNORE"] == "1"
    assert "systemd" in result.properties["TAGS"].strip(":").split(":")


def test_a_ch340_in_another_port_is_not_named(bed: PcBed) -> None:
    result = udevadm_test(bed.plug(4, CH340, None))
    assert actions(result.log) == [], result.log
    assert "ID_MM_DEVICE_IGNORE" not in result.properties


def test_a_cp210x_by_its_serial_is_the_discard_reader(bed: PcBed) -> None:
    result = udevadm_test(bed.plug(2, CP210X, "0001"))
    assert "LINK 'tablectl/shoe-discard'" in actions(result.log), result.log
    assert "/dev/tablectl/shoe-discard" in result.properties["DEVLINKS"].split()


def test_another_serial_or_adapter_is_not_named(bed: PcBed) -> None:
    """A CP210x with another serial number, and an FTDI (its rule is an example, commented)."""
    assert actions(udevadm_test(bed.plug(2, CP210X, "0002")).log) == []
    assert actions(udevadm_test(bed.plug(3, FTDI, "0001")).log) == []
