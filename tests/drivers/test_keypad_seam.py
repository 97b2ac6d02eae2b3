"""The keypad driver at its seam: the simulator's keypad (simulator/keypad.py) stands in for
python-evdev's device and fails as the kernel does where umockdev cannot (a grab another
program holds: EBUSY; an unplugged node: ENODEV), docs/testing.md, What umockdev does not
emulate. The same driver against the real python-evdev is in umockdev_keypad_driver.py.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Iterator
from typing import Any

import pytest
from structlog.testing import capture_logs

from controller.poker.inputs import Button
from drivers.keypad.backend import KeypadBackend, KeypadSettings
from drivers.keypad.driver import KeypadGrabbed, KeypadPanel
from drivers.keypad.finder import Wanted
from drivers.keypad.keymap import DEFAULT_KEYS, STANDARD_17_KEYS, KeyMap
from drivers.seam.device import OpenOptions, PanelFeatures
from drivers.seam.events import (
    ButtonPressed,
    DeviceDown,
    DeviceRefused,
    DeviceUp,
    HelloOutcome,
    RejectReason,
)
from simulator.keypad import SimKeypad

#: How long to wait for what must happen: far beyond a busy machine's delays.
WAIT = 30.0
DEFAULT = KeyMap(DEFAULT_KEYS)

Events = queue.Queue[object]


@pytest.fixture
def keypad() -> Iterator[SimKeypad]:
    made = SimKeypad()
    yield made
    made.close()


@pytest.fixture
def events() -> Events:
    return queue.Queue()


@pytest.fixture
def panel(keypad: SimKeypad, events: Events) -> Iterator[KeypadPanel]:
    made = KeypadPanel(Wanted(keypad.url), DEFAULT, events)
    yield made
    made.stop()


def next_event(events: Events) -> object:
    return events.get(timeout=WAIT)


def came_up(events: Events, outcome: HelloOutcome = HelloOutcome.NEW_SESSION) -> DeviceUp:
    event = next_event(events)
    assert isinstance(event, DeviceUp), event
    assert event.outcome is outcome
    return event


def test_a_tap_is_one_press_numbered_in_a_session_the_host_makes(
    keypad: SimKeypad, events: Events, panel: KeypadPanel
) -> None:
    """DeviceUp first (a new session, a host boot, the keypad's name and serial), then one
    ButtonPressed a tap, numbered from 0."""
    panel.start()
    up = came_up(events)
    assert up.device == "panel"
    assert up.boot.startswith("H")
    assert len(up.boot) == 8
    assert panel.boot == up.boot
    assert (up.serial, up.model) == ("SIMKP0001", "Tablectl Simulated Keypad")
    keypad.tap("KEY_KP1")
    keypad.tap("KEY_KPENTER")
    assert next_event(events) == ButtonPressed(Button.FOLD, 0)
    assert next_event(events) == ButtonPressed(Button.NEW_HAND, 1)
    assert panel.line_totals() == {"opens": 1, "presses": 2}


def test_auto_repeat_and_key_up_are_no_press(
    keypad: SimKeypad, events: Events, panel: KeypadPanel
) -> None:
    """A key held down, repeating: one press; the next tap is the next press."""
    panel.start()
    came_up(events)
    keypad.key("KEY_KP2", 1)
    for _ in range(10):
        keypad.key("KEY_KP2", 2)
    keypad.key("KEY_KP2", 0)
    keypad.tap("KEY_KP3")
    assert next_event(events) == ButtonPressed(Button.CHECK_CALL, 0)
    assert next_event(events) == ButtonPressed(Button.BET_RAISE, 1)


def test_a_chord_and_an_unmapped_key_are_refused_and_logged(
    keypad: SimKeypad, events: Events, panel: KeypadPanel
) -> None:
    """Call held, raise pressed: the call counts, the raise is a chord, logged; a key on no
    button is logged; neither is a press (the tap after them is press 1)."""
    with capture_logs() as logs:
        panel.start()
        came_up(events)
        keypad.key("KEY_KP2", 1)
        keypad.key("KEY_KP3", 1)
        keypad.key("KEY_KP2", 0)
        keypad.key("KEY_KP3", 0)
        keypad.tap("KEY_KP5")
        keypad.tap("KEY_KP1")
        assert next_event(events) == ButtonPressed(Button.CHECK_CALL, 0)
        assert next_event(events) == ButtonPressed(Button.FOLD, 1)
    said = {entry["event"]: entry for entry in logs}
    assert said["chord_refused"]["key"] == "KEY_KP3"
    assert said["chord_refused"]["held"] == ["KEY_KP2"]
    assert said["key_not_mapped"]["key"] == "KEY_KP5"
    assert panel.line_totals()["chords"] == 1
    assert panel.line_totals()["unmapped"] == 1


def test_a_keypad_another_program_has_grabbed_is_refused_at_the_start_naming_why(
    keypad: SimKeypad, events: Events, panel: KeypadPanel
) -> None:
    """EVIOCGRAB's EBUSY at claim: KeypadGrabbed (a PortHeld), nothing started, the grab
    that failed released with its descriptor."""
    keypad.held_elsewhere = True
    with pytest.raises(KeypadGrabbed, match="keypad sim://keypad is grabbed by another program"):
        panel.start()
    assert not panel.running
    assert events.empty()


def test_grabbed_after_a_replug_is_a_device_down_naming_why_and_retried(
    keypad: SimKeypad, events: Events, panel: KeypadPanel
) -> None:
    """Unplugged (ENODEV), replugged while another program grabs it: down, saying so; once
    the other program lets go, up again as a restarted session."""
    panel.start()
    first = came_up(events)
    keypad.unplug()
    down = next_event(events)
    assert isinstance(down, DeviceDown)
    assert "ENODEV" in down.reason
    keypad.held_elsewhere = True
    keypad.plug()
    panel.replugged("panel", None)
    held = next_event(events)
    assert isinstance(held, DeviceDown)
    assert "grabbed by another program" in held.reason
    keypad.held_elsewhere = False
    panel.replugged("panel", None)
    again = came_up(events, HelloOutcome.RESTARTED)
    assert again.boot != first.boot
    keypad.tap("KEY_KP9")
    assert next_event(events) == ButtonPressed(Button.ALL_IN, 0)


def test_unplugged_mid_hand_no_press_is_invented_or_lost(
    keypad: SimKeypad, events: Events, panel: KeypadPanel
) -> None:
    """A key held as the cable is pulled never comes up: after the replug the filter holds
    nothing, so the next key alone is a press, not a chord; and a key pressed on the
    unplugged keypad is not a press."""
    panel.start()
    came_up(events)
    keypad.key("KEY_KP1", 1)
    assert next_event(events) == ButtonPressed(Button.FOLD, 0)
    keypad.unplug()
    assert isinstance(next_event(events), DeviceDown)
    with pytest.raises(FileNotFoundError):
        keypad.open()
    keypad.plug()
    panel.replugged("panel", None)
    came_up(events, HelloOutcome.RESTARTED)
    keypad.tap("KEY_KP2")
    assert next_event(events) == ButtonPressed(Button.CHECK_CALL, 0)
    assert panel.line_totals()["losses"] == 1


def test_not_plugged_in_at_the_start_the_table_opens_paused(
    keypad: SimKeypad, events: Events, panel: KeypadPanel
) -> None:
    """Down, saying it is not there, once; up when it is plugged in."""
    keypad.unplug()
    panel.start()
    down = next_event(events)
    assert isinstance(down, DeviceDown)
    assert "sim://keypad" in down.reason
    keypad.plug()
    panel.replugged("panel", None)
    came_up(events)


def test_a_device_that_cannot_send_the_maps_keys_is_refused_for_good(events: Events) -> None:
    """A four-key pad under the default map: refused (identity), naming the keys it lacks
    and their buttons; the driver stops."""
    small = SimKeypad("small", keys=STANDARD_17_KEYS[:4])
    panel = KeypadPanel(Wanted(small.url), DEFAULT, events)
    try:
        panel.start()
        refused = next_event(events)
        assert isinstance(refused, DeviceRefused)
        assert refused.rejected is RejectReason.IDENTITY
        assert "has no key KEY_KP9 (all_in)" in refused.reason
        deadline = time.monotonic() + WAIT
        while panel.running and time.monotonic() < deadline:
            time.sleep(0.01)  # the thread ends right after the refusal it put
        assert not panel.running
    finally:
        panel.stop()
        small.close()


def test_stop_lets_the_grab_go(keypad: SimKeypad, events: Events, panel: KeypadPanel) -> None:
    """Another program may grab the keypad once the controller has stopped."""
    panel.start()
    came_up(events)
    panel.stop()
    other = keypad.open()
    try:
        other.grab()
    finally:
        other.close()


def test_a_keypad_has_no_lights_and_no_text_and_acknowledges_nothing(
    panel: KeypadPanel,
) -> None:
    """The LIT/TXT path is skipped, as the features say; nothing is acknowledged."""
    assert panel.features == PanelFeatures(lights=False, text_width=0)
    assert not panel.features.shows
    assert panel.acknowledges is False
    panel.light_and_show(3, "Seat 3: call 20")  # skipped: never raises, never blocks


def test_the_backend_opens_a_keypad_panel_from_its_settings(
    keypad: SimKeypad, events: Events
) -> None:
    """KeypadBackend.open gives the seam's Panel of its settings, not started."""
    settings = KeypadSettings(keypad.url, None, DEFAULT)
    panel = KeypadBackend.open(settings, events, OpenOptions())
    assert isinstance(panel, KeypadPanel)
    assert not panel.running
    assert settings.ports()[0].subsystem == "input"
    assert settings.describe() == (
        "a USB keypad at sim://keypad, the default key map, no lights or text"
    )


def test_a_node_that_does_not_answer_as_an_input_device_is_down_not_a_dead_thread(
    events: Events,
) -> None:
    """python-evdev raises SystemError for an ioctl that failed at open (EVIOCGEFFECTS): the
    panel is down naming the node, and the driver tries again."""
    opens: list[str] = []

    def opener(path: str) -> Any:
        opens.append(path)
        raise SystemError("error return without exception set")

    panel = KeypadPanel(Wanted("sim://nothing"), DEFAULT, events, opener=opener)
    try:
        panel.start()
        down = next_event(events)
        assert isinstance(down, DeviceDown)
        assert down.reason == (
            "cannot open the keypad sim://nothing: sim://nothing did not answer as an input device"
        )
        assert panel.running
    finally:
        panel.stop()
