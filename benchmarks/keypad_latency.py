"""Key press to the engine's input on the keypad panel, against the bare evdev read.

    python benchmarks/keypad_latency.py [--hands N] [--game G] [--floor N]

There is no real input device to make on this machine (no uinput: docs/testing.md, The
keypad under umockdev), so the keypad is the one the tests emulate with umockdev
(simulator/keypad_umockdev.py), read by the real python-evdev and found by the real
libudev: the script runs itself again under ``umockdev-run``.

The **controller**: a simulated table (``SimTable``: the shoe simulated in-process, the
journal on disk) whose panel is the keypad backend on the emulated keypad, found by its
USB identity; the simulator's random dealer deals ``--hands`` hands in lockstep, and each of
its presses is a key's down and up written to the keypad's node (its other end, as the
kernel queues a report). The clock starts just before the write (``time.perf_counter``)
and stops when the controller's listeners are called: the press read by python-evdev on the
driver's thread, filtered, numbered, journaled (fsync on and off: two runs) and taken by the
engine, its events announced and logged (JSON lines at info to a file, as ``tablectl run``).

The **floor**, in the same run: another emulated keypad, its node read by python-evdev on a
thread that only waits for it (``select``) and reads it (``InputDevice.read``), a key written
at the controller's pace (the fsync-off run's mean time between presses). It is what the
emulated node, python-evdev's read and waking a thread cost, with no driver and no
controller. The controller's p50 and p99 are also printed as multiples of the floor's.
"""

from __future__ import annotations

import argparse
import itertools
import os
import select
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a source tree

from controller.config.settings import JournalSettings, LogFormat, LogSettings
from controller.logs.logsetup import configure_logging, reset_logging
from controller.poker.games import GAMES
from controller.poker.inputs import Button
from controller.table.loop import Controller
from drivers.keypad.backend import KeypadSettings
from drivers.keypad.keymap import DEFAULT_KEYS, KeyMap, key_code
from drivers.seam.settings import DeviceIdentity
from simulator.keypad_umockdev import KeypadSpec, key_frame
from simulator.lockstep import LockstepDealer
from simulator.pace import Pace
from simulator.simtable import SimTable

#: The keypad the controller reads, and the floor's, side by side in one testbed.
PANEL = KeypadSpec()
FLOOR = KeypadSpec(event="event6", serial="KP0009", usb_port="1-3")
KEYMAP = KeyMap(DEFAULT_KEYS)
#: A dealer as fast as the table takes it: the shoe's repeat window shortened with it.
REPEAT_WINDOW = 0.02


class Testbed:
    """The two emulated keypads (umockdev's GObject API: only inside umockdev-run)."""

    def __init__(self, folder: Path) -> None:
        import gi  # noqa: PLC0415 -- only under umockdev-run

        gi.require_version("UMockdev", "1.0")
        from gi.repository import UMockdev  # noqa: PLC0415

        self.testbed: Any = UMockdev.Testbed.new()
        for spec in (PANEL, FLOOR):
            assert self.testbed.add_from_string(spec.description())
            ioctl = folder / f"{spec.event}.ioctl"
            ioctl.write_text(spec.ioctls(), encoding="ascii")
            assert self.testbed.load_ioctl(spec.node, str(ioctl))

    def other_end(self, spec: KeypadSpec) -> int:
        return int(self.testbed.get_dev_fd(spec.node))


def tap(fd: int, button: Button) -> None:
    code = key_code(KEYMAP.keys[button])
    assert code is not None
    os.write(fd, key_frame(code, 1) + key_frame(code, 0))


def measure(bed: Testbed, game: str, hands: int, folder: Path, *, fsync: bool) -> list[float]:
    """Each press's time from its key written to the controller's listeners."""
    fd = bed.other_end(PANEL)
    written: list[float] = []
    latencies: list[float] = []
    inputs_at_press = [0]
    settings = KeypadSettings(None, DeviceIdentity("panel", "04d9", "1203", PANEL.serial), KEYMAP)
    options = JournalSettings(folder / "journal", fsync=fsync)
    with SimTable(
        game,
        options,
        seed=1,
        directory=folder,
        repeat_window=REPEAT_WINDOW,
        devices={"panel": settings},
    ) as table:
        controller = table.controller

        def press(button: Button) -> None:
            inputs_at_press[0] = controller.inputs
            written.append(time.perf_counter())
            tap(fd, button)

        def taken(ctl: Controller, _events: object) -> None:
            if len(written) > len(latencies) and ctl.inputs > inputs_at_press[0]:
                latencies.append(time.perf_counter() - written[len(latencies)])

        controller.listeners.append(taken)
        table.sim.presses = press
        LockstepDealer.for_table(
            table.sim,
            controller,
            table.spec,
            table.config,
            seed=1,
            hands=hands,
            pace=Pace.fast(REPEAT_WINDOW),
            timeout=30.0,
        ).run()
    if len(latencies) != len(written):
        raise RuntimeError(f"{len(written)} presses written, {len(latencies)} taken")
    PACE.append(statistics.mean(b - a for a, b in itertools.pairwise(written)))
    return latencies


#: The mean time between the controller's presses, for the floor.
PACE: list[float] = []


def measure_floor(bed: Testbed, count: int, pause: float) -> list[float]:
    """Each key's time from its write to python-evdev's read of it on a waiting thread."""
    import evdev  # noqa: PLC0415 -- the emulated node opens only under umockdev-run

    fd = bed.other_end(FLOOR)
    device = evdev.InputDevice(FLOOR.node)
    device.grab()
    sent: list[float] = []
    latencies: list[float] = []
    got = threading.Event()

    def reader() -> None:
        while len(latencies) < count:
            select.select([device.fd], [], [])
            try:
                events = list(device.read())
            except BlockingIOError:
                continue
            now = time.perf_counter()
            for event in events:
                if event.type == 1 and event.value == 1:
                    latencies.append(now - sent[len(latencies)])
                    got.set()

    thread = threading.Thread(target=reader, name="floor-reader")
    thread.start()
    try:
        for _ in range(count):
            got.clear()
            time.sleep(pause)
            sent.append(time.perf_counter())
            tap(fd, Button.FOLD)
            if not got.wait(30.0):
                raise RuntimeError("the floor's reader took no key within 30 s")
    finally:
        thread.join(30.0)
        device.close()
    return latencies


def report(label: str, latencies: list[float]) -> str:
    cuts = statistics.quantiles(latencies, n=100)
    ms = [value * 1e3 for value in (cuts[49], cuts[98], max(latencies))]
    return (
        f"{label}: {len(latencies)} presses, p50 {ms[0]:.3f} ms, p99 {ms[1]:.3f} ms, "
        f"max {ms[2]:.3f} ms"
    )


def ratios(label: str, latencies: list[float], floor: list[float]) -> str:
    ours, theirs = statistics.quantiles(latencies, n=100), statistics.quantiles(floor, n=100)
    return f"{label}: p50 x{ours[49] / theirs[49]:.2f}, p99 x{ours[98] / theirs[98]:.2f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=30, help="hands a run (default 30)")
    parser.add_argument("--game", choices=sorted(GAMES), default="triple-draw")
    parser.add_argument("--floor", type=int, default=1000, help="the floor's keys (default 1000)")
    args = parser.parse_args(argv)
    if "UMOCKDEV_DIR" not in os.environ:
        command = ["umockdev-run", "--", sys.executable, __file__, *sys.argv[1:]]
        return subprocess.run(command, check=False).returncode
    with tempfile.TemporaryDirectory(prefix="tablectl-keypad-bench-") as folder:
        # As tablectl run logs: JSON lines at info, to a file.
        log = LogSettings(format=LogFormat.JSON, file=Path(folder) / "tablectl.log")
        configure_logging(log, table_id="BENCH-1")
        try:
            bed = Testbed(Path(folder))
            runs = {}
            for fsync in (False, True):
                runs[fsync] = measure(
                    bed, args.game, args.hands, Path(folder) / f"fsync-{fsync}", fsync=fsync
                )
            floor = measure_floor(bed, args.floor, PACE[0])
        finally:
            reset_logging()
    print(f"{args.game}, {args.hands} hands a run, presses on a keypad emulated by umockdev")
    print(report("key to engine input, fsync off", runs[False]))
    print(report("key to engine input, fsync on", runs[True]))
    print(report(f"floor, bare evdev read every {PACE[0] * 1e3:.1f} ms", floor))
    print(ratios("fsync off against the floor", runs[False], floor))
    return 0


if __name__ == "__main__":
    sys.exit(main())
