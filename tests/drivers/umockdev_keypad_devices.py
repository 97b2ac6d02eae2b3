"""``tablectl devices`` lists the keypads beside the tty devices, on the real libudev, the
keypads emulated by umockdev (keypad_bed.py): each judged against the table.toml's keypad
panel, the ``--panel`` identity, or the udev rule's ``/dev/tablectl/keypad``. Run inside
``umockdev-run`` (test_keypad_umockdev.py starts it).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from keypad_bed import (  # the fixture replaces the suite's leak check here
    KeypadBed,
    _no_leaked_threads_fds_or_ptys,  # noqa: F401 -- a fixture, used by name
)
from umockdev_bed import under_umockdev

from controller.cli.main import main
from controller.poker.engine import Stakes, TableSetup
from simulator.keypad_umockdev import KeypadSpec
from simulator.tablefile import TomlValue, write_table_toml

pytestmark = pytest.mark.skipif(not under_umockdev(), reason="runs inside umockdev-run")

IDENTITY = "04d9:1203:KP0001"


@pytest.fixture
def bed() -> Iterator[KeypadBed]:
    made = KeypadBed()
    yield made
    made.close()


def table_toml(tmp_path: Path, panel: dict[str, TomlValue]) -> Path:
    """A table.toml whose shoe is a path and whose panel is the ``[devices.panel]`` given."""
    return write_table_toml(
        tmp_path,
        table_id="K-1",
        game="mambo",
        config=TableSetup(seats=(1, 2), stakes=Stakes(small_bet=5, big_bet=10)),
        shoe={"path": tmp_path / "shoe"},
        panel=panel,
        decks=[tmp_path / "a.deck", tmp_path / "b.deck"],
    )


def keypad_lines(out: str) -> list[str]:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(("keypads", "no keypads")))
    return lines[start:]


def test_devices_says_which_keypad_is_the_table_tomls_panel(
    bed: KeypadBed, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two keypads: the one whose USB identity the table.toml's keypad panel names is the
    panel, the other is named with what differs; exit 0."""
    spec = bed.plug()
    other = bed.plug(KeypadSpec(event="event6", serial="KP0002", usb_port="1-3"))
    config = table_toml(
        tmp_path, {"kind": "keypad", "vendor_id": "04d9", "product_id": "1203", "serial": "KP0001"}
    )
    assert main(["devices", "--config", str(config)]) == 0
    assert keypad_lines(capsys.readouterr().out) == [
        "keypads (input devices with keys; the panel is USB 04d9:1203:KP0001; "
        "tablectl keypad --try presses them):",
        f"{spec.node}  {spec.name}  usb 04d9:1203  serial KP0001",
        f"    names: {spec.by_id}",
        "    => the keypad: USB 04d9:1203:KP0001 matches",
        f"{other.node}  {other.name}  usb 04d9:1203  serial KP0002",
        f"    names: {other.by_id}",
        "    not the keypad: serial KP0002 (want KP0001)",
    ]


def test_a_keypad_panel_not_plugged_in_is_missing(
    bed: KeypadBed, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The table.toml names a by-id path no keypad has: the panel was not found, exit 1."""
    spec = bed.plug()
    config = table_toml(
        tmp_path, {"kind": "keypad", "path": "/dev/input/by-id/usb-Other_Keypad-event-kbd"}
    )
    assert main(["devices", "--config", str(config)]) == 1
    assert keypad_lines(capsys.readouterr().out)[-2:] == [
        "    not /dev/input/by-id/usb-Other_Keypad-event-kbd",
        "the panel was not found",
    ]
    # Its own link names it.
    by_id = table_toml(tmp_path, {"kind": "keypad", "path": spec.by_id})
    assert main(["devices", "--config", str(by_id)]) == 0
    assert f"    => the keypad: is {spec.by_id}" in capsys.readouterr().out


def test_a_protocol_panel_table_judges_no_keypad(
    bed: KeypadBed, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The table.toml's panel is a protocol panel: the keypads are listed, none is the
    panel, and none is required."""
    spec = bed.plug()
    config = table_toml(tmp_path, {"path": tmp_path / "panel"})
    assert main(["devices", "--config", str(config)]) == 0
    assert keypad_lines(capsys.readouterr().out) == [
        "keypads (input devices with keys; its panel is kind 'tablectl', no keypad; "
        "tablectl keypad --try presses them):",
        f"{spec.node}  {spec.name}  usb 04d9:1203  serial KP0001",
        f"    names: {spec.by_id}",
    ]


def test_panel_identity_finds_a_keypad_and_json_lists_the_keypads(
    bed: KeypadBed, capsys: pytest.CaptureFixture[str]
) -> None:
    """--panel VID:PID:SERIAL is met by a keypad as by a protocol panel; --json lists the
    keypads with their verdicts; nothing named, the udev rule's name is the keypad's."""
    spec = bed.plug()
    assert main(["devices", "--panel", IDENTITY, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["missing"] == []
    assert report["keypad"] == f"USB {IDENTITY}"
    (keypad,) = report["keypads"]
    assert (keypad["node"], keypad["serial"], keypad["wanted"]) == (spec.node, "KP0001", True)
    assert keypad["reason"] == f"USB {IDENTITY} matches"
    assert main(["devices", "--panel", "04d9:1203:NONE"]) == 1
    assert capsys.readouterr().out.splitlines()[-1] == "the panel was not found"
    assert main(["devices"]) == 0
    assert keypad_lines(capsys.readouterr().out)[-1] == "    not /dev/tablectl/keypad"
