"""udev/98-tablectl-pn532.rules read as text: what each reader's rule must say (udev/README.md,
A PN532 shoe). The same file under the real ``udevadm test`` is in umockdev_pn532_rules.py."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.fast

RULES = Path(__file__).resolve().parents[2] / "udev" / "98-tablectl-pn532.rules"
#: The adapters the file covers, and how each is told from another of its kind.
ADAPTERS = {("10c4", "ea60"): "serial", ("0403", "6001"): "serial", ("1a86", "7523"): "ID_PATH"}


def joined(text: str) -> list[str]:
    return [line.strip() for line in text.replace("\\\n", " ").splitlines() if line.strip()]


def rules() -> list[str]:
    return [line for line in joined(RULES.read_text(encoding="ascii")) if not line.startswith("#")]


def example_rules() -> list[str]:
    """The commented rule for an FTDI adapter, uncommented."""
    text = RULES.read_text(encoding="ascii")
    commented = "\n".join(
        line[2:] for line in text.splitlines() if line.startswith("# ") and "=" in line
    )
    return [rule for rule in joined(commented) if "SYMLINK" in rule and "ATTRS" in rule]


def naming_rules() -> list[str]:
    return [rule for rule in rules() + example_rules() if "SYMLINK" in rule]


def test_a_name_per_read_point() -> None:
    names = set(re.findall(r'SYMLINK\+="([^"]+)"', " ".join(rules())))
    assert names == {"tablectl/shoe", "tablectl/shoe-discard"}


def test_each_adapter_is_covered_and_told_from_its_kind() -> None:
    """CP210x and FTDI by their serial number, the CH340 (which has none) by its USB port."""
    seen = set()
    for rule in naming_rules():
        vendor = re.search(r'ATTRS\{idVendor\}=="([0-9a-f]{4})"', rule)
        product = re.search(r'ATTRS\{idProduct\}=="([0-9a-f]{4})"', rule)
        assert vendor, rule
        assert product, rule
        ids = (vendor.group(1), product.group(1))
        by = ADAPTERS[ids]
        pattern = r'ATTRS\{serial\}=="[^"]+"' if by == "serial" else r'ENV\{ID_PATH\}=="[^"*?]+"'
        assert re.search(pattern, rule), rule
        seen.add(ids)
    assert seen == set(ADAPTERS)


@pytest.mark.parametrize("rule", naming_rules(), ids=lambda r: r.split('SYMLINK+="')[1][:22])
def test_each_reader_is_the_groups_never_the_worlds(rule: str) -> None:
    assert 'GROUP="tablectl"' in rule
    assert 'MODE="0660"' in rule
    assert 'ENV{ID_MM_DEVICE_IGNORE}="1"' in rule
    assert 'TAG+="systemd"' in rule


def test_the_usb_port_is_known_before_it_is_matched() -> None:
    """ID_PATH comes from udev's path_id builtin, imported before the first rule reads it."""
    lines = rules()
    imported = lines.index('IMPORT{builtin}="path_id"')
    first_use = next(i for i, line in enumerate(lines) if "ENV{ID_PATH}" in line)
    assert imported < first_use
