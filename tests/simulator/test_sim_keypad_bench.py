"""``tablectl sim --config table.toml`` with a keypad panel (``[devices.panel] kind =
"keypad"``) and ``tablectl run`` as docs/simulator.md tells, each its own process: the
simulator emulates the table.toml's keypad with umockdev, the controller runs under umockdev's
preload with the testbed's folder the simulator prints, and finds, grabs and reads that keypad
with python-evdev through its keypad backend (docs/simulator.md, The keypad panel).

The bench bot deals whole hands through it, its presses going through the table.toml's key map
to the keypad's event node, and both tables settle them alike; a press at the console reaches
the engine, and one made while no controller holds the keypad is refused.
"""

from __future__ import annotations

import json
import os
import queue
import shlex
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from devtime import WAIT
from logread import whole_lines
from test_bot_bench_stacks import (
    BENCH_WAIT,
    OUT_OF_STEP,
    ROOT,
    TABLECTL,
    BenchRun,
    _reading,
    short_stacks_toml,
    start_controller,
    stop_controller,
)

from controller.cli.main import main
from controller.journal import verify
from controller.poker.inputs import Button
from drivers.keypad.backend import KeypadSettings
from drivers.keypad.keymap import DEFAULT_KEYS, STANDARD_17_KEYS, KeyMap
from drivers.seam.settings import DeviceIdentity
from simulator.keypad_testbed import spec_for

#: The table.toml's keypad, by the name the udev rule gives it, and a key map of its own.
KEYPAD = """[devices.panel]
kind = "keypad"
path = "/dev/tablectl/keypad"

[devices.panel.keys]
new_hand = "KEY_KPENTER"
fold = "KEY_KP4"
check_call = "KEY_KP5"
bet_raise = "KEY_KP6"
all_in = "KEY_KP9"
draw_done = "KEY_KP0"
misdeal = "KEY_KPSLASH"
undo = "KEY_KPMINUS"
"""


def umockdev_or_skip() -> None:
    """Skip (fail on CI) where umockdev or its GObject bindings are not installed."""
    try:
        import gi  # noqa: F401, PLC0415 -- only to learn whether PyGObject is installed
    except ImportError:
        found = False
    else:
        found = shutil.which("umockdev-run") is not None
    if not found:
        message = "needs umockdev, gir1.2-umockdev-1.0 and PyGObject"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


def keypad_toml(folder: Path, game: str) -> Path:
    """The README's bench table.toml, its panel the keypad above."""
    path = short_stacks_toml(folder, game)
    text = path.read_text(encoding="utf-8")
    protocol_panel = f'[devices.panel]\npath = "{folder}/panel"\n'
    assert protocol_panel in text
    path.write_text(text.replace(protocol_panel, KEYPAD), encoding="utf-8")
    return path


def controller_env(panel_line: str) -> dict[str, str]:
    """The environment the simulator's panel line says to start the controller with."""
    words = shlex.split(panel_line.split("start the controller so: ", 1)[1])
    assigned = dict(word.split("=", 1) for word in words[: words.index("tablectl")])
    assert set(assigned) == {"UMOCKDEV_DIR", "LD_PRELOAD"}, panel_line
    return {**os.environ, **assigned}


def keypad_bench(folder: Path, game: str, *options: str, console: str = "") -> BenchRun:
    """The simulator first, then the controller in the environment it prints, until the bot's
    last line (or the console's input is over), then both stopped."""
    config = keypad_toml(folder, game)
    errors = folder / "run.err"
    run = BenchRun()
    lines: queue.Queue[str | None] = queue.Queue()
    with (
        subprocess.Popen(
            [*TABLECTL, "sim", "--seed", "7", "--config", str(config), *options],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        ) as sim,
        _reading(sim.stdout, lines),
    ):
        assert sim.stdin is not None
        controller: subprocess.Popen[bytes] | None = None
        try:
            while True:
                line = lines.get(timeout=BENCH_WAIT)
                if line is None:
                    break
                run.said.append(line)
                if line.startswith("panel: ") and controller is None:
                    controller = start_controller(config, errors, controller_env(line))
                    sim.stdin.write(console)
                    sim.stdin.close()
                if line.startswith(("bot: stopped", "bot: done")) or OUT_OF_STEP in line:
                    break
        finally:
            status = 0 if controller is None else stop_controller(controller)
            # A finite bot done and the input over, the simulator ends by itself: a SIGTERM
            # sent then could land after its handlers are given back on the way out, and kill
            # it (-15) where it had nothing left to clean up. Otherwise it is stopped.
            done = bool(run.said) and run.said[-1].startswith("bot: done")
            if not done and sim.poll() is None:
                sim.terminate()
            try:
                ended = sim.wait(timeout=WAIT)
            except subprocess.TimeoutExpired:
                sim.kill()  # so the with block's own wait ends
                raise AssertionError(f"the simulator did not end within {WAIT} s") from None
            assert ended in ((0,) if done else (0, 1, 128 + signal.SIGTERM)), ended
            assert status == 0, errors.read_text(encoding="utf-8", errors="replace")
    log = folder / "tablectl.log"
    run.log = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert verify(folder / "journal").intact
    return run


@pytest.mark.parametrize(
    "game",
    [
        "mambo",
        # Two processes' start and a testbed take about 10 s a game on the shared machine: the
        # default suite plays one game; the slow tier all three (docs/testing.md).
        pytest.param("five-card-stud", marks=pytest.mark.slow),
        pytest.param("triple-draw", marks=pytest.mark.slow),
    ],
)
def test_the_bench_bot_deals_through_the_emulated_keypad(tmp_path: Path, game: str) -> None:
    """Two hands of a game: the bot waits for the controller to hold the keypad, each press a
    tap of the key the table.toml's map gives it, read by the controller's keypad backend;
    every hand settles on the controller as on the bot's table."""
    umockdev_or_skip()
    run = keypad_bench(tmp_path, game, "--bot", "random", "--pace", "fast", "--hands", "2")
    assert not [line for line in run.said if OUT_OF_STEP in line], run.said[-5:]
    assert run.said[-1] == "bot: done after 2 hands", run.said[-8:]
    assert len(run.bot_hands()) == 2
    assert run.controller_hands() == run.bot_hands()
    (up,) = run.events("keypad_up")
    assert (up["path"], up["name"]) == ("/dev/input/event5", "Tablectl Bench 17-key Keypad"), up
    # Each press the keypad's: the key the table.toml's map (not the default) gives the button.
    keys = dict(line.split(" = ") for line in KEYPAD.splitlines() if line.endswith('"'))
    presses = [(p["button"], p["key"]) for p in run.events("button")]
    assert ("new_hand", "KEY_KPENTER") in presses
    assert presses == [(button, keys[button].strip('"')) for button, _ in presses]
    assert len(presses) == len([line for line in run.said if line.startswith("bot: press")])


def log_events(folder: Path) -> list[dict[str, object]]:
    """The running controller's log lines so far, each whole (logread.whole_lines)."""
    return whole_lines(folder / "tablectl.log")


def logged(folder: Path, event: str) -> list[dict[str, object]]:
    return [e for e in log_events(folder) if e.get("event") == event]


def wait_logged(folder: Path, event: str, process: subprocess.Popen[bytes], times: int = 1) -> None:
    """Wait until the controller has logged ``event`` ``times`` times (it runs all along)."""
    deadline = time.monotonic() + WAIT
    while len(logged(folder, event)) < times:
        assert process.poll() is None, f"the controller stopped before it logged {event}"
        assert time.monotonic() < deadline, f"no {event} in the controller's log"
        time.sleep(0.02)


def test_a_console_press_reaches_the_engine_and_a_simulator_stopped_first_unplugs_it(
    tmp_path: Path,
) -> None:
    """No bot: `press new_hand` while no controller holds the keypad is refused, saying
    why; with the controller holding it, the press starts hand 1. `fault unplug panel` and
    `fault replug panel` pull and plug the keypad's cable (a press between is refused). `quit`
    unplugs the keypad before umockdev goes: the controller logs it down and runs on, then
    stops cleanly."""
    umockdev_or_skip()
    config = keypad_toml(tmp_path, "mambo")
    with subprocess.Popen(
        [*TABLECTL, "sim", "--seed", "7", "--config", str(config)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        bufsize=1,
    ) as sim:
        assert sim.stdin is not None
        assert sim.stdout is not None
        said = [sim.stdout.readline().rstrip("\n") for _ in range(4)]
        (panel,) = [line for line in said if line.startswith("panel: ")]
        assert panel.startswith(
            "panel: a USB keypad emulated by umockdev, /dev/input/event5 (/dev/tablectl/keypad); "
            "start the controller so: UMOCKDEV_DIR=/"
        ), panel
        assert panel.endswith(
            f" LD_PRELOAD=libumockdev-preload.so.0 tablectl run --config {config}"
        ), panel
        sim.stdin.write("press new_hand\n")
        assert sim.stdout.readline().startswith(
            "error: press: new_hand: the keypad's key is not pressed: no controller's display at "
        )
        controller = start_controller(config, tmp_path / "run.err", controller_env(panel))
        try:
            wait_logged(tmp_path, "keypad_up", controller)
            wait_logged(tmp_path, "display_attached", controller)

            def press(button: str) -> None:
                """Press until the simulator's view of the display lets the press through:
                it reads the display's first view at the controller's next turn."""
                deadline = time.monotonic() + WAIT
                while True:
                    sim.stdin.write(f"press {button}\n")
                    answer = sim.stdout.readline().rstrip("\n")
                    if answer == f"pressed {button}":
                        return
                    assert answer.startswith(f"error: press: {button}: "), answer
                    assert time.monotonic() < deadline, answer

            def console(command: str) -> str:
                sim.stdin.write(command + "\n")
                return sim.stdout.readline().rstrip("\n")

            press("new_hand")
            wait_logged(tmp_path, "hand_started", controller)
            (pressed,) = logged(tmp_path, "button")
            assert (pressed["button"], pressed["key"]) == ("new_hand", "KEY_KPENTER")
            # The keypad's cable pulled and plugged back: down, then up at another node.
            assert console("fault unplug panel") == "the panel is unplugged"
            wait_logged(tmp_path, "keypad_down", controller)
            assert console("press fold").startswith("error: press: fold: ")
            replugged = console("fault replug panel")
            assert replugged.startswith(
                "the panel is plugged back in at /dev/input/event6 (a keypad emulated by "
            ), replugged
            wait_logged(tmp_path, "keypad_up", controller, times=2)
            assert logged(tmp_path, "keypad_up")[1]["path"] == "/dev/input/event6"
            press("fold")  # the engine refuses it (cards are due), but it is the keypad's
            wait_logged(tmp_path, "button", controller, times=2)
            assert logged(tmp_path, "button")[1]["key"] == "KEY_KP4"
            sim.stdin.write("quit\n")
            sim.stdin.close()
            assert sim.wait(timeout=WAIT) == 1  # piped, the refused press failed
            wait_logged(tmp_path, "keypad_down", controller, times=2)
            assert controller.poll() is None, "the controller runs on without its keypad"
        finally:
            status = stop_controller(controller)
        assert status == 0, (tmp_path / "run.err").read_text(encoding="utf-8", errors="replace")


def test_a_keypad_the_bench_cannot_emulate_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The demo's in-process ``sim://keypad`` is no keypad another process can open: refused
    with what to write instead, before any device is made (exit 2)."""
    config = keypad_toml(tmp_path, "mambo")
    text = config.read_text(encoding="utf-8")
    config.write_text(
        text.replace('path = "/dev/tablectl/keypad"', 'url = "sim://keypad"'), encoding="utf-8"
    )
    assert main(["sim", "--config", str(config)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [
        f"tablectl sim: error: --config {config}: [devices.panel] path = 'sim://keypad': "
        'tablectl sim emulates a USB keypad named by a path (path = "/dev/tablectl/keypad") or '
        "by vendor_id, product_id and serial; sim://keypad is tablectl demo's keypad, in its "
        "own process"
    ]
    assert not (tmp_path / "shoe").exists()


@pytest.mark.fast
def test_the_emulated_keypad_is_the_one_the_table_toml_names() -> None:
    """By USB identity, by a node, by another path (among its names, as a udev rule gives
    it); its keys the standard 17 and any other key the map names."""
    fold = {**DEFAULT_KEYS, Button.FOLD: "KEY_F1"}
    identity = DeviceIdentity("panel", "046d", "c31c", "X9")
    spec = spec_for(KeypadSettings(None, identity, KeyMap(fold)))
    assert (spec.vendor, spec.product, spec.serial) == ("046d", "c31c", "X9")
    assert spec.keys == (*STANDARD_17_KEYS, "KEY_F1")
    by_node = spec_for(KeypadSettings("/dev/input/event7", None, KeyMap(DEFAULT_KEYS)))
    assert (by_node.node, by_node.links) == ("/dev/input/event7", ())
    by_link = spec_for(KeypadSettings("/dev/tablectl/keypad", None, KeyMap(DEFAULT_KEYS)))
    assert by_link.links == ("/dev/tablectl/keypad",)
    assert "DEVLINKS=" + by_link.by_id + " /dev/tablectl/keypad" in by_link.description()
