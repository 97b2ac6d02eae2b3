"""The udev rules under the real ``udevadm test``, on a shoe emulated by umockdev.

Run by test_umockdev.py inside a private mount namespace where
/etc/udev/rules.d holds only udev/99-tablectl.rules, /etc/group has a
``tablectl`` group, and /dev and /run are scratch copies: ``udevadm test``
creates the symlinks and database entries it describes, and none of that may
touch the machine.
"""

from __future__ import annotations

import grp
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from umockdev_bed import (  # the fixture replaces the suite's leak check here
    PANEL_IDS,
    SHOE_IDS,
    Bed,
    _no_leaked_threads_fds_or_ptys,  # noqa: F401 -- a fixture, used by name
    under_umockdev,
)

pytestmark = pytest.mark.skipif(not under_umockdev(), reason="runs inside umockdev-run")

RULES = "99-tablectl.rules"


@dataclass
class UdevResult:
    properties: dict[str, str]
    log: str

    def rule_actions(self) -> list[str]:
        """What lines of our rules file did ('GROUP 990', 'MODE 0660', "LINK 'tablectl/shoe'")."""
        return re.findall(rf"{re.escape(RULES)}:\d+ (.+)", self.log)


def udevadm_test(sys_path: str) -> UdevResult:
    result = subprocess.run(
        ["udevadm", "test", "--action=add", sys_path],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    properties = dict(
        line.split("=", 1) for line in result.stdout.splitlines() if re.match(r"[A-Z_]+=", line)
    )
    return UdevResult(properties, result.stderr + result.stdout)


@pytest.fixture
def bed() -> Iterator[Bed]:
    made = Bed()
    yield made
    made.testbed.clear()


def test_the_shoe_gets_its_stable_name_group_mode_and_properties(bed: Bed) -> None:
    """The rules give the shoe /dev/tablectl/shoe, group tablectl, mode 0660, ModemManager's
    ignore flag and the systemd tag (udev/README.md)."""
    _usb, tty = bed.add_serial("ttyACM0", SHOE_IDS, "SHOE0001")
    result = udevadm_test(tty)
    gid = grp.getgrnam("tablectl").gr_gid
    actions = result.rule_actions()
    assert f"GROUP {gid}" in actions, result.log
    assert "MODE 0660" in actions, result.log
    assert "LINK 'tablectl/shoe'" in actions, result.log
    assert "/dev/tablectl/shoe" in result.properties["DEVLINKS"].split()
    assert result.properties["ID_MM_DEVICE_IGNORE"] == "1"
    assert "systemd" in result.properties["TAGS"].strip(":").split(":")
    assert "Unknown group" not in result.log


def test_the_panel_gets_its_own_stable_name(bed: Bed) -> None:
    """The panel's rule names it /dev/tablectl/panel, with the same group and mode."""
    _usb, tty = bed.add_serial("ttyACM1", PANEL_IDS, "PANEL0001")
    result = udevadm_test(tty)
    assert "LINK 'tablectl/panel'" in result.rule_actions(), result.log
    assert "MODE 0660" in result.rule_actions()
    assert "/dev/tablectl/panel" in result.properties["DEVLINKS"].split()


def test_a_shoe_with_another_serial_number_is_not_matched(bed: Bed) -> None:
    """Same vendor and product, another serial: no name, no group, no mode, no properties."""
    _usb, tty = bed.add_serial("ttyACM2", SHOE_IDS, "SHOE0002")
    result = udevadm_test(tty)
    assert result.rule_actions() == [], result.log
    assert "tablectl" not in result.properties.get("DEVLINKS", "")
    assert "ID_MM_DEVICE_IGNORE" not in result.properties


def test_another_usb_serial_adapter_is_not_matched(bed: Bed) -> None:
    """An FTDI adapter with the shoe's serial number string is still not the shoe."""
    _usb, tty = bed.add_serial("ttyUSB0", ("0403", "6001"), "SHOE0001")
    assert udevadm_test(tty).rule_actions() == []
