"""The README's bench with short stacks, until seats go broke: ``tablectl sim --bot random
--config table.toml`` and ``tablectl run --config table.toml``, each its own process, the
controller on the simulator's ptys (docs/simulator.md, When seats go broke).

A seat with no chips is not dealt in (rules-interpretation.md, Blinds and the button): the bot's
table and the controller's leave it out of the same hands. Without ``--buy-in`` the bot deals on
to the seats with chips and stops with one line once fewer than two have any; with it, the bot
buys a broke seat back through the controller's control socket, which journals the rebuy.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from devtime import WAIT

from controller.journal import verify
from simulator.acts import Rebuy
from simulator.botcli import controller_rebuys, make_bot
from simulator.waits import RunnerError

ROOT = Path(__file__).resolve().parents[2]
TABLECTL = [sys.executable, "-m", "controller"]
#: CI and this machine run the tests as root; the service never runs so (docs/deploy.md).
AS_ROOT = ["--as-root"] if os.geteuid() == 0 else []
#: The controller's RFID repeat window and the bot's (``--repeat-window`` of both): a bot at
#: ``--pace fast`` shuffles just past it, 0.61 s a hand at the default 0.5 s, as floorlab's
#: dealer does at this (simulator/floorlab_parts.py REPEAT_WINDOW).
REPEAT_WINDOW = "0.02"
#: The longest a bench of a few dozen hands at ``--pace fast`` may take on a loaded machine.
BENCH_WAIT = 10 * WAIT
#: The line of a bot whose table and the controller's disagree on what comes next.
OUT_OF_STEP = "the bot's table waits for"


def short_stacks_toml(folder: Path, game: str, forced: str = "") -> Path:
    """docs/simulator.md's bench table.toml in ``folder``, four seats with short stacks;
    ``forced`` the [stakes] lines before the bets (the game's forced bets by default)."""
    if forced:
        position = "dealer = 0"
    elif game == "triple-draw":
        forced, position = "small_blind = 2\nbig_blind = 5", "button = 1"
    else:
        forced, position = "ante = 1\nbring_in = 2", "dealer = 0"
    path = folder / "table.toml"
    path.write_text(
        f"""[table]
id = "BENCH-BROKE"
game = "{game}"
seats = [1, 2, 3, 4]
{position}

[stakes]
{forced}
small_bet = 5
big_bet = 10

[stacks]
1 = 30
2 = 20
3 = 25
4 = 15

[devices.shoe]
path = "{folder}/shoe"

[devices.panel]
path = "{folder}/panel"

[decks]
a = "{folder}/deck-A.txt"
b = "{folder}/deck-B.txt"

[journal]
dir = "{folder}/journal"
fsync = false

[log]
format = "json"
file = "{folder}/tablectl.log"

[control]
socket = "{folder}/table.sock"
""",
        encoding="utf-8",
    )
    return path


@dataclass
class BenchRun:
    """What a bench printed and logged: the simulator's ``bot: ...`` lines, the controller's
    log."""

    said: list[str] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)

    def events(self, event: str) -> list[dict[str, Any]]:
        return [line for line in self.log if line.get("event") == event]

    def bot_hands(self) -> list[str]:
        """The settlement the bot expected of each hand (``hand N: net ...; pots ...``)."""
        return [line for line in self.said if line.startswith("bot: hand ")]

    def controller_hands(self) -> list[str]:
        """Each hand the controller settled, in the bot's words."""
        lines = []
        for settled in self.events("hand_settled"):
            net = sorted((n["seat"], n["amount"]) for n in settled["net"])
            nets = " ".join(f"{seat}:{amount:+d}" for seat, amount in net)
            pots = " ".join(f"{p['name']} {p['amount']}" for p in settled["pots"])
            lines.append(
                f"bot: hand {settled['hand']}: net {nets}; pots {pots}; rake {settled['rake']}"
            )
        return lines


@contextmanager
def _reading(stream: Any, lines: queue.Queue[str | None]) -> Iterator[None]:
    """Each line of ``stream`` on ``lines`` (None at its end), read on a thread of its own."""

    def read() -> None:
        for line in stream:
            lines.put(line.rstrip("\n"))
        lines.put(None)

    reader = threading.Thread(target=read, name="test-sim-stdout")
    reader.start()
    try:
        yield
    finally:
        reader.join()


def start_controller(
    config: Path, errors: Path, env: dict[str, str] | None = None, *options: str
) -> subprocess.Popen[bytes]:
    """``tablectl run --config`` in a process of its own (in ``env``), with ``options``, what
    it says outside its log written to ``errors``."""
    with errors.open("wb") as stderr:
        return subprocess.Popen(
            [*TABLECTL, "run", "--config", str(config), *AS_ROOT, *options],
            cwd=ROOT,
            stdout=stderr,
            stderr=stderr,
            env=env,
        )


def stop_controller(controller: subprocess.Popen[bytes]) -> int:
    """Stop the controller with SIGTERM; its exit status (killed if not stopped in time)."""
    controller.send_signal(signal.SIGTERM)
    try:
        return controller.wait(timeout=WAIT)
    finally:
        if controller.poll() is None:
            controller.kill()
            controller.wait()


def bench(folder: Path, game: str, *options: str) -> BenchRun:
    """The simulator and its bot first (it makes the ports and decks, then waits), then the
    controller; until the bot's last line, or a line saying it is out of step with the
    controller; then the simulator's end, and the controller stopped by SIGTERM."""
    config = short_stacks_toml(folder, game)
    errors = folder / "run.err"  # what tablectl run says outside its log
    run = BenchRun()
    lines: queue.Queue[str | None] = queue.Queue()
    window = ("--repeat-window", REPEAT_WINDOW)  # the same for both (docs/simulator.md)
    sim_options = ["--seed", "7", "--bot", "random", "--config", str(config), "--pace", "fast"]
    sim_options += window
    with (
        subprocess.Popen(
            [*TABLECTL, "sim", *sim_options, *options],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        ) as sim,
        _reading(sim.stdout, lines),
    ):
        controller: subprocess.Popen[bytes] | None = None
        try:
            deadline = time.monotonic() + BENCH_WAIT
            while time.monotonic() < deadline:
                try:
                    line = lines.get(timeout=max(deadline - time.monotonic(), 0.01))
                except queue.Empty:
                    break
                if line is None:
                    break
                run.said.append(line)
                if line.startswith("bot: waiting for a controller") and controller is None:
                    controller = start_controller(config, errors, None, *window)
                if line.startswith(("bot: stopped", "bot: done")) or OUT_OF_STEP in line:
                    break
        finally:
            ended = run.said and run.said[-1].startswith(("bot: stopped", "bot: done"))
            if sim.poll() is None and not ended:
                sim.terminate()  # out of step, or too slow: its console would wait for ever
            assert sim.wait(timeout=WAIT) in (0, 128 + signal.SIGTERM)
            if controller is not None:
                status = stop_controller(controller)
                assert status == 0, errors.read_text(encoding="utf-8", errors="replace")
    log = folder / "tablectl.log"
    run.log = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert verify(folder / "journal").intact
    return run


def test_broke_seats_sit_out_and_the_bot_stops_when_one_seat_has_chips(tmp_path: Path) -> None:
    """Mambo, no ``--buy-in``: seats go broke one after another; the bot deals on to the seats
    with chips, hand by hand as the controller does, and stops with one line naming the stacks
    once fewer than two seats have chips."""
    run = bench(tmp_path, "mambo", "--hands", "40")
    assert not [line for line in run.said if OUT_OF_STEP in line], run.said[-5:]
    assert run.bot_hands(), run.said
    assert run.controller_hands() == run.bot_hands()
    dealt_in = [started["seats"] for started in run.events("hand_started")]
    assert len(dealt_in) == len(run.bot_hands())
    assert any(len(seats) < 4 for seats in dealt_in), "a broke seat sat out a hand"
    assert not run.events("seats_changed")  # the bench sold no chips
    last = run.said[-1]
    assert last.startswith(f"bot: stopped after {len(dealt_in)} hands: fewer than two seats "), last
    (stacks,) = (settled["stacks"] for settled in run.events("hand_settled")[-1:])
    (holder,) = [s["seat"] for s in stacks if s["amount"]]
    assert f"(seat {holder}: " in last
    assert last.endswith(
        ": none), so no hand can start; --buy-in N has the bot buy a seat that runs out back "
        "up to N chips"
    )


def test_a_bench_with_buy_in_rebuys_a_broke_seat_through_the_controller(tmp_path: Path) -> None:
    """Triple draw (the button passes a broke seat), ``--buy-in 40``: a seat that runs out is
    bought back before the next hand through the controller's control socket; the controller
    journals and logs the rebuy, and every hand settles on both tables alike."""
    run = bench(tmp_path, "triple-draw", "--hands", "5", "--buy-in", "40")
    assert not [line for line in run.said if OUT_OF_STEP in line], run.said[-5:]
    assert run.said[-1] == "bot: done after 5 hands", run.said[-5:]
    assert run.controller_hands() == run.bot_hands()
    bought = [line.removeprefix("bot: ") for line in run.said if line.endswith(" buys 40 chips")]
    assert bought, "a seat went broke and bought in again"
    changes = run.events("seats_changed")
    assert [f"seat {c['seat']} buys {c['chips']} chips" for c in changes] == bought


@pytest.mark.fast
def test_a_buy_in_the_controller_cannot_sell_is_refused_before_the_devices_start(
    tmp_path: Path,
) -> None:
    """``--buy-in`` with ``--config``: a number of chips the controller would refuse (not
    positive, not whole smallest chips) is one line naming the option; a rebuy the bot
    cannot tell the controller of (no controller on the control socket) stops the bot,
    naming the socket, rather than deal a seat the controller leaves out."""
    config = short_stacks_toml(tmp_path, "mambo", forced="chip = 5\nante = 5\nbring_in = 5")
    options = {"bot": ["random"], "seed": 1, "hands": 3, "game": None, "config": config}
    with pytest.raises(ValueError, match=r"^--buy-in 0: expected a positive number of chips$"):
        make_bot(argparse.Namespace(buy_in=0, **options))
    with pytest.raises(ValueError, match=r"^--buy-in 42: expected a multiple of the table.toml's"):
        make_bot(argparse.Namespace(buy_in=42, **options))
    assert controller_rebuys(argparse.Namespace(buy_in=None, **options)) is None
    rebuy = controller_rebuys(argparse.Namespace(buy_in=40, **options))
    assert rebuy is not None
    socket = tmp_path / "table.sock"
    told = f"seat 2 buys 40 chips: the controller was not told: control socket {socket}: "
    with pytest.raises(RunnerError, match=f"^{re.escape(told)}no controller is running there"):
        rebuy(Rebuy(2, 40))
