"""``tablectl sim --bot``: a technician watches a dealer bot play through the devices."""

from __future__ import annotations

import contextlib
import io
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from devtime import WAIT

from controller.cli.main import build_parser
from controller.history.script import parse_script
from controller.poker.engine import Table
from controller.poker.engine.events import HandSettled
from controller.poker.games import GAMES
from drivers.tablectl.link import LinkSettings
from drivers.tablectl.panel import PanelDriver
from drivers.tablectl.shoe import ShoeDriver
from simulator.acts import HandRecord, describe_record
from simulator.random_bot import RandomBot, RebuyRule
from simulator.scripted_bot import ScriptedBot

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "docs/scripts/mambo-split.hand"


class PipedUntil(io.StringIO):
    """Piped commands whose end (EOF) comes only once ``wanted`` has been printed on ``out``
    (a technician who closes the input when they have seen it), or after WAIT seconds."""

    def __init__(self, commands: str, out: io.StringIO, wanted: str) -> None:
        super().__init__(commands)
        self.out, self.wanted = out, wanted

    def readline(self, size: int | None = -1) -> str:
        line = super().readline(size)
        if line:
            return line
        deadline = time.monotonic() + WAIT
        while self.wanted not in self.out.getvalue() and time.monotonic() < deadline:
            time.sleep(0.01)  # a poll of what was printed, not a wait for the bot
        return ""


def run_sim(
    directory: Path, commands: str, *extra: str, end_after: str | None = None
) -> tuple[int, str, str]:
    """``tablectl sim`` in this process, piped: (status, stdout, stderr). With ``end_after``,
    the input ends only once that text has been printed."""
    args = build_parser().parse_args(["sim", "--dir", str(directory), *extra])
    out, err = io.StringIO(), io.StringIO()
    stdin = io.StringIO(commands) if end_after is None else PipedUntil(commands, out, end_after)
    with contextlib.redirect_stderr(err):
        status = args.run(args, stdin=stdin, stdout=out)
    return status, out.getvalue(), err.getvalue()


def bot_lines(stdout: str) -> list[str]:
    return [line.removeprefix("bot: ") for line in stdout.splitlines() if line.startswith("bot: ")]


def test_sim_help_lists_the_bot_options() -> None:
    """The options of the dealer bot are in ``tablectl sim --help``."""
    sim = build_parser()._subparsers._group_actions[0].choices["sim"]  # type: ignore[union-attr]  # argparse keeps its sub-parsers privately
    text = sim.format_help()
    for option in ("--bot", "--game", "--hands", "--seats", "--buy-in", "--config", "--pace"):
        assert option in text
    assert "--repeat-window" in text


@pytest.mark.parametrize("command", ["sim", "run"])
@pytest.mark.parametrize("given", ["0", "-1", "nan", "inf", "soon", "3600"])
def test_a_repeat_window_is_a_number_of_seconds_above_0_and_under_an_hour(
    command: str, given: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The bot's shuffles outlast ``--repeat-window`` (docs/simulator.md, Dealer bots), and the
    controller's is the same option: a window of none (or nan) would take a lingering card for a
    new read each time it is seen (docs/protocol.md, 7)."""
    with pytest.raises(SystemExit) as stopped:
        build_parser().parse_args([command, f"--repeat-window={given}"])
    assert stopped.value.code == 2
    said = (
        f"argument --repeat-window: '{given}': expected a number of seconds above 0 and under 3600"
    )
    assert capsys.readouterr().err.splitlines()[-1].endswith(said)
    assert build_parser().parse_args([command, "--repeat-window", "0.02"]).repeat_window == 0.02


def test_a_random_bot_plays_its_hands_then_the_piped_console_ends(tmp_path: Path) -> None:
    """Piped, the console waits for the bot's hands to be played out; each act and each hand's
    expected settlement is printed, as the same bot computes them on its own."""
    status, out, err = run_sim(
        tmp_path,
        "state\n",
        *("--seed", "4", "--bot", "random", "--game", "five-card-stud", "--hands", "3"),
        *("--seats", "4", "--buy-in", "30", "--pace", "fast"),
    )
    assert status == 0, out + err
    lines = bot_lines(out)
    assert lines[0] == "random Five-Card Stud, seats 1 2 3 4, seed 4, 3 hands"
    assert lines[-1] == "done after 3 hands"
    twin = RandomBot("five-card-stud", seats=4, seed=4, hands=3, rebuy=RebuyRule(buy_in=30))
    list(twin)
    expected = [describe_record(record) for record in twin.records]
    assert [line for line in lines if line.startswith("hand ")] == expected


def test_a_script_bot_plays_the_script_and_prints_its_settlement(tmp_path: Path) -> None:
    """``--bot script FILE`` deals the script's cards by name; the expected settlement printed
    is the one the script replays to (14.13A(j)1: the odd chip to the high hand)."""
    status, out, err = run_sim(tmp_path, "", "--bot", "script", str(SCRIPT), "--pace", "fast")
    assert status == 0, out + err
    script = parse_script(SCRIPT.read_text(), str(SCRIPT))
    table = Table(GAMES["mambo"], script.config)
    events = [e for line in script.lines for e in table.apply(line.input)]
    (settled,) = [e for e in events if isinstance(e, HandSettled)]
    record = HandRecord(1, "mambo", (), (), settled)
    lines = bot_lines(out)
    assert describe_record(record) in lines
    assert "deal Kh (by name)" in lines
    assert lines[-1] == "done after 1 hand"
    assert ScriptedBot(script).spec.key == "mambo"


@contextlib.contextmanager
def controller_on(directory: Path) -> Iterator[None]:
    """A host on the simulator's links in ``directory`` once they appear, as ``tablectl run``
    opens them: it welcomes both devices and acknowledges all they say."""
    done = threading.Event()

    def attach() -> None:
        while not (directory / "panel").exists():
            if done.wait(0.01):
                return
        events: queue.Queue[Any] = queue.Queue()
        with (
            ShoeDriver(LinkSettings(url=str(directory / "shoe")), events),
            PanelDriver(LinkSettings(url=str(directory / "panel")), events),
        ):
            done.wait()

    host = threading.Thread(target=attach)
    host.start()
    try:
        yield
    finally:
        done.set()
        host.join()


def bench_example(directory: Path) -> Path:
    """docs/examples/table.toml with its ports in ``directory`` (its deck files are in
    ``directory/decks``): a table.toml the simulator makes the ports and decks of
    (simulator/bench.py)."""
    text = (ROOT / "docs/examples/table.toml").read_text(encoding="utf-8")
    path = directory / "table.toml"
    path.write_text(text.replace('"/dev/tablectl/', f'"{directory}/'), encoding="utf-8")
    return path


def test_a_bot_from_the_tables_configuration(tmp_path: Path) -> None:
    """``--config table.toml`` plays the controller's own table: its game, seats and stakes,
    once that controller has welcomed the shoe and the panel."""
    example = bench_example(tmp_path)
    with controller_on(tmp_path):
        status, out, err = run_sim(
            tmp_path, "", "--bot", "random", "--config", str(example), "--hands", "1",
            "--pace", "fast",
        )  # fmt: skip
    assert status == 0, out + err
    lines = bot_lines(out)
    assert lines[0].startswith("random Mambo Stud, seats 1 2 3 4 5 6 7 8 9 10 11, seed 0")
    assert lines[-1] == "done after 1 hand"


@pytest.mark.timeout(WAIT)  # a bot that waited for a controller for ever would hang here
def test_a_bot_for_a_table_toml_waits_for_its_controller(tmp_path: Path) -> None:
    """The simulator comes first (it makes the ports and deck files the table.toml names),
    so a ``--config`` bot deals nothing until a controller has welcomed both devices, and
    says so; with none, it stops with the console."""
    example = bench_example(tmp_path)
    status, out, err = run_sim(tmp_path, "", "--bot", "random", "--config", str(example))
    assert status == 0, out + err
    assert bot_lines(out)[1:] == [
        "waiting for a controller to welcome the shoe and the panel (is it running?)",
        "stopped before dealing: no controller welcomed the devices",
    ]


def test_bad_bot_options_stop_before_the_devices_start(tmp_path: Path) -> None:
    """A bot that cannot be made is an error naming the option and what was expected (exit 2)."""
    cases = [
        (("--bot", "dance"), "--bot dance: expected 'random' or 'script FILE'"),
        (("--bot", "script"), "--bot script: expected 'script FILE'"),
        (("--bot", "script", str(tmp_path / "none.hand")), "--bot script"),
        (("--bot", "random", "--seats", "1"), "seats=1: Mambo Stud seats 2 to 11"),
    ]
    for options, message in cases:
        status, out, err = run_sim(tmp_path / "d", "", *options)
        assert status == 2, (options, out, err)
        assert message in err, (options, err)
        assert "shoe:" not in out


def test_a_bot_without_an_end_stops_with_the_console(tmp_path: Path) -> None:
    """A random bot with no --hands deals until the console ends, then stops at once."""
    status, out, err = run_sim(
        tmp_path, "", "--bot", "random", "--pace", "fast", end_after="bot: press new_hand\n"
    )
    assert status == 0, out + err
    lines = bot_lines(out)
    assert lines[0] == "random Mambo Stud, seats 1 2 3 4 5 6, seed 0, no end"
    assert "press new_hand" in lines
    assert lines[-1].startswith("stopped after ")


def test_ctrl_c_stops_a_bot_the_console_waits_for(tmp_path: Path) -> None:
    """At the end of piped input the console waits for a bot with --hands; when that bot waits
    too (for a controller, or on a full store), Ctrl-C stops it cleanly: no traceback, exit 0."""
    example = bench_example(tmp_path)
    options = ["--dir", str(tmp_path), "--bot", "random", "--config", str(example), "--hands", "2"]
    # Python keeps SIGINT ignored if it starts ignored (as in a shell's background job):
    # the child takes Ctrl-C as a terminal's user would give it.
    ctrl_c = (
        "import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
        f"sys.argv = ['tablectl', 'sim', *{options!r}]; "
        "runpy.run_module('controller', run_name='__main__')"
    )
    with subprocess.Popen(
        [sys.executable, "-c", ctrl_c],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    ) as sim:
        assert sim.stdout is not None
        for line in sim.stdout:  # the console read its (empty) input to the end: it waits
            if line.startswith("bot: the input is over: waiting for the bot's end"):
                break
        sim.send_signal(signal.SIGINT)
        out, err = sim.communicate(timeout=WAIT)
    assert sim.returncode == 0, out + err
    assert "Traceback" not in err
    assert out.splitlines()[-1] == "bot: stopped before dealing: no controller welcomed the devices"
