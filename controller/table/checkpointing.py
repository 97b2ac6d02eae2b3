"""A hand's end checkpoint (docs/journal.md, Checkpoints): what ``TableCore`` writes, how a fresh
core continues from one, and how a whole replay checks each one it meets. Pure.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from controller.journal import JsonObject, Record, schema
from controller.journal import tablerecords as rec
from controller.poker.engine import Table, TableSetup
from controller.poker.engine.checkpoint import TableCheckpoint
from controller.poker.games.spec import GameSpec
from controller.table.devicestate import Cause, DeviceStatus

if TYPE_CHECKING:
    from controller.table.core import TableCore

#: How many of the shoe's last reads a checkpoint carries: a repeat comes within the shoe's
#: window (0.5 s), and no dealer reads this many cards in half a second.
READS_CHECKPOINTED = 32


class CheckpointMismatch(Exception):
    """A checkpoint record disagrees with the table its records before it replay to."""

    def __init__(self, record: Record, what: str, expected: object, got: object) -> None:
        super().__init__(
            f"journal seq {record.seq}: checkpoint's {what} is {expected}, but the records "
            f"before it replay to {got}; the journal was edited or the code changed, so the "
            "table stays closed until the journal is looked at (tablectl journal verify)"
        )


def checkpoint_data(core: TableCore) -> JsonObject:
    """Everything the core needs to continue without the records before now."""
    return {
        "engine": rec.table_checkpoint_json(core.table.checkpoint()),
        # What its last hand was dealt under: a restart replays that hand under them, though
        # the configuration's stakes changed since (docs/journal.md, A hand's terms).
        "terms": core.terms.fields(),
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
            for name, d in core.devices.items()
        },
        "totals": {
            "records": core.records,
            "finished": core.finished,
            "voided": core.voided,
            "showdowns": core.showdowns,
            "net": [[seat, amount] for seat, amount in sorted(core.net.items())],
        },
        # The deck in play and the shoe's last reads: a restart from here puts the same
        # deck in play and still drops a repeat of a read just before (docs/app.md).
        "deck": None if core.deck is None else core.deck.fields(),
        # A fault reported before the hand's end still holds the table after a restart.
        "shoe": core.shoe.fields(),
        "shoe_reads": [
            [r.boot, r.uid, r.point.value, r.read_ms]
            for r in list(core.shoe_reads)[-READS_CHECKPOINTED:]
        ],
        # A start's replay begins here: it reads the records after under this version.
        "version": schema.VERSION,
    }


def restore(core: TableCore, data: JsonObject) -> None:
    """Continue from a checkpoint record's data (a fresh core's start-up replay), read as the
    schema declares it (``schema.CheckpointData``); a SchemaError names the field."""
    cp: schema.CheckpointData = schema.decode_data(rec.CHECKPOINT, data, "checkpoint")
    core.table = _restored_table(
        core.spec,
        core.config,
        rec.table_checkpoint_of(cp.engine),
        None if cp.terms is None else rec.terms_of(cp.terms),
    )
    for name, device in cp.devices.items():
        core.devices[name] = DeviceStatus(
            connected=device.connected,
            message=device.message,
            boot=device.boot,
            last_seq=device.last_seq,
            restarted=device.restarted,
            refused=_cause_of(device.refused),
            lost=device.lost,
        )
    totals = cp.totals
    core.records, core.finished = totals.records, totals.finished
    core.voided, core.showdowns = totals.voided, totals.showdowns
    core.net = dict(totals.net)
    core.deck = None if cp.deck is None else rec.DeckInPlay(cp.deck.hand, cp.deck.deck)
    # Absent from a checkpoint written before the shoe's state was kept: all clear.
    shoe = cp.shoe
    core.shoe = (
        rec.ShoeCondition() if shoe is None else rec.ShoeCondition(shoe.lid, shoe.reader, shoe.feed)
    )
    core.shoe_reads.clear()
    core.shoe_reads.extend(rec.ShoeRead(*read) for read in cp.shoe_reads)
    core.fresh = False


def compare(core: TableCore, record: Record) -> None:
    try:
        now = checkpoint_data(core)
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
    spec: GameSpec, config: TableSetup, cp: TableCheckpoint, dealt: rec.HandTerms | None
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
