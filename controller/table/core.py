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
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final

from controller.journal import JsonObject, JsonValue, Record, schema
from controller.journal import tablerecords as rec
from controller.poker.engine import ConfigError, Table, TableSetup
from controller.poker.engine.events import (
    CardExpected,
    Event,
    HandSettled,
    HandStarted,
    HandVoided,
    Refused,
)
from controller.poker.engine.machine import IN_HAND
from controller.poker.games.spec import GameSpec
from controller.poker.inputs import Button, ButtonPress, TableInput
from controller.table import checkpointing
from controller.table.checkpointing import CheckpointMismatch
from controller.table.devicestate import (
    REFUSALS,
    REJECTED,
    Cause,
    DeviceStatus,
    Pause,
    ShoeWarning,
    take_device_event,
)
from controller.table.seating import SeatingError, apply_change, seat_change_of
from drivers.seam.events import ROLES, Feed, Lid, Reader

#: The device state (controller/table/devicestate.py) and the checkpoint's mismatch
#: (controller/table/checkpointing.py) are the core's, and imported from here as before.
__all__ = [
    "REFUSALS",
    "REJECTED",
    "Cause",
    "CheckpointMismatch",
    "DeviceStatus",
    "Pause",
    "ReplayMismatch",
    "ShoeWarning",
    "SinceCheckpoint",
    "StakesChanged",
    "TableCore",
]
#: The press that starts a hand, which a paused table refuses at every journal version
#: (``TableCore._paused_refusal``).
NEW_HAND: Final = ButtonPress(Button.NEW_HAND)
#: The journal schema version from which a paused table refuses every press, not only a new
#: hand (docs/journal.md, The schema: version 3): records written before it replay as taken.
EVERY_PRESS_REFUSED_FROM: Final = 3
#: How many finished hands the core remembers: a table runs for months and must not grow
#: (the journal keeps every hand; recall and the exports read it there).
RESULTS_KEPT = 100
#: How many of the shoe's last reads the core keeps for the RFID repeat filter of a restarted
#: controller: far more than a 0.5 s window can hold, and bounded.
READS_KEPT = 256


class ReplayMismatch(Exception):
    """The engine decided otherwise than the journal says it did."""

    def __init__(self, record: Record, expected: object, got: list[JsonValue]) -> None:
        super().__init__(
            f"journal seq {record.seq}: the engine now decides {got} where the journal "
            f"recorded {expected}; the code changed under a hand in progress, "
            "so the table stays closed until the journal is looked at"
        )


class StakesChanged(ReplayMismatch):
    """The hand in progress was started under other stakes or house rules than the
    configuration now gives: finished under these, it would be dealt under two (13:69F-8.3:
    the posted stakes; rules-interpretation.md, House rules)."""

    def __init__(self, record: Record, journaled: rec.HandTerms, now: rec.HandTerms) -> None:
        what, was, given = "stakes", rec.stakes_json(journaled.stakes), rec.stakes_json(now.stakes)
        if journaled.stakes == now.stakes:
            what, was, given = (
                "house rules",
                rec.rules_json(journaled.rules),
                rec.rules_json(now.rules),
            )
        Exception.__init__(
            self,
            f"journal seq {record.seq}: the hand in progress was started under the {what} "
            f"{was}, and the configuration now gives {given}; put the hand's {what} back in "
            "the configuration until it is over, and change them between hands",
        )


#: The records that carry their device's sentence (device, boot and seq).
_SEQUENCED: Final = (
    schema.CardData,
    schema.TagData,
    schema.ButtonData,
    schema.ShoeStatusData,
    schema.RfidRepeatData,
)


@dataclass
class TableCore:
    """The engine of one table plus its devices' state; fed with journal records."""

    spec: GameSpec
    config: TableSetup
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
    #: Nothing taken or restored yet: a replay's first checkpoint is restored, not compared.
    fresh: bool = field(default=True, init=False)
    #: The shoe's last reads, oldest first (to restore its RFID repeat filter).
    shoe_reads: deque[rec.ShoeRead] = field(
        default_factory=lambda: deque(maxlen=READS_KEPT), init=False
    )
    #: The deck in play as last journaled (None: no ``deck`` record yet).
    deck: rec.DeckInPlay | None = field(default=None, init=False)
    #: The shoe's state as last journaled (docs/protocol.md 3.1 ``STA``).
    shoe: rec.ShoeCondition = field(default_factory=rec.ShoeCondition, init=False)
    #: The journal schema version of the records taken now: the last hand start's or
    #: checkpoint's (a replay reads it there; live, the version this code journals them at).
    #: None before the journal's first hand began, when only a new hand can be taken.
    version: int | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self.table = Table(self.spec, self.config)
        self.results = deque(maxlen=self.keep_results)
        self.devices = {name: DeviceStatus() for name in ROLES}

    @property
    def pauses(self) -> list[Pause]:
        """What holds the table, device by device in a fixed order (docs/app.md, Devices
        lost and found)."""
        pauses = []
        for name in ROLES:
            device = self.devices[name]
            if device.refused is not None:
                pauses.append(Pause(name, device.refused, device.message))
            elif not device.connected:
                pauses.append(Pause(name, Cause.LOST, device.message))
            elif name == "shoe":
                pauses.extend(self.shoe_faults())
        return pauses

    def shoe_faults(self) -> list[Pause]:
        """The shoe's own faults that pause the table, whether or not it is connected."""
        # docs/protocol.md 3.1 STA: a reader fault lets cards leave the shoe unread, and a jam
        # holds a card in the slot: the table waits as for a lost shoe, until the shoe says ok.
        faults = []
        if self.shoe.reader is Reader.FAULT:
            faults.append(Pause("shoe", Cause.READER_FAULT))
        if self.shoe.feed is Feed.JAM:
            faults.append(Pause("shoe", Cause.JAMMED))
        return faults

    @property
    def shoe_warnings(self) -> tuple[ShoeWarning, ...]:
        """What the dealer must see to at the shoe without a pause (docs/app.md): an open lid
        while a hand is in play (between hands the dealer loads the shoe through it), no card
        left when one is due."""
        if not self.devices["shoe"].connected:
            return ()
        warnings: tuple[ShoeWarning, ...] = ()
        if self.shoe.lid is Lid.OPEN and self.table.phase in IN_HAND:
            warnings += (ShoeWarning.LID_OPEN,)
        if self.shoe.feed is Feed.EMPTY and isinstance(self.table.pending, CardExpected):
            warnings += (ShoeWarning.EMPTY,)
        return warnings

    @property
    def terms(self) -> rec.HandTerms:
        """What a hand starting now is dealt under, journaled with its start (docs/journal.md,
        A hand's terms)."""
        return rec.HandTerms(self.table.stakes, self.table.rules)

    @property
    def paused_by(self) -> list[str]:
        """The devices that pause the table, in a fixed order."""
        return list(dict.fromkeys(pause.device for pause in self.pauses))

    def take(self, kind: str, data: JsonObject, where: str | None = None) -> list[Event]:
        """Take one input record as the journal holds it (a replay's), read through the
        schema (a SchemaError names ``where``, the record, and the field); the engine's
        events (none for a device event)."""
        where = where or f"journal record ({kind})"
        return self.take_record(schema.decode_data(kind, data, where))

    def take_record(self, record: object) -> list[Event]:
        """Take one input record, as the schema declares it (``schema.RECORDS``): the live
        path gives the record it journals, the replay the one it read."""
        self.records += 1
        self.fresh = False
        if isinstance(record, _SEQUENCED):
            origin = rec.origin_of(record)
            device = self.devices.get(origin.device)
            if device is None:  # not setdefault: that would build a status for every input
                device = self.devices[origin.device] = DeviceStatus()
            device.boot, device.last_seq = origin.boot, origin.seq
            read = rec.shoe_read_of(record)
            if read is not None:
                self.shoe_reads.append(read)
        take = self._TAKE.get(type(record))
        return [] if take is None else take(self, record)

    def _input(self, record: rec.InputRecord) -> list[Event]:
        inp = rec.input_of(record)
        refusal = self._paused_refusal(inp)
        events: list[Event] = [refusal] if refusal is not None else self.table.apply(inp)
        self.last_events = events
        for event in events:
            if isinstance(event, HandSettled | HandVoided):
                self._finished(event)
            elif isinstance(event, HandStarted):
                # Journaled at this code's version (a replay then reads the record's own).
                self.version = schema.VERSION
        return events

    def _device_event(self, record: schema.DeviceData) -> list[Event]:
        take_device_event(self.devices, record)
        return []

    def _shoe_status(self, record: schema.ShoeStatusData) -> list[Event]:
        self.shoe = rec.shoe_condition_of(record)
        return []

    def _seating(self, record: schema.SeatingData) -> list[Event]:
        data = schema.encode(record)
        try:
            change = seat_change_of(data)
        except SeatingError as exc:
            assert isinstance(data, dict)
            raise rec.RecordFormatError(rec.SEATING, data, str(exc)) from None
        self.last_events = apply_change(self.table, change)
        return self.last_events

    def _deck(self, record: schema.DeckData) -> list[Event]:
        self.deck = rec.deck_of(record)
        return []

    #: What each input record does to the core, by its declared class (a record the core
    #: takes nothing from, an ``rfid_repeat``'s, only counts and moves its device's seq).
    _TAKE: ClassVar[dict[type, Callable[[TableCore, Any], list[Event]]]] = {
        schema.CardData: _input,
        schema.TagData: _input,
        schema.ButtonData: _input,
        schema.DeviceData: _device_event,
        schema.ShoeStatusData: _shoe_status,
        schema.SeatingData: _seating,
        schema.DeckData: _deck,
    }

    def _paused_refusal(self, inp: TableInput) -> Refused | None:
        """Every button pressed while a device pauses the table is refused, on every panel
        (rules-interpretation.md, Integrity, A paused table takes no press; docs/app.md, Devices
        lost and found): the table waits for the device, and a press is neither acted on nor
        lost: journaled with this refusal, shown on the display and logged, it is pressed again
        once the pause has ended. A new hand's cards could not all be read and known by their
        tags besides. A card read is not refused: it happened, and the journal keeps it.
        Decided from the records alone, so a replay refuses it again; records written before
        version 3 refused only a new hand, and replay as they were taken
        (``EVERY_PRESS_REFUSED_FROM``). An integrity alarm holds a hand in play, and the engine
        refuses a new hand then."""
        if not isinstance(inp, ButtonPress):
            return None
        pauses = self.pauses
        if not pauses:
            return None
        if inp != NEW_HAND and (self.version or 0) < EVERY_PRESS_REFUSED_FROM:
            return None
        held = "; ".join(f"{pause.device} {pause.cause}" for pause in pauses)
        name = inp.button.value
        return Refused(
            name,
            f"the table is paused ({held}); press {name.replace('_', ' ')} again once the "
            "pause has ended",
        )

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
        """Feed one journal record in a replay; check decision records against the engine.

        A checkpoint record is where a fresh core begins (the start-up replay feeds the
        records from the last checkpoint on); a core already fed must equal it.
        """
        if record.kind == rec.CHECKPOINT:
            schema.decode(record)  # its fields and version, named by seq (a newer tablectl's)
            # The records after it were written at its version (docs/journal.md, The schema).
            self.version = _version_of(record)
            if self.fresh:
                try:
                    self.restore(record.data)
                except ConfigError as exc:  # the hand it carries ends elsewhere than it says
                    raise CheckpointMismatch(record, "hand", "as recorded", str(exc)) from None
            else:
                checkpointing.compare(self, record)
            return
        if record.kind in rec.DECISIONS:
            # The engine's own events, as the schema decodes them (controller/journal/schema.py).
            if schema.decode_events(record) != self.last_events:
                got = schema.encode_events(self.last_events)
                raise ReplayMismatch(record, record.data.get("events"), got)
            if record.kind == rec.HAND_STARTED:
                self.version = _version_of(record)  # the hand's records are of its version
            journaled = rec.hand_terms_of(record.data) if record.kind == rec.HAND_STARTED else None
            if journaled is not None and journaled != self.terms:
                raise StakesChanged(record, journaled, self.terms)
            return
        self.take(record.kind, record.data, f"journal record {record.seq} ({record.kind})")

    # --- checkpoints (docs/journal.md, Checkpoints; controller/table/checkpointing.py) ---------

    def checkpoint(self) -> JsonObject:
        """Everything the core needs to continue without the records before now; the records
        after it are journaled at its version, this code's."""
        data = checkpointing.checkpoint_data(self)
        self.version = schema.VERSION
        return data

    def restore(self, data: JsonObject) -> None:
        """Continue from a checkpoint record's data (a fresh core's start-up replay)."""
        checkpointing.restore(self, data)


def _version_of(record: Record) -> int:
    """A hand start's or checkpoint's schema version (absent: 0, before the schema), checked
    by ``schema.decode`` as the record is read."""
    version = record.data.get("version", 0)
    return version if isinstance(version, int) else 0


@dataclass
class SinceCheckpoint:
    """The journal's records from its last checkpoint on, collected while the journal
    writer checks them: the start-up replay feeds only these to the core.

    The start's writer passes only the records from the last checkpoint on
    (``resume_kind``: docs/journal.md, What a start checks); given the whole journal (a
    test, a tool), it keeps the ones after the last checkpoint. A journal without
    checkpoints (written before they existed) is kept whole.
    """

    records: list[Record] = field(default_factory=list)
    #: Records read before the last checkpoint (checked, not replayed).
    skipped: int = 0

    def __call__(self, record: Record) -> None:
        if record.kind == rec.CHECKPOINT:
            self.skipped += len(self.records)
            self.records = [record]
        else:
            self.records.append(record)

    def feed(self, core: TableCore) -> None:
        """Replay the collected records into a fresh core."""
        for record in self.records:
            core.replay(record)
        self.records = []
