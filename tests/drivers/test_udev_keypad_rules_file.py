"""udev/70-tablectl-keypad.rules read as text: what the keypad's rule must say (udev/README.md,
The keypad). The same file under the real ``udevadm test`` is in umockdev_keypad_rules.py."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.fast

RULES = Path(__file__).resolve().parents[2] / "udev" / "70-tablectl-keypad.rules"


def rules() -> list[str]:
    text = RULES.read_text(encoding="ascii").replace("\\\n", " ")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


def test_one_rule_names_the_keypad_by_vendor_product_and_serial() -> None:
    naming = [rule for rule in rules() if "SYMLINK" in rule]
    assert len(naming) == 1
    (rule,) = naming
    assert 'SYMLINK+="tablectl/keypad"' in rule
    for attribute in ("idVendor", "idProduct", "serial"):
        assert re.search(rf'ATTRS\{{{attribute}\}}=="[^"]+"', rule), attribute


def test_only_evdev_nodes_with_keys_are_considered() -> None:
    """Input subsystem, event nodes, ID_INPUT_KEY: every other device skips the rule."""
    guards = rules()[:4]
    assert guards == [
        'ACTION=="remove", GOTO="tablectl_keypad_end"',
        'SUBSYSTEM!="input", GOTO="tablectl_keypad_end"',
        'KERNEL!="event*", GOTO="tablectl_keypad_end"',
        'ENV{ID_INPUT_KEY}!="1", GOTO="tablectl_keypad_end"',
    ]


def test_the_keypad_is_the_groups_and_no_desktops() -> None:
    (rule,) = [rule for rule in rules() if "SYMLINK" in rule]
    assert 'GROUP="tablectl"' in rule
    assert 'MODE="0660"' in rule
    assert 'ENV{LIBINPUT_IGNORE_DEVICE}="1"' in rule
    assert 'TAG+="systemd"' in rule
    for mode in re.findall(r'MODE="([0-7]+)"', RULES.read_text(encoding="ascii")):
        assert int(mode, 8) & 0o007 == 0, mode


def test_it_runs_after_udevs_input_rules() -> None:
    """ID_INPUT_KEY is set by 60-input-id.rules: the file's number must come after it."""
    assert int(RULES.name.split("-", 1)[0]) > 60
