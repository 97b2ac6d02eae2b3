"""A controller wired to the simulator's shoe and panel (the demo, the soak, the crash test).

``SimTable`` runs the simulator, the controller (on its own thread, as ``tablectl
run`` runs it), dealt by the caller (``app.lockstep``); the drivers reach the devices
through the simulator's ptys or its ``sim://`` URLs, as they reach hardware.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.config.settings import JournalSettings, KeySettings
from controller.journal.tablekey import KeyFiles
from controller.poker.engine import Stakes, TableSetup
from controller.poker.games import GAMES
from controller.poker.games.spec import ForcedBet, GameSpec
from controller.table.loop import Controller
from drivers.deck import Deck, DeckSet
from drivers.seam import registry
from drivers.seam.device import DeviceHeld, OpenOptions, Panel, Shoe
from drivers.seam.events import PANEL, SHOE, EventSink
from drivers.seam.settings import DeviceSettings
from drivers.seam.tags import TagFamily
from drivers.tablectl.backend import ProtocolSettings
from simulator.decks import enrolled, make_decks
from simulator.table import Simulator, Transport

#: The demo's stakes: small enough that no seat goes broke in a long run.
DEMO_STACK = 20_000


def demo_config(spec: GameSpec, seats: int = 6) -> TableSetup:
    """A table of ``seats`` players at small fixed-limit stakes for ``spec``."""
    if spec.forced_bet is ForcedBet.BLINDS:
        stakes = Stakes(small_bet=2, big_bet=4, small_blind=1, big_blind=2)
        dealer = 1
    else:
        stakes = Stakes(small_bet=5, big_bet=10, ante=1, bring_in=2)
        dealer = 0
    numbers = tuple(range(1, seats + 1))
    return TableSetup(
        seats=numbers, stakes=stakes, dealer=dealer, stacks=dict.fromkeys(numbers, DEMO_STACK)
    )


@dataclass
class SimTable:
    """The simulator and a controller on it; a context manager. ``controller`` is rebuilt
    from the journal by ``restart``."""

    game: str
    journal: JournalSettings
    seed: int = 0
    transport: Transport = "memory"
    directory: Path | None = None
    seats: int = 6
    table_id: str = "SIM-1"
    display: Any = None
    link: dict[str, float] = field(default_factory=dict)
    #: The serial number the configuration names per device ("shoe", "panel"); none: any.
    serials: dict[str, str] = field(default_factory=dict)
    #: A role's settings of another backend (drivers/seam/registry.py), whose device the
    #: test or the simulator serves itself; a role not given is the simulator's protocol
    #: device.
    devices: dict[str, DeviceSettings] = field(default_factory=dict)
    #: The family of the decks' tags: ISO/IEC 14443-A for a shoe of PN532 readers
    #: (simulator/pn532/shoe.py).
    tags: TagFamily = TagFamily.ISO15693
    #: The shoe's RFID repeat window (docs/protocol.md, 7). A real shuffle takes longer than
    #: the default 0.5 s; a fast simulated dealer shortens both (simulator.pace.Pace.fast).
    repeat_window: float = 0.5
    #: Each new hand puts the other deck in play, as ``tablectl run`` does by default.
    alternate_decks: bool = True
    #: The devices' and the drivers' clock (simulator.clock): the wall clock for the demo,
    #: a ManualClock for a test, whose devices then see only the time the test lets pass.
    clock: Callable[[], float] = time.monotonic
    #: The table's key files (``[keys]``), read again at every start as ``tablectl run`` reads
    #: them; None: a table without a key.
    keys: KeySettings | None = None
    sim: Simulator = field(init=False)
    controller: Controller = field(init=False)
    _stop: threading.Event = field(default_factory=threading.Event, init=False)
    _thread: threading.Thread | None = field(default=None, init=False)
    error: BaseException | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        if self.game not in GAMES:
            raise ValueError(f"game {self.game!r}: expected one of {', '.join(sorted(GAMES))}")
        self.spec = GAMES[self.game]
        self.config = demo_config(self.spec, self.seats)

    def __enter__(self) -> SimTable:
        table = None if self.transport == "pty" else f"t{id(self)}"
        kwargs: dict[str, Any] = {
            "transport": self.transport,
            "seed": self.seed,
            "clock": self.clock,
            "tags": self.tags,
        }
        if table is not None:
            kwargs["table"] = table
        if self.directory is not None:
            kwargs["directory"] = self.directory / "sim"
        self.sim = Simulator(**kwargs)
        self.sim.start()
        try:
            self._decks_dir = self.journal.dir.parent / "decks"
            self.deck_files = self.sim.write_deck_files(self._decks_dir)
            self.start_controller()
        except BaseException:
            self.sim.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self.stop_controller()
        finally:
            self.sim.close()

    def decks(self) -> DeckSet:
        first, second = self.deck_files
        return DeckSet(Deck.load(first), Deck.load(second))

    def device_settings(self, role: str) -> DeviceSettings:
        """The settings the table opens ``role`` with: ``devices``' if given, else the
        simulator's protocol device of that role (its address, the serial the configuration
        names, the link timings a test shortened)."""
        given = self.devices.get(role)
        if given is not None:
            return given
        return ProtocolSettings(
            role, self.sim.address(role), None, self.serials.get(role), link=dict(self.link)
        )

    def _drivers(self, events: EventSink[Any]) -> tuple[Shoe, Panel]:
        """The devices, opened through the seam as ``tablectl run`` opens them."""
        options = OpenOptions(
            clock=self.clock, ack_after_commit=True, repeat_window=self.repeat_window
        )
        shoe, panel = self.device_settings(SHOE), self.device_settings(PANEL)
        return (
            registry.shoe_backend(shoe.kind).open(shoe, events, options),
            registry.panel_backend(panel.kind).open(panel, events, options),
        )

    def start_controller(self) -> Controller:
        """Build the controller from the journal and run it on its own thread."""
        display = self.display if callable(self.display) else None
        self.controller = Controller.build(
            table_id=self.table_id,
            spec=self.spec,
            config=self.config,
            journal=self.journal,
            decks=self.decks(),
            make_drivers=self._drivers,
            display=display,
            alternate_decks=self.alternate_decks,
            keys=None if self.keys is None else KeyFiles.read(self.keys),
        )
        self._stop = threading.Event()
        # As tablectl run (controller/table/service.py, serve): a device another program holds
        # refuses the start before any driver reads, the table closed.
        try:
            self.controller.claim()
        except DeviceHeld:
            self.controller.close()
            raise
        self.controller.start()
        self._thread = threading.Thread(target=self._run, name="tablectl-controller", daemon=True)
        self._thread.start()
        return self.controller

    def _run(self) -> None:
        try:
            self.controller.run(self._stop)
        except BaseException as exc:  # surfaced by stop_controller, not lost on a thread
            self.error = exc

    def stop_controller(self) -> None:
        """Stop the loop, close the drivers and the journal (as SIGTERM does)."""
        if self._thread is None:
            return
        self._stop.set()
        self._thread.join()
        self._thread = None
        self.controller.close()
        if self.error is not None:
            raise self.error


def unplugged_table(
    journal: JournalSettings,
    game: str = "mambo",
    *,
    table_id: str = "UNPLUGGED-1",
    alternate_decks: bool = False,
    config: TableSetup | None = None,
) -> Controller:
    """A 6-seat demo table (or ``config``'s) on the simulator's two enrolled decks whose
    drivers are never started: no port is opened, and ``commit``, ``light`` and ``show`` act as
    with the cables out. Whoever holds it hands it the drivers' events (``controller.inbox``, or
    ``controller.events`` and ``drain``): the memory benchmark, the loop's tests."""
    spec = GAMES[game]
    first, second = (enrolled(deck) for deck in make_decks(1))

    def drivers(events: EventSink[Any]) -> tuple[Shoe, Panel]:
        options = OpenOptions(ack_after_commit=True)
        shoe = ProtocolSettings(SHOE, "/nonexistent/shoe", None, None)
        panel = ProtocolSettings(PANEL, "/nonexistent/panel", None, None)
        return (
            registry.shoe_backend(shoe.kind).open(shoe, events, options),
            registry.panel_backend(panel.kind).open(panel, events, options),
        )

    return Controller.build(
        table_id=table_id,
        spec=spec,
        config=demo_config(spec) if config is None else config,
        journal=journal,
        decks=DeckSet(first, second),
        make_drivers=drivers,
        alternate_decks=alternate_decks,
    )
