"""Helpers of the application tests: a simulated table dealt by the fast random bot."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from controller.config.settings import JournalSettings, LogFormat, LogSettings
from controller.journal import JournalReader
from controller.journal import tablerecords as rec
from controller.logs.logsetup import configure_logging, reset_logging
from controller.poker.engine import Stakes, TableSetup
from controller.table.loop import Controller
from drivers.seam.events import DeviceUp, HelloOutcome, LostRange
from simulator.clock import ManualClock
from simulator.lockstep import LockstepDealer
from simulator.pace import Pace
from simulator.simtable import SimTable
from simulator.table import Simulator
from simulator.tablefile import write_table_toml

#: How long a test waits for what the controller does within milliseconds (a card taken, a
#: pause, a line on the panel): a wall-clock allowance that costs nothing when the event comes, and
#: that a loaded machine does not run out of.
PATIENCE = 30.0

#: How long a dealer's shuffle and cut take on the devices' clock: past any repeat window.
SHUFFLE_SECONDS = 1.0

#: CI and this machine run the tests as root; the service never runs so (docs/deploy.md).
AS_ROOT = ["--as-root"] if os.geteuid() == 0 else []

#: The small Mambo table the run tests deal at (14.13A).
THREE_SEATS = TableSetup(
    seats=(1, 2, 3), stakes=Stakes(small_bet=5, big_bet=10, ante=1, bring_in=2)
)


def table_toml(tmp_path: Path, sim: Simulator, *, log_file: bool = True) -> Path:
    """The table.toml of a three-seat Mambo table on the simulator's ports, logging JSON to
    ``tablectl.log`` (or, without ``log_file``, to standard error)."""
    return write_table_toml(
        tmp_path,
        table_id="TEST-7",
        game="mambo",
        config=THREE_SEATS,
        shoe={"path": sim.address("shoe"), "serial": "SHOE0001"},
        panel={"path": sim.address("panel")},
        decks=sim.write_deck_files(tmp_path / "decks"),
        log={"format": "json", "file": tmp_path / "tablectl.log"} if log_file else None,
    )


@contextmanager
def sim_table(
    tmp_path: Path,
    game: str = "mambo",
    seed: int = 1,
    *,
    fsync: bool = False,
    hands_per_file: int | None = None,
    **kwargs: Any,
) -> Iterator[SimTable]:
    """A running SimTable, its journal in tmp_path (fsync off: not a power-cut test; a file
    per ``hands_per_file`` hands if given), its devices and drivers on a ManualClock."""
    options = JournalSettings(tmp_path / "journal", fsync=fsync)
    if hands_per_file is not None:
        options = replace(options, hands_per_file=hands_per_file)
    # The devices' time is the test's: it passes only as the test or the bot's pace lets it.
    # So the shoe's repeat window is the production default's (SimTable.repeat_window): the
    # bot's shuffles outlast it on the devices' clock at no cost on the wall clock.
    kwargs.setdefault("clock", ManualClock())
    with SimTable(game, options, seed=seed, directory=tmp_path, **kwargs) as table:
        yield table


def dealer(table: SimTable, hands: int | None, seed: int = 1, **kwargs: Any) -> LockstepDealer:
    """The random bot dealing ``hands`` hands to the table's controller, in lockstep, as fast
    as the table's repeat window allows; it waits ``PATIENCE`` for each input to be taken."""
    kwargs.setdefault("pace", Pace.fast(table.repeat_window))
    kwargs.setdefault("timeout", PATIENCE)
    return LockstepDealer.for_table(
        table.sim, table.controller, table.spec, table.config, seed=seed, hands=hands, **kwargs
    )


def journal_records(directory: Path) -> list[tuple[str, dict[str, Any]]]:
    """Every record of the journal as (kind, data)."""
    return [(r.kind, dict(r.data)) for r in JournalReader(directory)]


def sequenced(directory: Path, device: str) -> list[tuple[str, int]]:
    """(boot, seq) of every record of ``device``'s sentences, in journal order."""
    return [
        (str(data["boot"]), int(data["seq"]))
        for kind, data in journal_records(directory)
        if kind in rec.SEQUENCED and data["device"] == device
    ]


@contextmanager
def json_log(tmp_path: Path, table_id: str = "LOG-1") -> Iterator[list[dict[str, Any]]]:
    """Log JSON lines to ``tmp_path / "tablectl.log"`` for the block, as ``tablectl run`` logs;
    the list yielded holds the lines once the block has ended (the log reset, its file closed)."""
    log = tmp_path / "tablectl.log"
    configure_logging(LogSettings(format=LogFormat.JSON, file=log), table_id=table_id)
    lines: list[dict[str, Any]] = []
    try:
        yield lines
    finally:
        reset_logging()
    lines.extend(json.loads(line) for line in log.read_text(encoding="utf-8").splitlines())


def panel_text(table: SimTable) -> str:
    """The line the simulated panel shows now."""
    with table.sim.locked():
        return table.sim.panel.text


def texts_received(table: SimTable) -> int:
    """How many text lines the simulated panel has been sent (it keeps the last one)."""
    with table.sim.locked():
        return table.sim.panel.texts_received


def ready(device: str, outcome: HelloOutcome, lost: LostRange | None = None) -> DeviceUp:
    """The driver's report that ``device`` said hello (boot ``B<device>``) and was welcomed."""
    return DeviceUp(device, f"B{device}", "0", outcome, lost, model="TEST", firmware="1")


def on_a_full_disk(table: SimTable) -> Controller:
    """The table's controller stopped and built again on its journal, whose file now behaves
    as a full disk (ENOSPC on the next append): not started."""
    table.stop_controller()
    controller = Controller.build(
        table_id="SIM-1",
        spec=table.spec,
        config=table.config,
        journal=table.journal,
        decks=table.decks(),
        make_drivers=table._drivers,
    )
    full = os.open("/dev/full", os.O_WRONLY)
    try:
        os.dup2(full, controller.journal._file)  # type: ignore[arg-type]
    finally:
        os.close(full)
    return controller
