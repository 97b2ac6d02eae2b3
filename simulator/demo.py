"""The demo: the controller against the simulator, dealt by the simulator's random bot.

With the display it follows the table on the dealer's screen until ``q``;
headless it plays ``hands`` hands and returns a ``Summary``. Nothing needs
hardware or a configuration: the simulator serves the shoe and the panel
in-process (``sim://``) and the journal goes to a folder of its own.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from controller.config.settings import JournalSettings
from controller.display.demo_app import TrainingDisplay
from controller.journal import verify
from controller.logs.progress import Progress
from controller.poker.engine.events import Event, HandSettled, HandVoided
from controller.poker.words import counted
from controller.table.loop import Controller
from controller.table.screen import DisplaySink
from drivers.seam.settings import DeviceSettings
from drivers.seam.tags import TagFamily
from simulator.keypad import fit_keypad, keypad_panel
from simulator.lockstep import LockstepDealer
from simulator.pace import Pace
from simulator.pn532.shoe import REPEAT_WINDOW, fit_pn532, pn532_readers
from simulator.simtable import SimTable
from simulator.table import Simulator
from simulator.training import Trainer

Fit = Callable[[Simulator], None]

#: A fast headless dealer shortens the shoe's RFID repeat window and the shuffle with it.
FAST_REPEAT_WINDOW = 0.02
#: The panels the demo offers: the simulator's protocol panel, or a keypad panel on the
#: simulator's keypad (docs/simulator.md, The keypad panel).
PANELS = ("tablectl", "keypad")
#: The shoes the demo offers: the simulator's protocol shoe, or PN532 readers at the slot and
#: the discard reader (docs/simulator.md, PN532 readers).
SHOES = ("tablectl", "pn532")


@contextmanager
def panel_devices(panel: str, name: str) -> Iterator[tuple[dict[str, DeviceSettings], Fit]]:
    """The ``SimTable.devices`` of ``panel`` and what fits it to the table's simulator once
    made: nothing for the protocol panel; for the keypad, a simulated keypad named ``name``
    whose keys the dealer presses."""
    if panel not in PANELS:
        raise ValueError(f"panel {panel!r}: expected one of {', '.join(PANELS)}")
    if panel == "tablectl":
        yield {}, lambda sim: None
        return
    with keypad_panel(name) as (keypad, settings):
        yield {"panel": settings}, lambda sim: fit_keypad(sim, keypad, settings.keymap)


@contextmanager
def shoe_devices(
    shoe: str, directory: Path
) -> Iterator[tuple[dict[str, DeviceSettings], Fit, TagFamily]]:
    """The ``SimTable.devices`` of ``shoe``, what fits it to the table's simulator once made,
    and the family of the decks' tags: nothing for the protocol shoe (ISO/IEC 15693); for
    PN532 readers, a simulated PN532 at the slot and one at the discard reader, their ptys in
    ``directory``, the dealer's cards pitched past them (ISO/IEC 14443-A: docs/hardware.md)."""
    if shoe not in SHOES:
        raise ValueError(f"shoe {shoe!r}: expected one of {', '.join(SHOES)}")
    if shoe == "tablectl":
        yield {}, lambda sim: None, TagFamily.ISO15693
        return
    with pn532_readers(directory) as (readers, settings):

        def fit(sim: Simulator) -> None:
            fit_pn532(sim, readers)

        yield {"shoe": settings}, fit, TagFamily.ISO14443A


@contextmanager
def table_devices(
    panel: str, shoe: str, name: str, directory: Path
) -> Iterator[tuple[dict[str, DeviceSettings], Fit, TagFamily]]:
    """``panel_devices`` and ``shoe_devices`` together."""
    with (
        panel_devices(panel, name) as (panels, fit_panel),
        shoe_devices(shoe, directory / "pn532") as (shoes, fit_shoe, tags),
    ):

        def fit(sim: Simulator) -> None:
            fit_panel(sim)
            fit_shoe(sim)

        yield {**panels, **shoes}, fit, tags


@dataclass
class Summary:
    """What a headless demo did."""

    game: str
    hands: int
    settled: int
    voided: int
    showdowns: int
    inputs: int
    seconds: float
    net: dict[int, int]
    journal: Path
    journal_intact: bool
    #: The journal's verdict in the one vocabulary (controller/journal/verdict.py).
    verdict: str
    records: int
    #: The panel's kind: "tablectl" (the protocol panel) or "keypad" (docs/hardware-keypad.md).
    panel: str = "tablectl"
    #: The shoe's kind: "tablectl" (the protocol shoe) or "pn532" (docs/hardware.md).
    shoe: str = "tablectl"

    def lines(self, *, journal_kept: bool = True) -> list[str]:
        """The summary; ``journal_kept`` false: the journal's folder is removed, so not named."""
        nets = ", ".join(f"seat {seat} {amount:+d}" for seat, amount in sorted(self.net.items()))
        rate = self.hands / self.seconds if self.seconds else 0.0
        unacknowledged = [
            part
            for part, fitted in (
                ("the keypad's presses", self.panel == "keypad"),
                ("the PN532s' reads", self.shoe == "pn532"),
            )
            if fitted
        ]
        return [
            f"{self.game}: {counted(self.hands, 'hand')} in {self.seconds:.1f} s "
            f"({rate:.1f} hands/s); "
            f"{self.settled} settled ({self.showdowns} at a showdown), {self.voided} void",
            f"inputs: {self.inputs} cards and buttons, each journaled before it was acknowledged"
            + (
                f" ({' and '.join(unacknowledged)} take no acknowledgement)"
                if unacknowledged
                else ""
            ),
            f"results: {nets}",
            f"journal {self.journal}: {counted(self.records, 'record')}; {self.verdict}"
            if journal_kept
            else f"journal (removed with its temporary folder): {counted(self.records, 'record')}; "
            f"{self.verdict}",
        ]


def run_headless(
    game: str,
    hands: int,
    directory: Path,
    *,
    seed: int = 0,
    progress: TextIO | None = None,
    clock: Callable[[], float] = time.monotonic,
    panel: str = "tablectl",
    shoe: str = "tablectl",
) -> Summary:
    """Play ``hands`` hands as fast as the table takes them; the journal goes in ``directory``.

    ``clock`` is the devices' and the drivers' (SimTable.clock): a test's ManualClock keeps
    their timers off the wall clock; the summary's seconds are the wall clock's all the same."""
    options = JournalSettings(directory / "journal", fsync=False)
    bar = Progress(hands, progress) if progress is not None else None
    # A card stays in a PN532's field for its pitch: one read only if the window outlasts a poll.
    window = REPEAT_WINDOW if shoe == "pn532" else FAST_REPEAT_WINDOW
    started = time.monotonic()
    with (
        table_devices(panel, shoe, f"demo-{id(options)}", directory) as (devices, fit, tags),
        SimTable(
            game,
            options,
            seed=seed,
            directory=directory,
            repeat_window=window,
            clock=clock,
            devices=devices,
            tags=tags,
        ) as table,
    ):
        fit(table.sim)
        controller = table.controller
        if bar is not None:

            def advance(ctl: Controller, events: list[Event]) -> None:
                if any(isinstance(e, HandSettled | HandVoided) for e in events):
                    bar.update(ctl.core.finished)

            controller.listeners.append(advance)
        dealer = LockstepDealer.for_table(
            table.sim,
            controller,
            table.spec,
            table.config,
            seed=seed,
            hands=hands,
            pace=Pace.fast(window),
        )
        dealer.run()
        core = controller.core
        inputs = controller.inputs
    seconds = time.monotonic() - started
    report = verify(options.dir)
    net = {seat: core.net.get(seat, 0) for seat in table.config.seats}
    return Summary(
        game=table.spec.name,
        hands=core.finished,
        settled=core.finished - core.voided,
        voided=core.voided,
        showdowns=core.showdowns,
        inputs=inputs,
        seconds=seconds,
        net=net,
        journal=options.dir,
        journal_intact=report.intact,
        verdict=report.verdict.text(),
        records=report.records,
        panel=panel,
        shoe=shoe,
    )


def run_on_display(
    game: str,
    directory: Path,
    *,
    seed: int = 0,
    pace: float = 0.15,
    stop: threading.Event | None = None,
    panel: str = "tablectl",
    shoe: str = "tablectl",
) -> None:
    """Deal hand after hand on the dealer's display, ``pace`` seconds an action, until ``q``
    (or ``stop``, set by a signal's handler: the table closes, then the display). The
    training keys make the table go wrong (docs/display.md, Dealer training)."""
    with training_table(game, directory, seed=seed, pace=pace, panel=panel, shoe=shoe) as demo:
        run_training(demo, stop or threading.Event())


@dataclass
class DemoTable:
    """The demo's table on the display: the simulator and controller, the dealer, the keys."""

    table: SimTable
    sink: DisplaySink
    dealer: LockstepDealer
    trainer: Trainer

    def deal(self, stop: threading.Event) -> None:
        """Deal until ``stop`` (or until the controller stops taking inputs: the display then
        stays up to show why; q closes it)."""

        def stop_dealer_on() -> None:
            stop.wait()
            self.dealer.stop()

        watcher = threading.Thread(target=stop_dealer_on, name="tablectl-demo-stop", daemon=True)
        watcher.start()
        try:
            self.dealer.run()
        except TimeoutError:
            stop.wait()
        stop.set()  # the dealer is done: the watcher goes
        watcher.join()


@contextmanager
def training_table(
    game: str,
    directory: Path,
    *,
    seed: int = 0,
    pace: float = 0.15,
    clock: Callable[[], float] = time.monotonic,
    panel: str = "tablectl",
    shoe: str = "tablectl",
) -> Iterator[DemoTable]:
    """The demo's table for the display, its dealer following the table as a dealer does
    (``follow_table``: it waits while the table is paused or held by an alarm it did not
    cause, and follows an undo or a misdeal). ``clock`` as for ``run_headless``."""
    options = JournalSettings(directory / "journal", fsync=False)
    sink = DisplaySink()
    with (
        table_devices(panel, shoe, f"demo-{id(options)}", directory) as (devices, fit, tags),
        SimTable(
            game, options, seed=seed, directory=directory, display=sink, clock=clock,
            devices=devices, tags=tags,
        ) as table,
    ):  # fmt: skip
        fit(table.sim)
        dealer = LockstepDealer.for_table(
            table.sim,
            table.controller,
            table.spec,
            table.config,
            seed=seed,
            pace=Pace(card=pace, button=pace),
            timeout=60.0,
            follow_table=True,
        )
        yield DemoTable(table, sink, dealer, Trainer(table.sim, dealer))


def run_training(demo: DemoTable, stop: threading.Event) -> None:
    """The demo's display with its training keys while the dealer deals on a thread; ``q``
    (or ``stop``) stops both, the table first (``controller.table.screen.run_with_display``,
    with the training display)."""
    first = demo.sink.latest
    if first is None:
        raise RuntimeError("the controller built no view before the display opened")
    app = TrainingDisplay(first, demo.trainer.actions())
    demo.sink.attach(app)

    def table() -> None:
        demo.deal(stop)
        app.close_soon()

    thread = threading.Thread(target=table, name="tablectl-table")
    thread.start()
    try:
        app.run()
    finally:
        stop.set()
        thread.join()
