"""The keypad driver on the real python-evdev and the real libudev, the keypad emulated by
umockdev (keypad_bed.py): found by udev (its identity, its by-id link), grabbed, pressed,
unplugged and replugged through udev's uevents. Run inside ``umockdev-run``
(test_keypad_umockdev.py starts it).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator

import pytest
from keypad_bed import (  # the fixture replaces the suite's leak check here
    KeypadBed,
    _no_leaked_threads_fds_or_ptys,  # noqa: F401 -- a fixture, used by name
)
from umockdev_bed import under_umockdev

from controller.cli.commands.keypad import try_keys
from controller.cli.main import main
from controller.poker.inputs import Button
from drivers.keypad.driver import KeypadPanel
from drivers.keypad.finder import Wanted, find_node, scan
from drivers.keypad.keymap import DEFAULT_KEYS, KeyMap
from drivers.seam.events import ButtonPressed, DeviceDown, DeviceUp, HelloOutcome
from drivers.seam.settings import DeviceIdentity
from simulator.keypad_umockdev import KeypadSpec

pytestmark = pytest.mark.skipif(not under_umockdev(), reason="runs inside umockdev-run")

WAIT = 30.0
KEYPAD = DeviceIdentity("panel", "04d9", "1203", "KP0001")
DEFAULT = KeyMap(DEFAULT_KEYS)

Events = queue.Queue[object]


@pytest.fixture
def bed() -> Iterator[KeypadBed]:
    made = KeypadBed()
    yield made
    made.close()


def next_event(events: Events) -> object:
    return events.get(timeout=WAIT)


def test_udev_finds_the_keypad_by_its_identity_or_its_by_id_link_and_says_why_not(
    bed: KeypadBed,
) -> None:
    """Two keypads plugged: the one whose vendor, product and serial match is the table's;
    the other is named with what differs. udev's by-id link names it too."""
    spec = bed.plug()
    other = bed.plug(KeypadSpec(event="event6", serial="KP0002", usb_port="1-3"))
    found = {k.node: k for k in scan(Wanted(identity=KEYPAD))}
    assert found[spec.node].wanted
    assert found[spec.node].reason == "USB 04d9:1203:KP0001 matches"
    assert found[spec.node].name == spec.name
    assert not found[other.node].wanted
    assert found[other.node].reason == "not the keypad: serial KP0002 (want KP0001)"
    assert find_node(Wanted(identity=KEYPAD)) == spec.node
    assert find_node(Wanted(path=other.by_id)) == other.node
    assert find_node(Wanted(identity=DeviceIdentity("panel", "04d9", "1203", "NONE"))) is None


def test_presses_through_python_evdev_after_the_grab(bed: KeypadBed) -> None:
    """Found by identity, opened and grabbed with python-evdev: a tap is a press, a held key
    repeating is one press, a key-up is none."""
    spec = bed.plug()
    events: Events = queue.Queue()
    with KeypadPanel(Wanted(identity=KEYPAD), DEFAULT, events):
        up = next_event(events)
        assert isinstance(up, DeviceUp)
        assert (up.serial, up.model) == ("KP0001", spec.name)
        bed.tap(spec, "KEY_KP3")
        bed.down(spec, "KEY_KP0", 1)
        for _ in range(5):
            bed.down(spec, "KEY_KP0", 2)
        bed.down(spec, "KEY_KP0", 0)
        assert next_event(events) == ButtonPressed(Button.BET_RAISE, 0)
        assert next_event(events) == ButtonPressed(Button.DRAW_DONE, 1)


def test_unplugged_is_down_at_once_through_udev_and_replugged_is_up_again(
    bed: KeypadBed,
) -> None:
    """umockdev gives the open node no ENODEV: udev's 'remove' is what the driver sees, at
    once, and its 'add' brings the keypad back (found again by its identity), a restarted
    session, presses from 0."""
    spec = bed.plug()
    events: Events = queue.Queue()
    with KeypadPanel(Wanted(identity=KEYPAD), DEFAULT, events):
        assert isinstance(next_event(events), DeviceUp)
        bed.tap(spec, "KEY_KP1")
        assert next_event(events) == ButtonPressed(Button.FOLD, 0)
        bed.unplug(spec)
        down = next_event(events)
        assert isinstance(down, DeviceDown)
        assert down.reason == f"unplugged: udev removed {spec.node}"
        # Back at another node: umockdev keeps a removed node's other end, so its name is
        # not free again (the kernel, too, may give the replugged keypad another number).
        again = bed.plug(KeypadSpec(event="event6"))
        up = next_event(events)
        assert isinstance(up, DeviceUp)
        assert up.outcome is HelloOutcome.RESTARTED
        bed.tap(again, "KEY_KP2")
        assert next_event(events) == ButtonPressed(Button.CHECK_CALL, 0)


def test_a_keypad_named_by_its_by_id_link_not_plugged_in_at_the_start(bed: KeypadBed) -> None:
    """The table's panel is a by-id path that is not there yet: down, then up when udev says
    it came."""
    spec = KeypadSpec()
    events: Events = queue.Queue()
    with KeypadPanel(Wanted(path=spec.by_id), DEFAULT, events):
        down = next_event(events)
        assert isinstance(down, DeviceDown)
        assert spec.by_id in down.reason
        bed.plug(spec)
        assert isinstance(next_event(events), DeviceUp)
        bed.tap(spec, "KEY_KPMINUS")
        assert next_event(events) == ButtonPressed(Button.UNDO, 0)


def test_tablectl_keypad_lists_the_keypads_udev_knows_and_which_is_the_table(
    bed: KeypadBed, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = bed.plug()
    assert main(["keypad", "--usb", "04d9:1203:KP0001"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"{spec.node}  {spec.name}  usb 04d9:1203  serial KP0001",
        f"    names: {spec.by_id}",
        "    => the keypad: USB 04d9:1203:KP0001 matches",
    ]
    assert main(["keypad"]) == 1
    assert capsys.readouterr().out.splitlines()[-2:] == [
        "    not /dev/tablectl/keypad",
        "the keypad /dev/tablectl/keypad was not found",
    ]


def test_tablectl_keypad_try_on_python_evdev(bed: KeypadBed) -> None:
    """--try grabs the node with python-evdev and says each key as the kernel reports it."""
    spec = bed.plug()
    said: list[str] = []
    grabbed = threading.Event()

    def say(line: str) -> None:
        said.append(line)
        grabbed.set()

    thread = threading.Thread(
        target=try_keys, args=(Wanted(path=spec.by_id), DEFAULT, 2, say), name="keypad-try"
    )
    thread.start()
    assert grabbed.wait(WAIT)
    bed.tap(spec, "KEY_KPENTER")
    bed.tap(spec, "KEY_KPDOT")
    thread.join(WAIT)
    assert not thread.is_alive()
    assert said == [
        f"{spec.node} ({spec.name}) grabbed: press keys (Ctrl-C to stop)",
        "KEY_KPENTER      new_hand",
        "KEY_KPDOT        on no button",
    ]
