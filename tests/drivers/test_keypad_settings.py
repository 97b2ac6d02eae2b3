"""``[devices.panel] kind = "keypad"``: the keypad backend reads and checks its own keys
(drivers/keypad/backend.py), each problem naming its dotted key; it is in the registry."""

from __future__ import annotations

import pytest

from controller.tomlcheck import Problem, Section
from drivers.keypad.backend import KEYS, KeypadBackend, KeypadSettings
from drivers.keypad.keymap import DEFAULT_KEYS
from drivers.seam import registry
from drivers.seam.settings import DeviceIdentity

pytestmark = pytest.mark.fast


def read(data: dict[str, object]) -> tuple[KeypadSettings | None, list[str]]:
    problems: list[Problem] = []
    section = Section(problems, "devices.panel", data, ("kind", *KEYS), {})
    settings = KeypadBackend.read_settings(section)
    return settings, [str(p) for p in problems]


def test_the_registry_names_the_keypad_backend_for_the_panel() -> None:
    assert registry.panel_backend("keypad") is KeypadBackend
    assert "keypad" in registry.kinds("panel")
    assert KeypadBackend.features.shows is False


def test_a_path_and_no_keys_is_the_default_map() -> None:
    settings, problems = read({"kind": "keypad", "path": "/dev/tablectl/keypad"})
    assert problems == []
    assert settings is not None
    assert settings.path == "/dev/tablectl/keypad"
    assert dict(settings.keymap.keys) == dict(DEFAULT_KEYS)
    assert settings.describe() == (
        "a USB keypad at /dev/tablectl/keypad, the default key map, no lights or text"
    )


def test_a_usb_identity_and_a_key_map() -> None:
    keys = {b.value: k for b, k in DEFAULT_KEYS.items()} | {"fold": "KEY_KP4"}
    settings, problems = read(
        {"vendor_id": "04D9", "product_id": "1203", "serial": "KP0001", "keys": keys}
    )
    assert problems == []
    assert settings is not None
    assert settings.identity == DeviceIdentity("panel", "04d9", "1203", "KP0001")
    assert settings.serial_number() == "KP0001"
    assert settings.keymap.keys[next(b for b in DEFAULT_KEYS if b.value == "fold")] == "KEY_KP4"
    assert settings.ports()[0].subsystem == "input"
    assert "its key map" in settings.describe()


def test_every_problem_of_the_key_map_is_named_with_its_dotted_key() -> None:
    keys = {b.value: k for b, k in DEFAULT_KEYS.items()} | {"fold": "KEY_KP11", "undo": "KEY_KP2"}
    del keys["misdeal"]
    settings, problems = read({"path": "/dev/tablectl/keypad", "keys": keys})
    assert settings is None
    assert problems == [
        "devices.panel.keys.fold = \"KEY_KP11\": unknown key name 'KEY_KP11': expected the "
        "kernel's KEY_* name (e.g. KEY_KP1; `tablectl keypad --try` shows each key's name as it "
        "is pressed)",
        "devices.panel.keys.misdeal = (missing): button misdeal has no key: expected a KEY_* name",
        'devices.panel.keys.undo = "KEY_KP2": key KEY_KP2 is mapped to two buttons '
        "(check_call and undo): expected another key",
    ]


def test_keys_that_are_not_a_table_and_no_place_are_named() -> None:
    settings, problems = read({"keys": "default"})
    assert settings is None
    assert any(p.startswith("devices.panel.keys = ") for p in problems)
    assert any(p.startswith("devices.panel = (missing): expected either 'path'") for p in problems)
