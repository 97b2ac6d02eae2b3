"""``Controller``: the table's loop. One driver event at a time, in the order they arrived:

1. journal the input (fsynced: docs/journal.md, Durability),
2. apply it to the engine,
3. announce: the panel's light and line, the log, the dealer's display, listeners,
4. acknowledge the device sentence (``commit``): never before step 1,
5. journal the decision (the events it caused; not fsynced on its own: the engine rebuilds it
   from the inputs, and the next input's fsync covers it).

One input at a time touches the engine and the journal. While the table runs, a
driver's input is handled at once on the driver's own reading thread, under the
table's lock (``DriverEvents``): a card goes from the wire to its announcement on
one thread, with no hand-off to the loop's thread and no second wake-up
(docs/performance.md). The loop's thread takes what waits in the queue: the
floor's seat changes, and what the drivers said before the run or after it ended.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

import structlog

from controller.config.settings import JournalSettings
from controller.display.view import TableView
from controller.journal import JournalError, JournalWriter, schema
from controller.journal import tablerecords as rec
from controller.journal.keeper import KeeperOptions
from controller.journal.tablekey import KeyFiles
from controller.journal.writer import Seal
from controller.logs.logsetup import HandTag
from controller.poker.announce import announce, facts
from controller.poker.engine import TableSetup
from controller.poker.engine.events import (
    Alarm,
    Event,
    HandSettled,
    HandStarted,
    HandVoided,
    Refused,
)
from controller.poker.games.spec import GameSpec
from controller.table import opening
from controller.table.control import SeatRequest
from controller.table.core import ShoeWarning, TableCore
from controller.table.devicelog import log_device, log_shoe_status
from controller.table.dispatch import Dispatch, DriverEvents
from controller.table.displayfeed import DisplayFeed
from controller.table.paneltext import SHOE_LINES, panel_line
from controller.table.seating import seats_fields, seats_text
from controller.table.viewbuilder import ViewBuilder
from drivers.deck import DeckSet
from drivers.seam.device import Device, Panel, Shoe
from drivers.seam.events import (
    ButtonPressed,
    DeviceDown,
    DeviceRefused,
    DeviceUp,
    EventSink,
    RepeatDropped,
    ShoeState,
    TagRead,
)


@dataclass(frozen=True, slots=True)
class ViewWanted:
    """A display attached to the feed: build the table's view at the loop's next turn."""


#: The engine's events a dealer must act on as a fault, logged at warning (the rest at info):
#: an integrity alarm holds the hand (rules-interpretation.md, Integrity), and a refused input
#: changed nothing, so the dealer must do something else (docs/deploy.md, Reading the log).
FAULTS: Final = (Alarm, Refused)

Listener = Callable[["Controller", list[Event]], None]


@dataclass
class Controller:
    """One table: its core, journal, decks and drivers, and where it announces."""

    table_id: str
    core: TableCore
    journal: JournalWriter
    decks: DeckSet
    #: The devices, through the seam (drivers/seam/device.py): never a concrete driver.
    shoe: Shoe
    panel: Panel
    #: Where the drivers put their events (``events`` is its queue).
    inbox: DriverEvents
    display: Callable[[TableView], None] | None = None
    listeners: list[Listener] = field(default_factory=list)
    #: Each new hand puts the other deck in play (rules-interpretation.md, Shuffle, cut and decks).
    alternate_decks: bool = False
    #: Signs every checkpoint with the table's key (None: unsigned; docs/journal.md, Signed
    #: checkpoints). The journal writer gives it the record's own seq and prev.
    signer: Seal | None = None
    view: ViewBuilder = field(init=False)
    inputs: int = field(default=0, init=False)
    _boots: dict[str, str] = field(default_factory=dict, init=False)
    _shown: tuple[int, str] | None = field(default=None, init=False)
    #: The shoe's warnings last logged (each is logged as it begins).
    _shoe_warned: tuple[ShoeWarning, ...] = field(default=(), init=False)
    #: The shoe's faults last logged as pausing the table (a pause is logged as it begins).
    _shoe_paused: tuple[str, ...] = field(default=(), init=False)
    #: Who handles an input and on which thread, one at a time (``table/dispatch.py``).
    dispatch: Dispatch = field(init=False)
    #: The hand this controller's log lines carry (none before its first hand).
    log_hand: HandTag = field(default_factory=HandTag, init=False)

    @property
    def events(self) -> queue.SimpleQueue[Any]:
        """What waits for the loop's thread: the floor's requests, and what the drivers said
        while the run was not taking their events on their threads."""
        return self.inbox.queue

    def __post_init__(self) -> None:
        self.view = ViewBuilder(self.table_id)
        # The handle looked up at each event, so a wrapper set on the instance takes effect.
        self.dispatch = Dispatch(self.inbox, lambda event: self.handle(event))  # noqa: PLW0108
        self._display_wanted: Callable[[], bool] | None = None
        if isinstance(self.display, DisplayFeed):
            # A feed with no display attached is given no view; one that attaches asks for
            # the table as it stands (table/displayfeed.py).
            self._display_wanted = self.display.wanted
            self.display.ask_for_view = self.show_view_soon
        # Bound now, to the log as configured: a lazy logger is built again at every line
        # (a few microseconds each, two or three lines a card). The run configures the log
        # before it builds the controller.
        self.log = structlog.get_logger("controller.table").bind(hand=self.log_hand)

    # --- building ------------------------------------------------------------------------

    @classmethod
    def build(
        cls,
        *,
        table_id: str,
        spec: GameSpec,
        config: TableSetup,
        journal: JournalSettings,
        keeper: KeeperOptions | None = None,
        decks: DeckSet,
        make_drivers: Callable[[EventSink[Any]], tuple[Shoe, Panel]],
        display: Callable[[TableView], None] | None = None,
        alternate_decks: bool = False,
        software: schema.SoftwareData | None = None,
        keys: KeyFiles | None = None,
    ) -> Controller:
        """Replay the journal into a fresh core and make the drivers (restored, not started),
        ``software`` journaled first (controller/table/opening.py)."""
        return opening.build(
            cls,
            table_id=table_id,
            spec=spec,
            config=config,
            journal=journal,
            keeper=keeper,
            decks=decks,
            make_drivers=make_drivers,
            display=display,
            alternate_decks=alternate_decks,
            software=software,
            keys=keys,
        )

    # --- life ----------------------------------------------------------------------------

    def claim(self) -> None:
        """Open both devices' ports before either driver reads: a port another program holds
        raises ``link.PortBusy`` (docs/drivers.md, One controller per device)."""
        self.shoe.claim()
        self.panel.claim()

    def start(self) -> None:
        """Start both drivers (they open their ports, if ``claim`` did not, and say hello)."""
        self.shoe.start()
        self.panel.start()

    def close(self) -> None:
        """Stop the drivers, close the journal, and log where the hand stands."""
        for driver in (self.shoe, self.panel):
            driver.stop()
        # What the drivers queued after the loop's last turn is journaled, not dropped: a read
        # the dealer saw go through the slot is in the journal, and its resend is a duplicate.
        try:
            self.drain()
        except JournalError as error:
            # A failed journal refuses every append: nothing more is acknowledged, and the
            # devices send it all again to the next start.
            self.log.error("journal_refused_at_close", error=str(error))
        last = self.journal.last
        self.journal.close()
        table = self.core.table
        self.log.info(
            "table_closed",  # its hand is the bound one: none if no hand was ever dealt
            phase=table.phase,
            where=announce(table.pending),
            journal_seq=last.seq if last else 0,
            journal_hash=last.hash if last else "",
            # The lines' health over the run: noise bytes and decode errors by kind.
            shoe_line=self.shoe.line_totals(),
            panel_line=self.panel.line_totals(),
        )

    def run(self, stop: threading.Event) -> None:
        """Handle driver events until ``stop`` is set (a signal handler sets it): on the
        drivers' own threads while it runs, what is queued on this one; an error a driver's
        thread met is raised here (``table/dispatch.py``)."""
        self.dispatch.run(stop)

    def drain(self) -> None:
        """Handle every event already queued."""
        self.dispatch.drain()

    # --- one event -----------------------------------------------------------------------

    def handle(self, event: object) -> None:
        """Journal, acknowledge, apply and announce one driver event."""
        match event:
            case TagRead():
                # uid and read_ms: what the repeat filter of a restarted controller needs.
                inp, origin = self.decks.lookup(event), self._origin(self.shoe, event.seq)
                self._input(self.shoe, rec.input_record(inp, origin, event.uid, event.read_ms))
            case ButtonPressed():
                origin = self._origin(self.panel, event.seq)
                self._input(self.panel, rec.input_record(event.to_input(), origin))
            case ShoeState():
                device, boot, seq = self._origin(self.shoe, event.seq or 0).fields_tuple()
                status = schema.ShoeStatusData(
                    device, boot, seq, event.lid, event.reader, event.feed
                )
                self._sequenced(self.shoe, event.seq, status)
                self._shoe_status()
            case RepeatDropped():
                device, boot, seq = self._origin(self.shoe, event.seq).fields_tuple()
                repeat = schema.RfidRepeatData(
                    device, boot, seq, event.uid, event.point, event.read_ms
                )
                self._sequenced(self.shoe, event.seq, repeat)
            case DeviceUp():
                self._boots[event.device] = event.boot
                # docs/protocol.md 5, Lost sentences: a restarted controller resumes after them.
                lost = None if event.lost is None else (event.lost.first, event.lost.last)
                self._device(
                    schema.DeviceData(
                        event.device,
                        "ready",
                        outcome=event.outcome.value,
                        boot=event.boot,
                        serial=event.serial,
                        lost=lost,
                    )
                )
            case DeviceDown():
                self._device(schema.DeviceData(event.device, "lost", reason=event.reason))
            case DeviceRefused():
                rejected = event.rejected.value
                self._device(
                    schema.DeviceData(
                        event.device, "refused", reason=event.reason, rejected=rejected
                    )
                )
            case SeatRequest():
                self._seat_request(event)
            case ViewWanted():
                self._show_view()
            case _:
                self.log.error("unknown_driver_event", event=repr(event))

    def show_view_soon(self) -> None:
        """A display attached (any thread): the loop builds the table's view at its next turn."""
        self.events.put(ViewWanted())

    def _show_view(self) -> None:
        if self.display is not None:
            self.display(self.view.build(self.core))

    def _origin(self, driver: Device, seq: int) -> rec.Origin:
        boot = self._boots.get(driver.device) or driver.boot or ""
        return rec.Origin(driver.device, boot, seq)

    def _sequenced(
        self,
        driver: Device,
        seq: int | None,
        record: schema.ShoeStatusData | schema.RfidRepeatData,
    ) -> None:
        self.journal.append(*schema.record(record))
        if seq is not None:
            driver.commit(seq)
        self.core.take_record(record)

    def _input(self, driver: Device, taken: rec.InputRecord) -> None:
        """Journal, apply, announce and acknowledge an engine input (``taken``: its record)."""
        seq = taken.seq
        record = self.journal.append(*schema.record(taken))  # on disk (fsync) ...
        events = self.core.take_record(taken)
        self.inputs += 1
        started = next((e.hand for e in events if isinstance(e, HandStarted)), None)
        # In play before the hand's first card is read; journaled after the hand's decision.
        deck = self._deck_for(started) if started is not None else None
        self.announce_events(events)
        # ... before the device is told (docs/journal.md, Durability). The dealer's line goes
        # first: the ACK only frees the device's store (it resends after 200 ms), and writing
        # it first put the write's stalls before the announcement (docs/performance.md).
        driver.commit(seq)
        self.journal_decision(record.seq, events)
        if deck is not None:
            self._journal_deck(deck)
        if any(isinstance(e, HandSettled | HandVoided) for e in events):
            self._checkpoint()
            last = self.journal.last
            # docs/journal.md: the head, logged at every hand's end, is an audit's anchor.
            self.log.info(
                "journal_anchor",
                anchor=f"{last.seq}:{last.hash}" if last else "",
                input_seq=record.seq,
            )

    def _seat_request(self, request: SeatRequest) -> None:
        """A seat change from the control socket: journaled (with its decision), applied through
        the core as a replay applies it, announced, answered (docs/app.md, Seat changes)."""
        if request.change is None:
            table = self.core.table
            request.answer.put({"ok": True, "text": seats_text(table), **seats_fields(table)})
            return
        data = request.change.fields()
        if request.peer is not None:
            data |= request.peer.fields()  # who asked, from the socket's credentials
        record = self.journal.append(rec.SEATING, data)
        events = self.core.take(rec.SEATING, data)
        self.announce_events(events)
        self.journal_decision(record.seq, events)
        refused = next((e for e in events if isinstance(e, Refused)), None)
        if refused is not None:
            self.log.warning("seating_refused", change=refused.input, reason=refused.reason)
            request.answer.put({"ok": False, "reason": refused.reason})
        else:
            request.answer.put({"ok": True, "text": announce(events[0])})

    def _checkpoint(self) -> None:
        """At a hand's end: journal what a restart needs to begin here (docs/journal.md)."""
        self.journal.append(rec.CHECKPOINT, self.core.checkpoint(), seal=self.signer)

    def journal_decision(self, input_seq: int, events: list[Event]) -> None:
        decision_kind, decision = rec.decision_data(input_seq, events, self.core.terms)
        # Not fsynced on its own: the engine rebuilds it from the inputs, and the next input's
        # fsync takes it to disk (docs/journal.md, Durability).
        self.journal.append(decision_kind, decision, sync=False)

    def _device(self, record: schema.DeviceData) -> None:
        self.journal.append(*schema.record(record))
        self.core.take_record(record)
        name = record.device
        if name == "shoe":
            # Lost, back or refused: a fault the shoe reports from now on is a pause anew.
            self._shoe_paused = ()
        log_device(self.log, self.core, record)
        self.announce_events([])

    def _shoe_status(self) -> None:
        """A reader fault or a jam pauses the table until the shoe reports it cleared
        (docs/app.md, The shoe's state)."""
        self._shoe_paused = log_shoe_status(self.log, self.core, self._shoe_paused)
        self.announce_events([])

    # --- the decks (rules-interpretation.md, Shuffle, cut and decks) ------------------------------

    def _deck_for(self, hand: int) -> rec.DeckInPlay:
        """Put the deck of a new hand in play: the other one if the decks alternate (the
        journal's first hand keeps the configured deck)."""
        if self.alternate_decks and self.core.deck is not None:
            self.decks.switch()
        deck = rec.DeckInPlay(hand, self.decks.active.name)
        # The display shows it from the hand's start.
        self.core.take_record(schema.DeckData(deck.hand, deck.deck))
        self.log_hand.number = hand  # the new hand's line (its others are announced after it)
        self.log.info("deck_in_play", deck=deck.deck, alternate=self.alternate_decks)
        return deck

    @property
    def next_hand_deck(self) -> str:
        """The name of the deck the next hand will be dealt from (what a dealer loads)."""
        if self.alternate_decks and self.core.deck is not None:
            return self.decks.other.name
        return self.decks.active.name

    def _journal_deck(self, deck: rec.DeckInPlay) -> None:
        # After the hand's decision record: each of the journal's files begins with a hand.
        self.journal.append(rec.DECK, deck.fields())

    def restore_deck(self) -> None:
        """Put the journaled deck in play. A hand whose start is journaled but not its deck
        (the power went between the two records) gets its deck now, by the same rule: the
        journal's first hand the configured deck, a later one the other deck if they alternate."""
        journaled = self.core.deck
        hand = self.core.table.hand_number
        if journaled is not None:
            self.decks.activate(journaled.deck)
        if hand and (journaled is None or journaled.hand < hand):
            self._journal_deck(self._deck_for(hand))

    # --- announcing ----------------------------------------------------------------------

    def announce_events(self, events: list[Event]) -> None:
        core = self.core
        for event in events:
            if isinstance(event, HandStarted):
                self.log_hand.number = event.hand
            log = self.log.warning if isinstance(event, FAULTS) else self.log.info
            # The facts as fields of their own (seat, amount, pot, nets), for a log shipper's
            # queries; like the text, they name no card a player may not see.
            log(event.kind, text=announce(event), **facts(event))
        pending = core.table.pending
        warnings = core.shoe_warnings
        if warnings != self._shoe_warned:
            began = [warning for warning in warnings if warning not in self._shoe_warned]
            self._shoe_warned = warnings
            for warning in began:
                self.log.warning(
                    "shoe_warning",
                    warning=warning.value,
                    todo=SHOE_LINES[warning],
                    **core.shoe.fields(),
                )
        shown = panel_line(pending, core.pauses, warnings)
        if shown != self._shown:
            self._shown = shown
            if self.panel.features.shows:  # a panel without light or line: the display has it
                self.panel.light_and_show(*shown)
        if self.display is not None:
            # Followed only for a display: without one nothing reads it. The log strip's
            # history is kept even while no display is attached, for the next one to attach.
            self.view.observe(events)
            if self._display_wanted is None or self._display_wanted():
                self.display(self.view.build(core))
        for listener in self.listeners:
            listener(self, events)


def wait_until(predicate: Callable[[], bool], timeout: float) -> bool:
    """Poll ``predicate`` until it holds or ``timeout`` passes (tests and the demo)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.002)
    return True
