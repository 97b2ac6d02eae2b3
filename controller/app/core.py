"""``TableCore``: the engine and what the controller knows of its devices. Pure.

The core takes journal records (the same in the live loop and in a replay),
so a restart rebuilds it exactly: the same next card, the same seat to act,
the same pot, and an alarm open at the power cut still open (docs/journal.md,
Opening, replay and resuming the hand). During a replay it compares each
decision the engine makes again with the one in the journal, and stops if
they differ: the code changed under a hand in progress.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from controller.app import records as rec
from controller.engine import Table, TableConfig
from controller.engine.events import Event, HandSettled, HandVoided
from controller.games.spec import GameSpec
from controller.journal import JsonObject, Record

DEVICES = ("shoe", "panel")
#: How many finished hands the core remembers: a table runs for months and must not grow
#: (the journal keeps every hand; recall and the exports read it there).
RESULTS_KEPT = 100
#: How many of the shoe's last reads the core keeps for the RFID repeat filter of a restarted
#: controller: far more than a 0.5 s window can hold, and bounded.
READS_KEPT = 256


class ReplayMismatch(Exception):
    """The engine decided otherwise than the journal says it did."""

    def __init__(self, record: Record, expected: object, got: list[JsonObject]) -> None:
        super().__init__(
            f"journal seq {record.seq}: the engine now decides {got} where the journal "
            f"recorded {expected}; the code changed under a hand in progress, "
            "so the table stays closed until the journal is looked at"
        )


@dataclass
class DeviceStatus:
    """A device as the journal last described it."""

    connected: bool = False
    #: Why it is not connected (lost, refused), or a restart's warning.
    message: str = ""
    #: The boot and last sequenced sentence journaled, to restore the driver.
    boot: str | None = None
    last_seq: int | None = None
    restarted: bool = False


@dataclass
class TableCore:
    """The engine of one table plus its devices' state; fed with journal records."""

    spec: GameSpec
    config: TableConfig
    keep_results: int = RESULTS_KEPT
    table: Table = field(init=False)
    devices: dict[str, DeviceStatus] = field(init=False)
    #: The events of the last engine input (replay checks them against the decision record).
    last_events: list[Event] = field(default_factory=list, init=False)
    #: The last settled or voided hands, in order; bounded, so a table that runs for months
    #: does not grow (the journal keeps them all).
    results: deque[HandSettled | HandVoided] = field(init=False)
    records: int = field(default=0, init=False)
    #: Totals over every hand finished since the table opened (the journal's whole life).
    finished: int = field(default=0, init=False)
    voided: int = field(default=0, init=False)
    showdowns: int = field(default=0, init=False)
    net: dict[int, int] = field(default_factory=dict, init=False)
    #: The shoe's last reads, oldest first (to restore its RFID repeat filter).
    shoe_reads: deque[rec.ShoeRead] = field(
        default_factory=lambda: deque(maxlen=READS_KEPT), init=False
    )
    #: The deck in play as last journaled (None: no ``deck`` record yet).
    deck: rec.DeckInPlay | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self.table = Table(self.spec, self.config)
        self.results = deque(maxlen=self.keep_results)
        self.devices = {name: DeviceStatus() for name in DEVICES}

    @property
    def paused_by(self) -> list[str]:
        """The devices whose loss pauses the table, in a fixed order."""
        return [name for name in DEVICES if not self.devices[name].connected]

    def take(self, kind: str, data: JsonObject) -> list[Event]:
        """Take one input record; the engine's events (none for a device event)."""
        self.records += 1
        if kind in rec.SEQUENCED:
            origin = rec.origin_of(kind, data)
            device = self.devices.setdefault(origin.device, DeviceStatus())
            device.boot, device.last_seq = origin.boot, origin.seq
            read = rec.shoe_read_of(kind, data)
            if read is not None:
                self.shoe_reads.append(read)
        if kind == rec.DEVICE:
            self._device_event(data)
            return []
        if kind == rec.DECK:
            self.deck = rec.deck_of(data)
            return []
        if kind not in rec.ENGINE_INPUTS:
            return []
        events = self.table.apply(rec.input_of(kind, data))
        self.last_events = events
        for event in events:
            if isinstance(event, HandSettled | HandVoided):
                self._finished(event)
        return events

    def _finished(self, result: HandSettled | HandVoided) -> None:
        self.results.append(result)
        self.finished += 1
        if isinstance(result, HandVoided):
            self.voided += 1
            return
        self.showdowns += not result.uncontested
        for entry in result.net:
            self.net[entry.seat] = self.net.get(entry.seat, 0) + entry.amount

    def replay(self, record: Record) -> None:
        """Feed one journal record in a replay; check decision records against the engine."""
        if record.kind in rec.DECISIONS:
            expected = record.data.get("events")
            got = rec.events_json(self.last_events)
            if expected != got:
                raise ReplayMismatch(record, expected, got)
            return
        self.take(record.kind, record.data)

    def _device_event(self, data: JsonObject) -> None:
        name = str(data.get("device"))
        device = self.devices.setdefault(name, DeviceStatus())
        event = data.get("event")
        if event == "ready":
            device.connected = True
            device.restarted = data.get("outcome") == "restarted"
            device.message = (
                f"{name} restarted: reads it had not sent before the power cycle are lost; "
                "check every card on the table against the display, press misdeal if one is "
                "missing"
                if device.restarted
                else ""
            )
            boot = data.get("boot")
            if isinstance(boot, str) and boot != device.boot:
                device.boot, device.last_seq = boot, None
        else:
            device.connected = False
            device.message = str(data.get("reason", ""))
