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
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Final

from controller.app import records as rec
from controller.app.seating import SeatingError, apply_change, seat_change_of
from controller.engine import ConfigError, Table, TableConfig
from controller.engine.checkpoint import TableCheckpoint
from controller.engine.events import CardExpected, Event, HandSettled, HandVoided, Refused
from controller.engine.machine import IN_HAND
from controller.games.spec import GameSpec
from controller.inputs import Button, ButtonPress, ReadPoint, TableInput
from controller.journal import JsonObject, Record
from drivers.sentences import Feed, Lid, Reader, RejectReason
from drivers.session import LostRange

DEVICES = ("shoe", "panel")
#: The press that starts a hand, which a paused table refuses (``TableCore._paused_refusal``).
NEW_HAND: Final = ButtonPress(Button.NEW_HAND)
#: How many finished hands the core remembers: a table runs for months and must not grow
#: (the journal keeps every hand; recall and the exports read it there).
RESULTS_KEPT = 100
#: How many of the shoe's last reads the core keeps for the RFID repeat filter of a restarted
#: controller: far more than a 0.5 s window can hold, and bounded.
READS_KEPT = 256
#: How many of those a checkpoint carries: a repeat comes within the shoe's window (0.5 s),
#: and no dealer reads this many cards in half a second.
READS_CHECKPOINTED = 32


class CheckpointMismatch(Exception):
    """A checkpoint record disagrees with the table its records before it replay to."""

    def __init__(self, record: Record, what: str, expected: object, got: object) -> None:
        super().__init__(
            f"journal seq {record.seq}: checkpoint's {what} is {expected}, but the records "
            f"before it replay to {got}; the journal was edited or the code changed, so the "
            "table stays closed until the journal is looked at (tablectl journal verify)"
        )


class ReplayMismatch(Exception):
    """The engine decided otherwise than the journal says it did."""

    def __init__(self, record: Record, expected: object, got: list[JsonObject]) -> None:
        super().__init__(
            f"journal seq {record.seq}: the engine now decides {got} where the journal "
            f"recorded {expected}; the code changed under a hand in progress, "
            "so the table stays closed until the journal is looked at"
        )


class StakesChanged(ReplayMismatch):
    """The hand in progress was started under other stakes or house rules than the
    configuration now gives: finished under these, it would be dealt under two (13:69F-8.3:
    the posted stakes; NOTES.md, House rules)."""

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
    #: Why the host refused its hello, if it did (docs/protocol.md 4: serial or protocol
    #: version). Its driver has stopped for good: only a restart of the controller, after the
    #: fix, hears it again.
    refused: Cause | None = None
    #: The sequence numbers the device lost, as "12..23" (docs/protocol.md 5, Lost sentences);
    #: empty if none since it was last welcomed.
    lost: str = ""


class Cause(StrEnum):
    """Why a device holds the table, in the panel's few words."""

    LOST = "lost"
    #: Refused: its serial is not the configured one (docs/protocol.md 3.3 ``REJ`` identity).
    WRONG_SERIAL = "wrong serial"
    #: Refused: it speaks another protocol version (docs/protocol.md 3.3 ``REJ`` protocol).
    WRONG_PROTOCOL = "wrong version"
    #: Refused for a reason this controller does not tell apart.
    REFUSED = "refused"
    #: The shoe's RFID reader failed: a card dealt now leaves the shoe unread (3.1 ``STA``).
    READER_FAULT = "reader fault"
    #: A card is stuck in the shoe's slot (3.1 ``STA``).
    JAMMED = "jammed"


class ShoeWarning(StrEnum):
    """A state of the shoe the dealer must see to, that does not stop its reads (docs/app.md,
    The shoe's state)."""

    #: A hand is in play and the lid is open: a card taken through it is not read.
    LID_OPEN = "lid open"
    #: A card is due and the shoe has none left.
    EMPTY = "empty"


#: The causes only a restart of the controller clears (the driver has stopped).
REFUSALS = frozenset({Cause.WRONG_SERIAL, Cause.WRONG_PROTOCOL, Cause.REFUSED})


@dataclass(frozen=True, slots=True)
class Pause:
    """A device that holds the table, why, and the driver's words for it."""

    device: str
    cause: Cause
    detail: str = ""

    @property
    def refused(self) -> bool:
        """Only a restart of the controller, after the device or the configuration is
        fixed, ends this pause."""
        return self.cause in REFUSALS


#: The refusal each of the host's ``REJ`` reasons (docs/protocol.md 3.3) stands for; a
#: reason this controller does not know is a plain refusal.
REJECTED: Final[dict[str, Cause]] = {
    RejectReason.IDENTITY: Cause.WRONG_SERIAL,
    RejectReason.PROTOCOL: Cause.WRONG_PROTOCOL,
}


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

    def __post_init__(self) -> None:
        self.table = Table(self.spec, self.config)
        self.results = deque(maxlen=self.keep_results)
        self.devices = {name: DeviceStatus() for name in DEVICES}

    @property
    def pauses(self) -> list[Pause]:
        """What holds the table, device by device in a fixed order (docs/app.md, Devices
        lost and found)."""
        pauses = []
        for name in DEVICES:
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

    def take(self, kind: str, data: JsonObject) -> list[Event]:
        """Take one input record; the engine's events (none for a device event)."""
        self.records += 1
        self.fresh = False
        if kind in rec.SEQUENCED:
            origin = rec.origin_of(kind, data)
            device = self.devices.get(origin.device)
            if device is None:  # not setdefault: that would build a status for every input
                device = self.devices[origin.device] = DeviceStatus()
            device.boot, device.last_seq = origin.boot, origin.seq
            read = rec.shoe_read_of(kind, data)
            if read is not None:
                self.shoe_reads.append(read)
        if kind == rec.DEVICE:
            self._device_event(data)
            return []
        if kind == rec.SHOE_STATUS:
            self.shoe = rec.shoe_condition_of(data)
            return []
        if kind == rec.SEATING:
            try:
                change = seat_change_of(data)
            except SeatingError as exc:
                raise rec.RecordFormatError(kind, data, str(exc)) from None
            self.last_events = apply_change(self.table, change)
            return self.last_events
        if kind == rec.DECK:
            self.deck = rec.deck_of(data)
            return []
        if kind not in rec.ENGINE_INPUTS:
            return []
        inp = rec.input_of(kind, data)
        refusal = self._paused_refusal(inp)
        events: list[Event] = [refusal] if refusal is not None else self.table.apply(inp)
        self.last_events = events
        for event in events:
            if isinstance(event, HandSettled | HandVoided):
                self._finished(event)
        return events

    def _paused_refusal(self, inp: TableInput) -> Refused | None:
        """A new hand is refused while a device pauses the table: its cards could not all be
        read and known by their tags (NOTES.md, Integrity; docs/app.md, Devices lost and found).
        Decided from the records alone, so a replay refuses it again. An integrity alarm holds
        a hand in play, and the engine refuses a new hand then."""
        pauses = self.pauses
        if not pauses or inp != NEW_HAND:
            return None
        held = "; ".join(f"{pause.device} {pause.cause}" for pause in pauses)
        return Refused(
            "new_hand",
            f"the table is paused ({held}); press new hand again once the pause has ended",
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
            if self.fresh:
                try:
                    self.restore(record.data)
                except ConfigError as exc:  # the hand it carries ends elsewhere than it says
                    raise CheckpointMismatch(record, "hand", "as recorded", str(exc)) from None
            else:
                self._compare(record)
            return
        if record.kind in rec.DECISIONS:
            expected = record.data.get("events")
            got = rec.events_json(self.last_events)
            if expected != got:
                raise ReplayMismatch(record, expected, got)
            journaled = rec.hand_terms_of(record.data) if record.kind == rec.HAND_STARTED else None
            if journaled is not None and journaled != self.terms:
                raise StakesChanged(record, journaled, self.terms)
            return
        self.take(record.kind, record.data)

    def _device_event(self, data: JsonObject) -> None:
        name = str(data.get("device"))
        device = self.devices.setdefault(name, DeviceStatus())
        event = data.get("event")
        rejected = str(data.get("rejected"))
        device.refused = REJECTED.get(rejected, Cause.REFUSED) if event == "refused" else None
        if event == "ready":
            device.connected = True
            device.restarted = data.get("outcome") == "restarted"
            lost = _lost_of(data)
            device.lost = "" if lost is None else str(lost)
            if device.restarted:
                device.message = (
                    f"{name} restarted: reads it had not sent before the power cycle are lost; "
                    "check every card on the table against the display, press misdeal if one "
                    "is missing"
                )
            elif lost is not None:
                device.message = _lost_message(name, device.lost)
            else:
                device.message = ""
            boot = data.get("boot")
            if isinstance(boot, str) and boot != device.boot:
                device.boot, device.last_seq = boot, None
            if lost is not None:
                # The driver's place moved past them: a restarted controller resumes there.
                device.last_seq = lost.last
        else:
            device.connected = False
            device.message = str(data.get("reason", ""))

    # --- checkpoints (docs/journal.md, Checkpoints) ----------------------------------------

    def checkpoint(self) -> JsonObject:
        """Everything the core needs to continue without the records before now."""
        return {
            "engine": rec.table_checkpoint_json(self.table.checkpoint()),
            # What its last hand was dealt under: a restart replays that hand under them, though
            # the configuration's stakes changed since (docs/journal.md, A hand's terms).
            "terms": self.terms.fields(),
            "devices": {
                name: {
                    "connected": d.connected,
                    "message": d.message,
                    "boot": d.boot,
                    "last_seq": d.last_seq,
                    "restarted": d.restarted,
                    "refused": None if d.refused is None else d.refused.value,
                    "lost": d.lost,
                }
                for name, d in self.devices.items()
            },
            "totals": {
                "records": self.records,
                "finished": self.finished,
                "voided": self.voided,
                "showdowns": self.showdowns,
                "net": [[seat, amount] for seat, amount in sorted(self.net.items())],
            },
            # The deck in play and the shoe's last reads: a restart from here puts the same
            # deck in play and still drops a repeat of a read just before (docs/app.md).
            "deck": None if self.deck is None else self.deck.fields(),
            # A fault reported before the hand's end still holds the table after a restart.
            "shoe": self.shoe.fields(),
            "shoe_reads": [
                [r.boot, r.uid, r.point.value, r.read_ms]
                for r in list(self.shoe_reads)[-READS_CHECKPOINTED:]
            ],
        }

    def restore(self, data: JsonObject) -> None:
        """Continue from a checkpoint record's data (a fresh core's start-up replay)."""
        try:
            self.table = _restored_table(
                self.spec,
                self.config,
                rec.table_checkpoint_of(data["engine"]),
                rec.hand_terms_of(data, rec.CHECKPOINT),
            )
            devices, totals = data["devices"], data["totals"]
            if not isinstance(devices, dict) or not isinstance(totals, dict):
                raise TypeError("devices and totals are objects")
            for name, fields_ in devices.items():
                if not isinstance(fields_, dict):
                    raise TypeError(f"device {name} is an object")
                boot, last_seq = fields_.get("boot"), fields_.get("last_seq")
                self.devices[name] = DeviceStatus(
                    connected=fields_.get("connected") is True,
                    message=str(fields_.get("message", "")),
                    boot=boot if isinstance(boot, str) else None,
                    last_seq=last_seq if isinstance(last_seq, int) else None,
                    restarted=fields_.get("restarted") is True,
                    refused=_cause_of(fields_.get("refused")),
                    lost=str(fields_.get("lost", "")),
                )
            self.records = int(str(totals["records"]))
            self.finished = int(str(totals["finished"]))
            self.voided = int(str(totals["voided"]))
            self.showdowns = int(str(totals["showdowns"]))
            net = totals["net"]
            if not isinstance(net, list):
                raise TypeError("net is a list")
            self.net = {
                int(str(pair[0])): int(str(pair[1])) for pair in net if isinstance(pair, list)
            }
            deck = data.get("deck")
            self.deck = rec.deck_of(deck) if isinstance(deck, dict) else None
            shoe = data.get("shoe")  # absent from a checkpoint written before it was kept
            self.shoe = (
                rec.shoe_condition_of(shoe) if isinstance(shoe, dict) else rec.ShoeCondition()
            )
            self.shoe_reads.clear()
            reads = data.get("shoe_reads", [])
            if not isinstance(reads, list):
                raise TypeError("shoe_reads is a list")
            for read in reads:
                if not isinstance(read, list) or len(read) != 4:
                    raise TypeError(f"a shoe read is [boot, uid, point, read_ms], not {read}")
                boot, uid, point, read_ms = read
                self.shoe_reads.append(
                    rec.ShoeRead(str(boot), str(uid), ReadPoint(str(point)), int(str(read_ms)))
                )
        except ConfigError:
            raise
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise rec.RecordFormatError(
                rec.CHECKPOINT, data, f"expected a checkpoint this controller writes: {exc}"
            ) from None
        self.fresh = False

    def _compare(self, record: Record) -> None:
        try:
            now = self.checkpoint()
        except ValueError as exc:
            raise CheckpointMismatch(record, "table", "between hands", str(exc)) from None
        for part in ("engine", "totals", "deck"):
            if now[part] != record.data.get(part):
                raise CheckpointMismatch(record, part, record.data.get(part), now[part])
        if "shoe" in record.data and now["shoe"] != record.data["shoe"]:
            raise CheckpointMismatch(record, "shoe", record.data["shoe"], now["shoe"])
        # Whether a device is connected is not compared: a restart makes it unknown until
        # the device says hello again, and the journal does not record restarts.
        kept = record.data.get("devices")
        devices = now["devices"]
        assert isinstance(devices, dict)
        for name, fields_ in devices.items():
            assert isinstance(fields_, dict)
            was = kept.get(name) if isinstance(kept, dict) else None
            for key in ("boot", "last_seq"):
                if not isinstance(was, dict) or was.get(key) != fields_[key]:
                    got = was.get(key) if isinstance(was, dict) else None
                    raise CheckpointMismatch(record, f"{name} {key}", got, fields_[key])


def _restored_table(
    spec: GameSpec, config: TableConfig, cp: TableCheckpoint, dealt: rec.HandTerms | None
) -> Table:
    """The table a checkpoint continues. Its last hand is replayed under the stakes and house
    rules it was dealt under (None: a checkpoint written before they were kept, so the
    configuration's stakes and ``RULES_BEFORE_JOURNALED``). When the configuration now posts
    others (changed between hands, 13:69F-8.3), the table continues under those from between
    hands: undo no longer reaches into that last hand, which a replay under the new terms
    would settle otherwise."""
    if dealt is None:
        dealt = rec.HandTerms(config.stakes, rec.RULES_BEFORE_JOURNALED)
    if dealt.stakes == config.stakes and dealt.rules == config.rules:
        return Table.from_checkpoint(spec, config, cp)
    then = replace(config, stakes=dealt.stakes, rules=dealt.rules)
    Table.from_checkpoint(spec, then, cp)  # it holds together
    between = replace(cp, start_stacks=(), start_dealer=0, inputs=(), closed=False, after=())
    return Table.from_checkpoint(spec, config, between)


def _cause_of(value: object) -> Cause | None:
    """A checkpoint's ``refused``: the refusal's cause, or None (not refused)."""
    return Cause(value) if isinstance(value, str) and value in set(Cause) else None


def _lost_of(data: JsonObject) -> LostRange | None:
    """A device record's lost sequence numbers, or None: not a loss."""
    if data.get("outcome") != "lost":
        return None
    match data.get("lost"):
        case [int() as first, int() as last]:
            return LostRange(first, last)
    raise rec.RecordFormatError(rec.DEVICE, data, "expected lost as [first, last] sequence numbers")


def _lost_message(name: str, numbers: str) -> str:
    """What the dealer must do when a device's sentences were lost (docs/app.md)."""
    if name == "panel":
        return (
            f"panel button presses {numbers} never arrived; check the seat to act on the "
            "display and press again any button it does not show"
        )
    return (
        f"{name} sentences {numbers} never arrived (card reads or shoe states); check every "
        "card on the table against the display, press misdeal if one is missing"
    )


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
