"""The real python-evdev against a 17-key USB keypad emulated by umockdev.

Run inside ``umockdev-run`` (test_keypad_umockdev.py starts it): python-evdev opens the
emulated event node and issues its ioctls to umockdev, which answers from the keypad's
ioctl file (simulator/keypad_umockdev.py); events are written to the node's other end during the
test and python-evdev reads them as the kernel's. What umockdev does not emulate (a second
grab refused, an unplugged node's ENODEV) is tested at the driver's seam instead
(test_keypad_seam.py; docs/testing.md, What umockdev does not emulate).
"""

from __future__ import annotations

import select
from collections.abc import Iterator

import evdev
import pytest
from evdev import ecodes
from keypad_bed import (  # the fixture replaces the suite's leak check here
    KeypadBed,
    _no_leaked_threads_fds_or_ptys,  # noqa: F401 -- a fixture, used by name
)
from umockdev_bed import under_umockdev

from drivers.keypad.keymap import STANDARD_17_KEYS, key_code
from simulator.keypad_umockdev import KeypadSpec

pytestmark = pytest.mark.skipif(not under_umockdev(), reason="runs inside umockdev-run")

#: How long to wait for what must happen: far beyond a busy machine's delays.
WAIT = 30.0


@pytest.fixture
def bed() -> Iterator[KeypadBed]:
    made = KeypadBed()
    yield made
    made.close()


def read_until(device: evdev.InputDevice[str], count: int) -> list[evdev.InputEvent]:
    """The next ``count`` events the device gives, waiting for each (at most WAIT)."""
    got: list[evdev.InputEvent] = []
    while len(got) < count:
        ready, _, _ = select.select([device.fd], [], [], WAIT)
        assert ready, f"no event within {WAIT} s; had {got}"
        try:
            got.extend(device.read())
        except BlockingIOError:
            continue
    return got


def test_python_evdev_opens_the_keypad_and_reads_what_the_kernel_would_say(
    bed: KeypadBed,
) -> None:
    """Name, phys, uniq, bus, ids, the evdev version, the 17 keys, MSC_SCAN, the LEDs
    lit, the auto-repeat, no properties, no force feedback: each from its ioctl."""
    spec = bed.plug()
    device = evdev.InputDevice(spec.node)
    try:
        assert device.name == spec.name
        assert device.phys == spec.phys
        assert device.uniq == spec.serial
        assert (device.info.bustype, device.info.vendor, device.info.product) == (
            ecodes.BUS_USB,
            0x04D9,
            0x1203,
        )
        assert device.version == 0x010001
        assert device.ff_effects_count == 0
        capabilities = device.capabilities()
        assert sorted(capabilities[ecodes.EV_KEY]) == sorted(
            code for code in map(key_code, STANDARD_17_KEYS) if code is not None
        )
        assert capabilities[ecodes.EV_MSC] == [ecodes.MSC_SCAN]
        assert device.leds() == [ecodes.LED_NUML]
        assert (device.repeat.delay, device.repeat.repeat) == (250, 33)
        assert device.input_props() == []
    finally:
        device.close()


def test_a_key_written_to_the_node_is_read_by_python_evdev_after_the_grab(
    bed: KeypadBed,
) -> None:
    """After EVIOCGRAB (which umockdev answers itself), a press and a release arrive as
    the kernel frames them: the scan code, the key, the report."""
    spec = bed.plug()
    device = evdev.InputDevice(spec.node)
    try:
        device.grab()
        bed.down(spec, "KEY_KP1", 1, when=7.25)
        bed.down(spec, "KEY_KP1", 0, when=7.5)
        got = [(e.type, e.code, e.value) for e in read_until(device, 6)]
        kp1 = ecodes.KEY_KP1
        assert got == [
            (ecodes.EV_MSC, ecodes.MSC_SCAN, 0x70000 + kp1),
            (ecodes.EV_KEY, kp1, 1),
            (ecodes.EV_SYN, ecodes.SYN_REPORT, 0),
            (ecodes.EV_MSC, ecodes.MSC_SCAN, 0x70000 + kp1),
            (ecodes.EV_KEY, kp1, 0),
            (ecodes.EV_SYN, ecodes.SYN_REPORT, 0),
        ]
    finally:
        device.close()


def test_umockdev_lets_a_second_grab_through(bed: KeypadBed) -> None:
    """The gap the driver's seam tests cover: the kernel refuses a second EVIOCGRAB with
    EBUSY; umockdev 0.17 grants it. If this starts failing, umockdev emulates the refusal
    and the seam test can move here (docs/testing.md, What umockdev does not emulate)."""
    spec = bed.plug()
    first, second = evdev.InputDevice(spec.node), evdev.InputDevice(spec.node)
    try:
        first.grab()
        second.grab()
    finally:
        first.close()
        second.close()


def test_umockdev_gives_an_unplugged_node_no_enodev(bed: KeypadBed) -> None:
    """The other gap: after the keypad is unplugged a reader still holding the node is not
    told (the kernel's read fails with ENODEV); it only waits. The driver learns of the
    unplug from udev's 'remove' (umockdev_keypad_driver.py) and, on a real kernel, from
    ENODEV (test_keypad_seam.py)."""
    spec = bed.plug()
    device = evdev.InputDevice(spec.node)
    try:
        bed.unplug(spec)
        ready, _, _ = select.select([device.fd], [], [], 0.2)
        assert ready == []
        with pytest.raises(BlockingIOError):
            list(device.read())
    finally:
        device.close()


def test_a_keypad_with_other_keys_is_described_by_its_own_ioctls(bed: KeypadBed) -> None:
    """The emulation is per keypad: a four-key one reports only its four keys."""
    spec = bed.plug(KeypadSpec(event="event7", serial="KP0002", keys=STANDARD_17_KEYS[:4]))
    device = evdev.InputDevice(spec.node)
    try:
        names = {ecodes.KEY[code] for code in device.capabilities()[ecodes.EV_KEY]}
        assert names == set(STANDARD_17_KEYS[:4])
    finally:
        device.close()
