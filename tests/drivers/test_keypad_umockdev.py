"""Runs the keypad's umockdev tests: the real python-evdev (and the keypad driver) against a
USB keypad emulated by umockdev, under ``umockdev-run`` (its preload library must be loaded
before libudev and before the first ioctl, so not in this process).

Also here, one ``umockdev-run`` of the committed fixtures (tests/fixtures/keypad/) as a
technician runs it, with events from an evemu file (``-e``), and umockdev's reading of an
evemu time whose microseconds start with 0 (docs/testing.md, What umockdev does not
emulate).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from test_umockdev import NAMESPACE_SCRIPT, ROOT, free_gid, run_pytest_under_umockdev, tools_or_skip

from simulator.keypad_umockdev import evemu_events

HERE = Path(__file__).resolve().parent
FIXTURES = ROOT / "tests" / "fixtures" / "keypad"

#: Reads the events a replay gives, and prints them, until the report that ends KEY_KPENTER's
#: coming up (the report may come in a later read than the key).
READER = """
import select, evdev
device = evdev.InputDevice("/dev/input/event5")
device.grab()
enter_up = False
while True:
    select.select([device.fd], [], [], 30)
    try:
        events = list(device.read())
    except BlockingIOError:
        continue
    for event in events:
        print(event.sec, event.usec, event.type, event.code, event.value)
        if event.type == 1 and event.code == 96 and event.value == 0:
            enter_up = True
        elif enter_up and event.type == 0:
            raise SystemExit(0)
"""


def test_python_evdev_and_the_keypad_driver_on_an_emulated_keypad() -> None:
    """umockdev_keypad.py (python-evdev's open, grab and reads; umockdev's gaps),
    umockdev_keypad_driver.py (the driver found by udev, grabbing, pressing, unplugged
    and replugged) and umockdev_keypad_devices.py (``tablectl devices`` lists the keypads),
    in one umockdev-run (pytest starts slowly)."""
    tools_or_skip("umockdev-run")
    tests = ["umockdev_keypad.py", "umockdev_keypad_driver.py", "umockdev_keypad_devices.py"]
    run_pytest_under_umockdev([HERE / name for name in tests], [])


def test_the_keypads_udev_rule_under_udevadm(tmp_path: Path) -> None:
    """umockdev_keypad_rules.py: udev/70-tablectl-keypad.rules under the real `udevadm test`,
    in a private mount namespace as test_umockdev.py runs the other rules."""
    tools_or_skip("umockdev-run", "udevadm", "unshare")
    wrapper = [
        "unshare", "--mount", "--propagation", "private", "--",
        "sh", "-c", NAMESPACE_SCRIPT, "namespace", str(tmp_path),
        str(ROOT / "udev" / "70-tablectl-keypad.rules"), str(free_gid()),
    ]  # fmt: skip
    run_pytest_under_umockdev([HERE / "umockdev_keypad_rules.py"], wrapper)


def replay(tmp_path: Path, evemu: str) -> list[tuple[int, ...]]:
    events = tmp_path / "keys.evemu"
    events.write_text(evemu, encoding="ascii")
    result = subprocess.run(
        [
            "umockdev-run",
            "-d", str(FIXTURES / "keypad.umockdev"),
            "-i", f"/dev/input/event5={FIXTURES / 'keypad.ioctl'}",
            "-e", f"/dev/input/event5={events}",
            "--", sys.executable, "-c", READER,
        ],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    return [tuple(map(int, line.split())) for line in result.stdout.splitlines()]


def test_the_fixtures_replay_an_evemu_file_to_python_evdev(tmp_path: Path) -> None:
    """`umockdev-run -d keypad.umockdev -i ...=keypad.ioctl -e ...=keys.evemu`: the keys
    arrive in order with their times (docs/testing.md shows the command)."""
    tools_or_skip("umockdev-run")
    evemu = evemu_events(
        [
            (10.25, 1, 79, 1), (10.25, 0, 0, 0), (10.5, 1, 79, 0), (10.5, 0, 0, 0),
            (11.0, 1, 96, 1), (11.0, 0, 0, 0), (11.125, 1, 96, 0), (11.125, 0, 0, 0),
        ]
    )  # fmt: skip
    assert replay(tmp_path, evemu) == [
        (10, 250000, 1, 79, 1), (10, 250000, 0, 0, 0), (10, 500000, 1, 79, 0),
        (10, 500000, 0, 0, 0), (11, 0, 1, 96, 1), (11, 0, 0, 0, 0), (11, 125000, 1, 96, 0),
        (11, 125000, 0, 0, 0),
    ]  # fmt: skip


def test_umockdev_reads_microseconds_with_a_leading_zero_as_octal(tmp_path: Path) -> None:
    """umockdev 0.17's gap: ``12.012345`` replays as 12 s 5349 us (012345 read as octal),
    which is why evemu_events refuses such a time. If this fails, umockdev reads decimal
    and the refusal can go (docs/testing.md, What umockdev does not emulate)."""
    tools_or_skip("umockdev-run")
    evemu = (
        "# EVEMU 1.3\n"
        "E: 12.012345 0001 0060 1\nE: 12.012345 0000 0000 0\n"
        "E: 12.100000 0001 0060 0\nE: 12.100000 0000 0000 0\n"
    )
    got = replay(tmp_path, evemu)
    assert got[0] == (12, 0o12345, 1, 96, 1)
