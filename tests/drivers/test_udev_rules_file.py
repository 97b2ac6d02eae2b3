"""udev/99-tablectl.rules read as text: what every rule must say (udev/README.md).

The same file under the real ``udevadm test`` is in umockdev_rules.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.fast

RULES = Path(__file__).resolve().parents[2] / "udev" / "99-tablectl.rules"


def rules() -> list[str]:
    """The rules, continuation lines joined, comments and blank lines dropped."""
    text = RULES.read_text(encoding="ascii").replace("\\\n", " ")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


def naming_rules() -> list[str]:
    return [rule for rule in rules() if "SYMLINK" in rule]


def test_there_is_one_naming_rule_per_device() -> None:
    """The shoe and the panel each get exactly one stable name."""
    names = [re.search(r'SYMLINK\+="([^"]+)"', rule) for rule in naming_rules()]
    assert sorted(m.group(1) for m in names if m) == ["tablectl/panel", "tablectl/shoe"]


@pytest.mark.parametrize("rule", naming_rules(), ids=lambda r: r.split('SYMLINK+="')[1][:14])
def test_each_device_is_matched_by_vendor_product_and_serial(rule: str) -> None:
    """A rule names a device only if its USB vendor, product and serial all match."""
    for attribute in ("idVendor", "idProduct", "serial"):
        assert re.search(rf'ATTRS\{{{attribute}\}}=="[^"]+"', rule), attribute


@pytest.mark.parametrize("rule", naming_rules(), ids=lambda r: r.split('SYMLINK+="')[1][:14])
def test_each_device_is_the_groups_never_the_worlds(rule: str) -> None:
    """Group tablectl, mode 0660, ModemManager kept off, a systemd device unit."""
    assert 'GROUP="tablectl"' in rule
    assert 'MODE="0660"' in rule
    assert 'ENV{ID_MM_DEVICE_IGNORE}="1"' in rule
    assert 'TAG+="systemd"' in rule


def test_no_mode_anywhere_in_the_file_is_world_writable() -> None:
    """Whatever else the file says, no MODE lets others write."""
    for mode in re.findall(r'MODE="([0-7]+)"', RULES.read_text(encoding="ascii")):
        assert int(mode, 8) & 0o002 == 0, mode
