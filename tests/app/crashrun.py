"""The crash test's parts: ``tablectl run`` in a process killed with SIGKILL at random moments,
the simulator on real ptys, and a dealer who keeps the engine's expected state itself.

The controller is a process of its own, so the devices cannot share a test's ManualClock
with it: the simulator runs on the wall clock, and nothing here waits a time that decides
the outcome. The kills fall after a seeded random number of the dealer's acts (plus a few
milliseconds, so that a kill lands anywhere in the handling of the act: on the wire, being
journaled, being acknowledged), not after a number of wall-clock seconds: how many kills a
run has depends on its seed, not on the machine's speed.

The dealer (``AckedDealer``: the simulator's ``RandomBot`` performed by
``BotRunner``) plays a seeded random game through the simulated devices, keeping
its own engine table and a record of every hand's settlement. It acts only once
the device's previous sentence is acknowledged, which the controller does only
after journaling it: so the inputs reach the controller in the order the dealer
made them, whatever the kills. Its engine is therefore the uninterrupted run of
the same seed, and the controller's journal, replayed, must end with the same
results.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from controller.journal import JournalReader, verify
from controller.poker.engine import Table, TableSetup
from controller.poker.engine.events import (
    HandSettled,
    HandVoided,
)
from controller.poker.games import GAMES
from controller.poker.games.spec import GameSpec
from controller.poker.inputs import Button
from controller.table.core import TableCore
from simulator.acts import Act, Press, table_input
from simulator.pace import Pace
from simulator.presses import Decided, last_press
from simulator.random_bot import RandomBot
from simulator.runner import BotRunner
from simulator.simtable import demo_config
from simulator.table import Simulator
from simulator.tablefile import write_table_toml
from simulator.waits import journaled_up

ROOT = Path(__file__).resolve().parents[2]
AS_ROOT = ["--as-root"] if os.geteuid() == 0 else []
REPEAT_WINDOW = 0.02

#: The most a kill comes after the act that was due: a random moment in the act's handling.
KILL_JITTER = 0.005

#: How long a new process may take to replay its journal and welcome both devices.
READY_PATIENCE = 60.0
#: How long the controller may take to exit after SIGTERM: the systemd unit's TimeoutStopSec
#: (docs/examples/tablectl.service) is 10 s; this is a loaded machine's allowance above it.
STOP_PATIENCE = 30.0


def write_config(
    tmp_path: Path, sim: Simulator, game: str, seats: int, hands_per_file: int | None = None
) -> Path:
    return write_table_toml(
        tmp_path,
        table_id="CRASH-1",
        game=game,
        config=demo_config(GAMES[game], seats),
        shoe={"path": sim.address("shoe"), "heartbeat_timeout": 3.0},
        panel={"path": sim.address("panel")},
        decks=sim.write_deck_files(tmp_path / "decks"),
        log={"format": "json", "level": "warning", "file": tmp_path / "tablectl.log"},
        journal=None if hands_per_file is None else {"hands_per_file": hands_per_file},
    )


#: The dealer's press that starts a hand.
NEW_HAND = Press(Button.NEW_HAND)


@dataclass
class AckedDealer:
    """The simulator's random bot, each act waited on until the device that reports it holds
    nothing unacknowledged; its ``records`` hold the settlement each hand must have."""

    sim: Simulator
    spec: GameSpec
    config: TableSetup
    seed: int
    timeout: float = 60.0
    #: Held from a new hand's press until the controller has journaled it; the killer takes
    #: it to kill. A restarted controller refuses a new hand until it has heard the shoe
    #: (docs/app.md, Devices lost and found), which a dealer meets by pressing again and
    #: this bot would not: so the press waits for the process to be up and is never killed
    #: in flight (tests/app/test_app_table.py checks that refusal and its replay).
    new_hand: threading.Lock = field(default_factory=threading.Lock)
    #: Whether the current controller process has welcomed both devices (``Killer._up``).
    up: Callable[[], bool] = lambda: True
    #: The controller's journal: a new hand is pressed once it says both devices are up, and
    #: a press it refused as the table was paused is pressed again then.
    journal: Path | None = None
    #: How many presses were pressed again so.
    pressed_again: int = 0

    def __post_init__(self) -> None:
        # The table.toml leaves [decks] alternate at its default, true: the dealer alternates too.
        self.bot = RandomBot(
            self.spec, seed=self.seed, rebuy=None, config=self.config, alternate_decks=True
        )
        pace = replace(Pace.fast(REPEAT_WINDOW), stall=self.timeout)
        self.runner = BotRunner(
            self.bot, self.sim, pace, on_act=self._acked, before_act=self._before
        )

    @property
    def table(self) -> Table:
        return self.bot.table

    @property
    def results(self) -> list[HandSettled | HandVoided]:
        return [record.settlement for record in self.bot.records]

    @property
    def inputs(self) -> int:
        return sum(len(record.inputs) for record in self.bot.records)

    def play(self, hands: int) -> None:
        self.bot.hands = hands
        self.runner.run()

    def _before(self, act: Act) -> None:
        if act == NEW_HAND:
            self.new_hand.acquire()
            deadline = time.monotonic() + self.timeout
            while not (self.up() and (self.journal is None or journaled_up(self.journal))):
                if time.monotonic() > deadline:
                    raise TimeoutError(f"no controller up for {self.timeout} s")
                time.sleep(0.001)

    def _acked(self, act: Act) -> None:
        if isinstance(act, Press):
            self.wait_acked("panel")
            self.press_again_if_paused(act)
        elif table_input(act) is not None:
            self.wait_acked("shoe")
        if act == NEW_HAND:
            self.new_hand.release()

    def press_again_if_paused(self, act: Press) -> None:
        """A press killed in flight reaches the restarted controller as the panel resends it,
        maybe before that controller has journaled the shoe's hello: the table is paused then,
        and every press is refused (docs/app.md, Devices lost and found). As a dealer does, the
        bot presses it again once the pause has ended: once the journal says both devices are
        up (simulator/waits.py, journaled_up), read from the press's decision record
        (simulator/presses.py), never after a time."""
        if self.journal is None:
            return
        deadline = time.monotonic() + self.timeout
        while True:
            while (decided := last_press(self.journal)) is None:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{act.button.value}: no decision journaled")
                time.sleep(0.001)
            if decided is not Decided.PAUSED:
                return
            while not (self.up() and journaled_up(self.journal)):
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{act.button.value}: the table stayed paused")
                time.sleep(0.001)
            self.sim.press(act.button)
            self.pressed_again += 1
            self.wait_acked("panel")

    def wait_acked(self, device: str) -> None:
        """Until the device holds nothing unacknowledged: the controller has journaled it."""
        deadline = time.monotonic() + self.timeout
        while True:
            with self.sim.locked():
                left = self.sim.devices[device].core.sender.backlog
            if not left:
                return
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"{device}: {left} sentences unacknowledged for {self.timeout} s"
                )
            time.sleep(0.001)


@dataclass
class Killer:
    """Runs ``tablectl run`` and kills it with SIGKILL at random moments, restarting it: after
    a random number of the dealer's acts (``progress``, 1 to ``2 * mean_acts - 1``), a few
    milliseconds on."""

    config: Path
    seed: int
    mean_acts: int
    sim: Simulator
    progress: Callable[[], int]
    new_hand: threading.Lock
    process: subprocess.Popen[bytes] | None = None
    kills: int = 0
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    #: Each device's welcomes before the current process: it is up once it has welcomed each
    #: device anew (one device welcomed twice, a reconnect, does not say the other is up).
    _welcomed_before: dict[str, int] = field(default_factory=dict)
    #: ``tablectl run --repeat-window``.
    repeat_window: float = REPEAT_WINDOW

    def start(self) -> None:
        self.process = self._spawn()
        self._thread = threading.Thread(target=self._kill_loop, name="crash-killer")
        self._thread.start()

    def _spawn(self) -> subprocess.Popen[bytes]:
        # -X faulthandler: a process that does not end on SIGTERM is sent SIGABRT (``stop``),
        # and its threads' stacks land in controller.err beside the table's log.
        command = [sys.executable, "-X", "faulthandler", "-m", "controller", "run"]
        command += ["--config", str(self.config), "--repeat-window", str(self.repeat_window)]
        with open(self.config.parent / "controller.err", "ab") as errors:
            return subprocess.Popen(
                [*command, *AS_ROOT],
                cwd=ROOT,
                env={**os.environ, "PYTHONPATH": str(ROOT)},
                stdout=subprocess.DEVNULL,
                stderr=errors,
            )

    def _welcomes(self) -> dict[str, int]:
        with self.sim.locked():
            return {name: device.core.link.welcomes for name, device in self.sim.devices.items()}

    def _up(self) -> bool:
        """Both devices were welcomed by the current process: it has replayed and is up."""
        welcomes = self._welcomes()
        return all(count > self._welcomed_before.get(name, 0) for name, count in welcomes.items())

    def _wait_ready(self) -> None:
        """Until the current process is up, or ``stop``."""
        while not self._up() and not self._stop.wait(0.01):
            pass

    def _kill_loop(self) -> None:
        rng = random.Random(f"crash-killer-{self.seed}")
        self._wait_ready()
        while True:
            due = self.progress() + rng.randint(1, 2 * self.mean_acts - 1)
            while self.progress() < due:
                if self._stop.wait(0.001):
                    return
            if self._stop.wait(rng.uniform(0.0, KILL_JITTER)):
                return
            assert self.process is not None
            with self.new_hand:  # never a new hand's press in flight (AckedDealer.new_hand)
                self.process.send_signal(signal.SIGKILL)
                self.process.wait()
                # Before the lock is let go: a dealer waiting to press new hand must find the
                # killed process not up. Set after it, the dealer could take the lock, find the
                # dead process's welcomes enough and press new hand into no controller; a next
                # one that heard the panel before the shoe would refuse it, as a paused table
                # does (docs/app.md, Devices lost and found), while the dealer's engine dealt it.
                self._welcomed_before = self._welcomes()
                self.kills += 1
            self.process = self._spawn()
            self._wait_ready()

    def _note_signal_state(self) -> None:
        assert self.process is not None
        fields = ("Name", "State", "SigPnd", "ShdPnd", "SigBlk", "SigIgn", "SigCgt")
        with open(self.config.parent / "controller.err", "a", encoding="utf-8") as errors:
            for task in sorted(Path(f"/proc/{self.process.pid}/task").glob("*")):
                status = (task / "status").read_text(encoding="utf-8").splitlines()
                chosen = [line for line in status if line.split(":")[0] in fields]
                print(f"task {task.name}: " + "; ".join(chosen), file=errors)

    def stop(self) -> int:
        """Stop killing; end the controller with SIGTERM once it is up (a process just
        started may not have set its handler yet: SIGTERM would kill it); its exit status."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        deadline = time.monotonic() + READY_PATIENCE
        while not self._up() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=STOP_PATIENCE)
        except subprocess.TimeoutExpired:
            # Not left running into the next test (a Popen still running warns when collected);
            # SIGABRT first, for the stacks of what held the stop (controller.err), after the
            # signal masks and pending signals of each of its threads.
            self._note_signal_state()
            self.process.send_signal(signal.SIGABRT)
            try:
                self.process.wait(timeout=STOP_PATIENCE)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            raise


@dataclass
class CrashResult:
    hands: int
    inputs: int
    kills: int
    seconds: float
    records: int
    #: Presses a restarted controller refused as the table was paused, pressed again.
    pressed_again: int = 0


def crash_run(
    tmp_path: Path,
    game: str,
    *,
    hands: int,
    seed: int,
    mean_acts: int,
    seats: int = 4,
    hands_per_file: int | None = None,
) -> CrashResult:
    """Play ``hands`` hands while the controller is killed at random, about every
    ``mean_acts`` acts of the dealer; check the journal and the results against the dealer's
    own (uninterrupted) engine. ``hands_per_file`` (``[journal]``; the default's 100 when
    None) small makes the kills land in rotations and cut the keeper's compression passes."""
    started = time.monotonic()
    with Simulator(transport="pty", directory=tmp_path / "sim", seed=seed) as sim:
        config_path = write_config(tmp_path, sim, game, seats, hands_per_file)
        spec = GAMES[game]
        config = demo_config(spec, seats)
        dealer = AckedDealer(sim, spec, config, seed, journal=tmp_path / "journal")
        killer = Killer(
            config_path, seed, mean_acts, sim, lambda: dealer.runner.performed, dealer.new_hand
        )
        dealer.up = killer._up
        killer.start()
        try:
            dealer.play(hands)
        finally:
            status = killer.stop()
    assert status == 0
    return replayed_as_dealt(tmp_path, dealer, killer, hands=hands, started=started)


def replayed_as_dealt(
    tmp_path: Path, dealer: AckedDealer, killer: Killer, *, hands: int, started: float
) -> CrashResult:
    """The run's journal intact, and replayed it settles every hand and stack as the dealer's
    own uninterrupted engine did; what the run did."""
    report = verify(tmp_path / "journal")
    assert report.intact, report.summary()
    replayed = TableCore(dealer.spec, dealer.config, keep_results=hands)
    for record in JournalReader(tmp_path / "journal"):
        replayed.replay(record)
    assert list(replayed.results) == dealer.results, first_difference(
        list(replayed.results), dealer.results, tmp_path
    )
    assert replayed.table.stacks == dealer.table.stacks
    assert len(dealer.results) == hands
    return CrashResult(
        hands,
        dealer.inputs,
        killer.kills,
        time.monotonic() - started,
        report.records,
        dealer.pressed_again,
    )


def first_difference(
    replayed: list[HandSettled | HandVoided], expected: list[HandSettled | HandVoided], where: Path
) -> str:
    """Which hand the journal's replay settles otherwise than the dealer's engine, and both
    settlements, so a failed run says where to look in its journal (kept under ``where``)."""
    for index, (got, want) in enumerate(zip(replayed, expected, strict=False)):
        if got != want:
            return (
                f"hand {index + 1}: journal replays {got!r}, the dealer's engine {want!r} ({where})"
            )
    return f"journal replays {len(replayed)} hands, the dealer's engine {len(expected)} ({where})"
