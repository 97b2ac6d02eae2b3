"""udev/70-tablectl-keypad.rules under the real ``udevadm test``, on a keypad emulated by
umockdev, with Debian's own rules beside it (60-input-id.rules computes ``ID_INPUT_KEY``
from the keypad's sysfs capabilities, as on a table PC).

Run by test_keypad_umockdev.py inside a private mount namespace (test_umockdev.py's
NAMESPACE_SCRIPT) where /etc/udev/rules.d holds only the keypad's rules, /etc/group has a
``tablectl`` group, and /dev and /run are scratch copies.
"""

from __future__ import annotations

import grp
import re
from collections.abc import Iterator

import pytest
from keypad_bed import (  # the fixture replaces the suite's leak check here
    KeypadBed,
    _no_leaked_threads_fds_or_ptys,  # noqa: F401 -- a fixture, used by name
)
from umockdev_bed import under_umockdev
from umockdev_rules import udevadm_test

from simulator.keypad_umockdev import KeypadSpec

pytestmark = pytest.mark.skipif(not under_umockdev(), reason="runs inside umockdev-run")

RULES = "70-tablectl-keypad.rules"


@pytest.fixture
def bed() -> Iterator[KeypadBed]:
    made = KeypadBed()
    yield made
    made.close()


def actions(log: str) -> list[str]:
    """What lines of the keypad's rules file did ('GROUP 990', "LINK 'tablectl/keypad'")."""
    return re.findall(rf"{re.escape(RULES)}:\d+ (.+)", log)


def test_the_keypad_gets_its_stable_name_group_mode_and_is_kept_from_desktops(
    bed: KeypadBed,
) -> None:
    """/dev/tablectl/keypad, group tablectl, mode 0660, libinput told to leave it, a
    systemd unit; ID_INPUT_KEY from Debian's input_id, not from the emulation."""
    spec = bed.plug()
    result = udevadm_test(spec.event_path)
    done = actions(result.log)
    gid = grp.getgrnam("tablectl").gr_gid
    assert f"GROUP {gid}" in done, result.log
    assert "MODE 0660" in done, result.log
    assert "LINK 'tablectl/keypad'" in done, result.log
    assert "/dev/tablectl/keypad" in result.properties["DEVLINKS"].split()
    assert result.properties["ID_INPUT_KEY"] == "1"
    assert result.properties["LIBINPUT_IGNORE_DEVICE"] == "1"
    assert "systemd" in result.properties["TAGS"].strip(":").split(":")
    assert "Unknown group" not in result.log


def test_a_keypad_with_another_serial_number_is_not_named(bed: KeypadBed) -> None:
    """Same vendor and product, another serial: no name, no group, no mode."""
    spec = bed.plug(KeypadSpec(event="event6", serial="KP0002", usb_port="1-3"))
    result = udevadm_test(spec.event_path)
    assert [a for a in actions(result.log) if a.startswith(("GROUP", "MODE", "LINK"))] == []
    assert "tablectl" not in result.properties.get("DEVLINKS", "")
    assert "LIBINPUT_IGNORE_DEVICE" not in result.properties
