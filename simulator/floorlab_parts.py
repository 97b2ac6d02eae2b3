"""The parts of the floor's harness (simulator/floorlab.py) that are processes of tablectl's own:
``floor serve``, each table's ``forward``, and each simulated table (its simulator and dealer in
this process, its controller ``tablectl run`` in a process of its own).

Each part is a handle with ``start()``, ``stop()`` (SIGTERM, as systemd stops it) and ``kill()``
(SIGKILL, a crash), so a test can break any part at any moment and start it again on the same
files. Every process runs under a guardian (simulator/servers.py, ``Guarded``), as the throwaway
servers do: when the harness dies, even by SIGKILL, nothing it started is left running.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Final

from controller.poker.engine import TableSetup
from controller.poker.games.spec import GameSpec
from controller.poker.inputs import Button
from simulator.acts import Act, Press, table_input
from simulator.pace import Pace
from simulator.presses import Decided, last_press
from simulator.random_bot import RandomBot
from simulator.runner import BotRunner
from simulator.servers import Guarded, ServerError
from simulator.table import Simulator
from simulator.waits import RunnerError, RunnerStopped, journaled_up

TABLECTL: Final = (sys.executable, "-m", "controller")
#: The shoe's repeat window of a dealer at full speed (``tablectl run --repeat-window``): the
#: bot shuffles just past it (simulator.pace.Pace.fast).
REPEAT_WINDOW: Final = 0.02
#: A restarted controller replays its journal and welcomes both devices well within this.
READY_PATIENCE: Final = 60.0
_POLL: Final = 0.005
#: The dealer's press that starts a hand.
NEW_HAND: Final = Press(Button.NEW_HAND)


class PartError(RuntimeError):
    """A part of the harness that did not start, stop or deal as it must: says which and why."""


class Part:
    """One process of tablectl under its guardian: ``start()`` again after a stop or a kill
    runs the same command on the same files; its output goes to ``log`` (appended)."""

    def __init__(self, name: str, command: Sequence[str], log: Path) -> None:
        self.name = name
        self.command = list(command)
        self.log = log
        self.starts = 0
        self._process: Guarded | None = None
        self.exit_status: int | None = None

    def start(self) -> None:
        if self.running():
            raise PartError(f"{self.name} is running already")
        try:
            self._process = Guarded(
                self.name, self.command, log=self.log, stop_signal=signal.SIGTERM
            )
        except ServerError as error:
            raise PartError(str(error)) from None
        self.exit_status = None
        self.starts += 1

    def running(self) -> bool:
        return self._process is not None and self._process.running()

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    def stop(self) -> int | None:
        """SIGTERM, and wait until it exited; its exit status (None: it was not started)."""
        if self._process is not None:
            self.exit_status = self._process.stop()
        return self.exit_status

    def kill(self) -> int | None:
        """SIGKILL its process group, and wait; its exit status."""
        if self._process is not None:
            self.exit_status = self._process.kill()
        return self.exit_status

    def state(self) -> str:
        """A few words for an error message: running, or how it ended."""
        if self._process is None:
            return "not started"
        if self.running():
            return f"running (pid {self.pid})"
        return f"exited ({self.exit_status if self.exit_status is not None else 'by itself'})"


class SimulatedTable:
    """One table: the simulator's shoe and panel on real ptys and the random dealer bot at full
    speed, in this process (a thread); ``controller`` is ``tablectl run`` on them, a process.

    The dealer acts only once the device that reports its previous act holds nothing
    unacknowledged, which the controller does only after journaling it (tests/app/crashrun.py,
    where this comes from): so the controller may be stopped or killed at any moment and
    restarted, and the inputs still reach it in the dealer's order. A new hand's press waits
    until the controller process is up (it has replayed and welcomed both devices: a restarted
    controller refuses a new hand before it has heard the shoe, docs/app.md), and a kill waits
    until a new hand's press in flight is journaled (``new_hand``); any other press refused
    as the table was paused (a restarted controller's, before both hellos) is pressed again
    once the journal says both devices are up."""

    def __init__(
        self,
        table_id: str,
        directory: Path,
        *,
        sim: Simulator,
        config_path: Path,
        bot: RandomBot,
        pace: Pace,
    ) -> None:
        self.table_id = table_id
        self.directory = directory
        self.sim = sim
        self.bot = bot
        as_root = ["--as-root"] if os.geteuid() == 0 else []
        run = ["run", "--config", str(config_path), "--repeat-window", str(REPEAT_WINDOW)]
        self.controller_part = Part(
            f"tablectl run ({table_id})", [*TABLECTL, *run, *as_root], directory / "run.out"
        )
        self.new_hand = threading.Lock()
        self._up_at = 2
        self._stop = threading.Event()
        self.done = threading.Event()
        self.error: str | None = None
        self.runner = BotRunner(bot, sim, pace, on_act=self._acked, before_act=self._before)
        self._thread = threading.Thread(target=self._deal, name=f"floorlab-{table_id}")

    @staticmethod
    def make_bot(spec: GameSpec, config: TableSetup, seed: int, hands: int) -> RandomBot:
        # table.toml leaves [decks] alternate at its default, true: the dealer alternates too.
        return RandomBot(
            spec, seed=seed, hands=hands, rebuy=None, config=config, alternate_decks=True
        )

    # --- the controller: a part a test may stop, kill and start -----------------------------

    def start(self) -> None:
        """Start the controller (again: it replays its journal and resumes the hand)."""
        self._up_at = self._welcomes() + 2
        self.controller_part.start()

    def stop(self) -> int | None:
        """SIGTERM the controller once it is up (one just started may not have its handler
        yet, and SIGTERM would kill it as SIGKILL does); its exit status."""
        if not self.controller_part.running():
            return self.controller_part.exit_status
        try:
            self.wait_up()
        except PartError:
            return self.kill()  # never up: nothing of its journal is in flight but a torn line
        return self.controller_part.stop()

    def kill(self) -> int | None:
        """SIGKILL the controller, never while a new hand's press is in flight."""
        with self.new_hand:
            return self.controller_part.kill()

    def running(self) -> bool:
        return self.controller_part.running()

    def _welcomes(self) -> int:
        with self.sim.locked():
            return sum(device.core.link.welcomes for device in self.sim.devices.values())

    def up(self) -> bool:
        """The current controller process has welcomed both devices: it has replayed, is up."""
        return self.controller_part.running() and self._welcomes() >= self._up_at

    def wait_up(self, patience: float = READY_PATIENCE) -> None:
        deadline = time.monotonic() + patience
        while not self.up():
            if not self.controller_part.running():
                raise PartError(
                    f"table {self.table_id}: the controller {self.controller_part.state()} "
                    f"before welcoming the devices (its output: {self.controller_part.log})"
                )
            if time.monotonic() > deadline:
                raise PartError(
                    f"table {self.table_id}: the controller did not welcome the shoe and the "
                    f"panel within {patience:.0f} s (its output: {self.controller_part.log})"
                )
            time.sleep(0.01)

    # --- the dealer ---------------------------------------------------------------------------

    def deal(self) -> None:
        """Start dealing (the bot's hands), on a thread of its own."""
        self._thread.start()

    def end_dealing(self) -> None:
        """Stop the dealer after the act in progress, and wait for it."""
        self._stop.set()
        self.runner.stop()
        if self._thread.is_alive():
            self._thread.join()

    @property
    def hands_dealt(self) -> int:
        return len(self.bot.records)

    def _deal(self) -> None:
        try:
            self.runner.run()
        except RunnerStopped:  # end_dealing came while the dealer waited on the controller
            pass
        except (RunnerError, OSError) as error:
            self.error = f"table {self.table_id}: the dealer stopped: {error}"
        finally:
            self.done.set()

    def _before(self, act: Act) -> None:
        if act == NEW_HAND:
            self.new_hand.acquire()
            # Up on the wire and in the journal (simulator/waits.py, journaled_up).
            while not (self.up() and journaled_up(self.directory / "journal")):
                if self._stop.wait(0.01):
                    self.new_hand.release()
                    raise RunnerStopped()

    def _acked(self, act: Act) -> None:
        try:
            if isinstance(act, Press):
                self._wait_acked("panel")
                self._press_again_if_paused(act)
            elif table_input(act) is not None:
                self._wait_acked("shoe")
        finally:
            if act == NEW_HAND:
                self.new_hand.release()

    def _press_again_if_paused(self, act: Press) -> None:
        """A press the controller took while it was stopped, killed or just started reaches
        it before it has journaled both devices' hellos maybe: the table is paused then, and
        the press refused (docs/app.md, Devices lost and found). As a dealer does, it is
        pressed again once the journal says both devices are up (simulator/waits.py,
        journaled_up), read from its decision record (simulator/presses.py)."""
        journal = self.directory / "journal"
        while True:
            while (decided := last_press(journal)) is None:
                if self._stop.wait(_POLL):
                    raise RunnerStopped()
            if decided is not Decided.PAUSED:
                return
            while not (self.up() and journaled_up(journal)):
                if self._stop.wait(_POLL):
                    raise RunnerStopped()
            self.sim.press(act.button)
            self._wait_acked("panel")

    def _wait_acked(self, device: str) -> None:
        """Until the device holds nothing unacknowledged (the controller journaled it), for as
        long as it takes: a stopped controller is waited for until it is started again."""
        while True:
            with self.sim.locked():
                left = self.sim.devices[device].core.sender.backlog
            if not left:
                return
            if self._stop.wait(_POLL):
                raise RunnerStopped()


def pace_at_full_speed(stall: float = 24 * 3600.0) -> Pace:
    """As fast as the devices take it; a jam (none is made here) waited for as a dealer would."""
    return replace(Pace.fast(REPEAT_WINDOW), stall=stall)
