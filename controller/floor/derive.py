"""What the floor keeps in SQL from a table's records (docs/floor.md, The store): its hands, its
own alarms and its devices. Pure: records in, rows out.

Records are read through the journal's schema (``controller.journal.schema.decode``), never by
string keys, and in chain order: the floor derives from a record only once it has joined the
chain behind the head (the witness's ``linked``), so a hand's cards and actions are appended in
the order the table dealt them whatever order the records reached the floor in.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

from controller.journal import JsonObject, JsonValue, Record, schema
from controller.journal import tablerecords as rec
from controller.poker.announce import alarm_read, told
from controller.poker.engine import events as ev


@dataclass(slots=True)
class HandRow:
    """The part of one hand a batch adds: a new hand's terms, cards and actions to append, its
    pots and settlement once settled."""

    hand: int
    last_seq: int
    game: str | None = None
    started_seq: int | None = None
    started_at: str | None = None
    stakes: JsonValue = None
    rules: JsonValue = None
    seats: JsonValue = None
    dealer: int | None = None
    cards: list[JsonValue] = field(default_factory=list)
    actions: list[JsonValue] = field(default_factory=list)
    pots: JsonValue = None
    settlement: JsonValue = None
    finished: bool = False
    voided: bool = False


@dataclass(frozen=True, slots=True)
class TableAlarm:
    """An Alarm event the table journaled (an integrity alarm: docs/app.md)."""

    seq: int
    at: str
    kind: str
    message: str


@dataclass(frozen=True, slots=True)
class DeviceRow:
    """A ``device`` record: a device ready, lost or refused."""

    seq: int
    at: str
    data: schema.DeviceData


@dataclass(frozen=True, slots=True)
class Refused:
    """A record whose hash and link hold but whose data this floor's schema does not read (a
    newer version from a table upgraded first, or data no tablectl writes): it is stored, as
    evidence, and raised as a floor alarm; nothing is derived from it."""

    seq: int
    at: str
    message: str


@dataclass(slots=True)
class Derived:
    """What a journal's newly linked records give the store."""

    current_hand: int | None
    hands: dict[int, HandRow] = field(default_factory=dict)
    alarms: list[TableAlarm] = field(default_factory=list)
    devices: list[DeviceRow] = field(default_factory=list)
    refused: list[Refused] = field(default_factory=list)


def derive(records: Iterable[Record], current_hand: int | None) -> Derived:
    """The rows ``records`` (linked, in chain order) add, the journal at hand ``current_hand``."""
    out = Derived(current_hand)
    for record in records:
        try:
            _record(out, record)
        except rec.RecordFormatError as error:  # a SchemaError too: never a stopped floor
            # The schema's reason without the value it quotes ("..., not VALUE"): the value
            # may be a hole card, and a floor alarm is shown to supervisors. The record itself
            # is stored, for who may read it.
            reason = str(error).split(", not ", 1)[0]
            out.refused.append(Refused(record.seq, record.ts, reason))
    return out


def _record(out: Derived, record: Record) -> None:
    if record.kind == "device":
        data = schema.decode(record)
        assert isinstance(data, schema.DeviceData)
        out.devices.append(DeviceRow(record.seq, record.ts, data))
    elif record.kind in rec.DECISIONS:
        for event, journaled in schema.kept_events(record, KEPT):
            _event(out, record, event, journaled)


def _row(out: Derived, record: Record, hand: int | None) -> HandRow | None:
    if hand is None:
        return None  # the journal began mid-hand (a rotated-away start): no hand to add to
    row = out.hands.get(hand)
    if row is None:
        row = out.hands[hand] = HandRow(hand, record.seq)
    row.last_seq = record.seq
    return row


#: The events a hand's row is made of (``_event``), by the kind they are journaled as. The
#: others (the dealer's prompts: action_required, card_expected, street and round starts) are
#: kept in the records, and not decoded here: they are half a hand's events.
KEPT: Final = frozenset(
    cls.kind
    for cls in (
        ev.HandStarted,
        ev.Alarm,
        ev.CardDealt,
        ev.CardMucked,
        ev.CardDiscarded,
        ev.BlindPosted,
        ev.ActionTaken,
        ev.DrawDeclared,
        ev.Undone,
        ev.Showdown,
        ev.HandSettled,
        ev.HandVoided,
    )
)


def _event(out: Derived, record: Record, event: ev.Event, journaled: JsonObject) -> None:
    """Add ``event`` to the hand's row; ``journaled`` is its JSON as the record holds it (the
    schema's encoding of it), stored as it is."""
    if isinstance(event, ev.HandStarted):
        out.current_hand = event.hand
        row = _row(out, record, event.hand)
        assert row is not None
        terms = rec.hand_terms_of(record.data)
        row.game, row.started_seq, row.started_at = event.game, record.seq, record.ts
        row.seats, row.dealer = list(event.seats), event.dealer
        if terms is not None:
            row.stakes = schema.encode(terms.stakes)
            row.rules = dict(terms.rules.as_words())
        row.actions.append(journaled)  # the antes
        return
    if isinstance(event, ev.Alarm):
        out.alarms.append(
            # As the table may be told (announce.alarm_read, announce.told: the other deck's
            # card its reason names too): the card stays in the records.
            TableAlarm(
                record.seq,
                record.ts,
                "table_alarm",
                f"{alarm_read(event)}: {told(event, event.reason)}",
            )
        )
    row = _row(out, record, out.current_hand)
    if row is None:
        return
    if isinstance(event, ev.CardDealt | ev.CardMucked | ev.CardDiscarded):
        row.cards.append(journaled)
    elif isinstance(event, ev.BlindPosted | ev.ActionTaken | ev.DrawDeclared | ev.Undone):
        row.actions.append(journaled)
    elif isinstance(event, ev.Showdown):
        row.settlement = {"showdown": journaled}
    elif isinstance(event, ev.HandSettled):
        row.pots = [schema.encode(pot) for pot in event.pots]
        shown = row.settlement if isinstance(row.settlement, dict) else {}
        row.settlement = {**shown, "settled": journaled}
        row.finished = True
    elif isinstance(event, ev.HandVoided):
        row.settlement = {"voided": journaled}
        row.finished = row.voided = True
