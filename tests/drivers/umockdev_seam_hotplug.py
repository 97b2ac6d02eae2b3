"""The application's hotplug monitor and ``tablectl status`` in the udev subsystem a
backend's port declares (drivers/seam/settings.py ``Port``), against the real libudev with a
keypad (the ``input`` subsystem) emulated by umockdev (keypad_bed.py). Run inside
``umockdev-run`` (test_seam_umockdev.py starts it).
"""

from __future__ import annotations

import queue
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from keypad_bed import (  # the fixture replaces the suite's leak check here
    KeypadBed,
    _no_leaked_threads_fds_or_ptys,  # noqa: F401 -- a fixture, used by name
)
from umockdev_bed import under_umockdev

from controller.cli.commands.status import check_devices
from controller.tomlcheck import Problem, Section
from drivers.discovery import HotplugEvent, HotplugMonitor
from drivers.seam import registry
from drivers.seam.settings import DeviceIdentity
from drivers.tablectl.backend import ProtocolSettings
from simulator.keypad_umockdev import KeypadSpec

pytestmark = pytest.mark.skipif(not under_umockdev(), reason="runs inside umockdev-run")

WAIT = 30.0
KEYPAD = DeviceIdentity("panel", "04d9", "1203", "KP0001")


@pytest.fixture
def bed() -> Iterator[KeypadBed]:
    made = KeypadBed()
    yield made
    made.close()


def keypad_settings() -> Any:
    """The keypad's settings as table.toml's [devices.panel] gives them (kind keypad)."""
    backend = registry.backend("panel", "keypad")
    problems: list[Problem] = []
    keys = {"vendor_id": "04d9", "product_id": "1203", "serial": "KP0001"}
    section = Section(problems, "devices.panel", keys, ("kind", *backend.keys), {})
    settings = backend.read_settings(section)
    assert problems == []
    assert settings is not None
    return settings


def test_a_monitor_of_the_input_subsystem_sees_the_keypad_come_and_go(bed: KeypadBed) -> None:
    """The monitor watches the subsystems the table's ports are in: a keypad, matched by its
    USB identity, is announced as it is plugged and as it is pulled."""
    (port,) = keypad_settings().ports()
    assert (port.subsystem, port.identity) == ("input", KEYPAD)
    events: queue.Queue[HotplugEvent] = queue.Queue()
    with HotplugMonitor([KEYPAD], events, subsystems=("tty", port.subsystem)):
        spec = bed.plug(KeypadSpec())
        came = events.get(timeout=WAIT)
        assert (came.role, came.action, came.node) == ("panel", "add", spec.node)
        bed.unplug(spec)
        went = events.get(timeout=WAIT)
        assert (went.role, went.action) == ("panel", "remove")


def test_status_finds_the_keypad_in_its_subsystem(bed: KeypadBed) -> None:
    """``tablectl status`` looks for each port in its own subsystem: the keypad's node, not
    a tty, beside a protocol shoe named by its path."""
    spec = bed.plug(KeypadSpec())
    shoe = ProtocolSettings("shoe", "/dev/tablectl/shoe", None, None)
    settings = SimpleNamespace(shoe=shoe, panel=keypad_settings())
    devices, problem = check_devices(settings)  # type: ignore[arg-type]  # its two devices
    assert problem is None
    panel = devices[1]
    assert (panel.role, panel.kind, panel.udev_node) == ("panel", "keypad", spec.node)
    assert devices[0].udev_node is None
