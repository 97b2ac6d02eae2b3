"""The journal's records of the table: one per input (card, tag, button, device event), one per
decision (the events an input caused). Pure: dicts in, dicts out. Their declarations, versions
and the JSON Schema are controller/journal/schema.py's; this module reads them into the engine's
and the drivers' own types (inputs, stakes, the checkpoint).

Every input record carries the device, its ``boot`` and the sentence's ``seq``
(docs/journal.md, Durability), so a restarted controller recognises the
device's resend of a sentence it journaled but never acknowledged.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Final

from controller.journal import JsonObject, JsonValue, codec, schema
from controller.journal.schema import RecordFormatError as RecordFormatError  # noqa: PLC0414 re-exported
from controller.poker.cards import Card
from controller.poker.engine.checkpoint import SeatStack, TableCheckpoint
from controller.poker.engine.events import Event
from controller.poker.engine.tablesetup import HouseRules, ShortAllIn, Stakes
from controller.poker.inputs import Button, ButtonPress, CardRead, ForeignTag, ReadPoint, TableInput
from drivers.seam.events import Feed, Lid, Reader

#: Inputs the engine takes.
CARD: Final = "card"
TAG: Final = "tag"
BUTTON: Final = "button"
#: Device sentences that are not engine inputs, journaled so their seq is kept in order.
SHOE_STATUS: Final = "shoe_status"
RFID_REPEAT: Final = "rfid_repeat"
#: A link event: device ready (with its outcome), lost or refused.
DEVICE: Final = "device"
#: The deck in play for a hand, journaled as the hand starts (rules-interpretation.md, Shuffle, cut
#: and decks).
DECK: Final = "deck"
#: The events an input caused; a hand's first decision is kind ``hand_started`` (the
#: journal's rotation begins each file with one).
DECISION: Final = "decision"
HAND_STARTED: Final = "hand_started"
#: At every hand's end: everything the core needs to continue without the records before it
#: (docs/journal.md, Checkpoints).
CHECKPOINT: Final = "checkpoint"
#: A seat change between hands (sit, leave, rebuy) from the floor's control socket; its
#: decision record follows it like an engine input's (docs/journal.md, Seat changes).
SEATING: Final = "seating"

ENGINE_INPUTS: Final = frozenset({CARD, TAG, BUTTON})
SEQUENCED: Final = frozenset({CARD, TAG, BUTTON, SHOE_STATUS, RFID_REPEAT})
DECISIONS: Final = frozenset({DECISION, HAND_STARTED})


@dataclass(frozen=True, slots=True)
class Origin:
    """Which message of which session of a device a record came from: the device's own boot
    and sequence number, or, for a device that numbers nothing, the host's session boot id
    and its own numbers (docs/drivers.md, Devices without sequence numbers)."""

    device: str
    boot: str
    seq: int

    def fields(self) -> JsonObject:
        return {"device": self.device, "boot": self.boot, "seq": self.seq}

    def fields_tuple(self) -> tuple[str, str, int]:
        return self.device, self.boot, self.seq


#: The records of an engine input, as the schema declares them.
InputRecord = schema.CardData | schema.TagData | schema.ButtonData


def input_record(
    inp: TableInput, origin: Origin, uid: str | None = None, read_ms: int | None = None
) -> InputRecord:
    """The record of an engine input from the sentence ``origin`` names; a shoe's read keeps
    its tag's ``uid`` and the shoe's clock (``read_ms``) for a restart's repeat filter."""
    device, boot, seq = origin.device, origin.boot, origin.seq
    if isinstance(inp, CardRead):
        return schema.CardData(device, boot, seq, inp.card.code, inp.point, uid, read_ms)
    if isinstance(inp, ForeignTag):
        return schema.TagData(device, boot, seq, inp.tag, inp.point, inp.reason, read_ms)
    return schema.ButtonData(device, boot, seq, inp.button)


def input_data(inp: TableInput, origin: Origin) -> tuple[str, JsonObject]:
    """The kind and data of an engine input's record."""
    return schema.record(input_record(inp, origin))


def input_fields(inp: TableInput) -> tuple[str, JsonObject]:
    """The kind and fields of an engine input, without its origin (``input_of`` reads both)."""
    if isinstance(inp, CardRead):
        return CARD, {"card": inp.card.code, "point": inp.point.value}
    if isinstance(inp, ForeignTag):
        return TAG, {"uid": inp.tag, "point": inp.point.value, "reason": inp.reason}
    return BUTTON, {"button": inp.button.value}


def input_of(value: InputRecord) -> TableInput:
    """The engine input an input record holds."""
    if isinstance(value, schema.CardData):
        return CardRead(_card(value.card, CARD), value.point)
    if isinstance(value, schema.TagData):
        return ForeignTag(value.uid, value.reason, value.point)
    return ButtonPress(value.button)


def _card(code: str, kind: str) -> Card:
    try:
        return Card.parse(code)
    except ValueError as exc:
        raise RecordFormatError(kind, {"card": code}, f"expected a card's code: {exc}") from None


#: The records a device's sentence journals, each with its device, boot and seq.
SequencedRecord = (
    schema.CardData
    | schema.TagData
    | schema.ButtonData
    | schema.ShoeStatusData
    | schema.RfidRepeatData
)


def origin_of(value: SequencedRecord) -> Origin:
    """The device sentence a sequenced record came from."""
    return Origin(value.device, value.boot, value.seq)


@dataclass(frozen=True, slots=True)
class DeckInPlay:
    """The deck in play from the start of hand ``hand`` (a ``deck`` record)."""

    hand: int
    deck: str

    def fields(self) -> JsonObject:
        return {"hand": self.hand, "deck": self.deck}


def deck_of(value: schema.DeckData) -> DeckInPlay:
    """The deck in play a ``deck`` record names."""
    return DeckInPlay(value.hand, value.deck)


@dataclass(frozen=True, slots=True)
class ShoeRead:
    """A tag read by the shoe as a record keeps it, for its RFID repeat filter
    (docs/protocol.md 7): the boot, the tag, the read point and the shoe's clock."""

    boot: str
    uid: str
    point: ReadPoint
    read_ms: int


def shoe_read_of(value: SequencedRecord) -> ShoeRead | None:
    """The shoe's read a ``card``, ``tag`` or ``rfid_repeat`` record holds; None for another
    record, or one written before reads were journaled with their ``uid`` and ``read_ms``."""
    if not isinstance(value, schema.CardData | schema.TagData | schema.RfidRepeatData):
        return None
    if value.device != "shoe" or value.uid is None or value.read_ms is None:
        return None
    return ShoeRead(value.boot, value.uid, value.point, value.read_ms)


@dataclass(frozen=True, slots=True)
class ShoeCondition:
    """The shoe's state as it last reported it (docs/protocol.md 3.1 ``STA``)."""

    lid: Lid = Lid.CLOSED
    reader: Reader = Reader.OK
    feed: Feed = Feed.OK

    def fields(self) -> JsonObject:
        return {"lid": self.lid.value, "reader": self.reader.value, "feed": self.feed.value}


def shoe_condition_of(value: schema.ShoeStatusData | schema.ShoeData) -> ShoeCondition:
    """The shoe's state a ``shoe_status`` record (or a checkpoint's ``shoe``) holds."""
    return ShoeCondition(value.lid, value.reader, value.feed)


@dataclass(frozen=True, slots=True)
class HandTerms:
    """What a hand is dealt under, journaled in its ``hand_started`` record as ``terms``
    (docs/journal.md, A hand's terms): the stakes and the house rules posted at the table
    (13:69F-8.3; rules-interpretation.md, House rules), so a replay, recall and the export take each
    hand under its own after the configuration changed.
    """

    stakes: Stakes
    rules: HouseRules = field(default_factory=HouseRules)

    def fields(self) -> JsonObject:
        return {"stakes": stakes_json(self.stakes), "rules": rules_json(self.rules)}


#: The rules every hand was dealt under before hands recorded their rules: the full-bet
#: short all-in (the default then), the defaults of rules-interpretation.md, House rules
#: otherwise. A record of terms
#: without rules is read as these, so such a journal replays as it was dealt.
RULES_BEFORE_JOURNALED: Final = HouseRules(short_all_in=ShortAllIn.FULL_BET)


def rules_json(rules: HouseRules) -> JsonObject:
    """Every house rule by name (``short_all_in`` as its word, the rest true or false)."""
    return dict(rules.as_words())


def stakes_json(stakes: Stakes) -> JsonObject:
    """Every field of the stakes, by name (a field added later is read back by its default)."""
    return {f.name: getattr(stakes, f.name) for f in fields(stakes)}


def hand_terms_of(data: JsonObject, kind: str = HAND_STARTED) -> HandTerms | None:
    """The terms a ``hand_started`` record (or a checkpoint, of its last hand) holds, read
    through the schema (``schema.TermsData``); None for a record written before hands recorded
    them (the reader falls back on the configuration's stakes, and says so, and on
    ``RULES_BEFORE_JOURNALED``); terms without rules were dealt under
    ``RULES_BEFORE_JOURNALED``. RecordFormatError names the field and what it expected."""
    terms = data.get("terms")
    if terms is None:
        return None
    try:
        read: schema.TermsData = _TERMS(terms)
    except codec.Misfit as error:
        detail: JsonObject = {"terms": terms}
        raise RecordFormatError(kind, detail, f"terms{error.where()}: {error.reason}") from None
    return terms_of(read)


_TERMS: Final = codec.decoder(schema.TermsData)


def terms_of(terms: schema.TermsData) -> HandTerms:
    """A hand's terms as the schema reads them."""
    rules = RULES_BEFORE_JOURNALED if terms.rules is None else terms.rules
    return HandTerms(terms.stakes, rules)


def decision_data(
    input_seq: int, events: list[Event], terms: HandTerms | None = None
) -> tuple[str, JsonObject]:
    """The kind and data of the decision record for the input journaled as ``input_seq``; a
    hand's first carries the ``terms`` it is dealt under (the controller always gives them;
    without, the record is as the journals before them were)."""
    kind = HAND_STARTED if any(e.kind == "hand_started" for e in events) else DECISION
    data: JsonObject = {"input": input_seq, "events": events_json(events)}
    if kind == HAND_STARTED:
        if terms is not None:
            data["terms"] = terms.fields()
        # Each file and each hand begins with the schema's version (docs/journal.md, The schema).
        data["version"] = schema.VERSION
    return kind, data


def events_json(events: list[Event]) -> list[JsonValue]:
    """Events as the decision record keeps them (controller/journal/schema.py, ``encode``)."""
    return schema.encode_events(events)


def _stacks_json(stacks: tuple[SeatStack, ...]) -> list[JsonValue]:
    return [[seat, stack] for seat, stack in stacks]


def _inputs_json(inputs: tuple[TableInput, ...]) -> list[JsonValue]:
    out: list[JsonValue] = []
    for inp in inputs:
        kind, data = input_fields(inp)
        out.append({"kind": kind, **data})
    return out


def table_checkpoint_json(cp: TableCheckpoint) -> JsonObject:
    """The engine's checkpoint as a checkpoint record holds it."""
    return {
        "hand": cp.hand,
        "phase": cp.phase,
        "dealer": cp.dealer,
        "seats": list(cp.seats),
        "stacks": _stacks_json(cp.stacks),
        "start_stacks": _stacks_json(cp.start_stacks),
        "start_dealer": cp.start_dealer,
        "inputs": _inputs_json(cp.inputs),
        "closed": cp.closed,
        "after": _inputs_json(cp.after),
    }


def table_checkpoint_of(engine: schema.EngineData) -> TableCheckpoint:
    """The engine's checkpoint a checkpoint record holds (its types checked by the schema)."""
    return TableCheckpoint(
        hand=engine.hand,
        phase=engine.phase,
        dealer=engine.dealer,
        seats=engine.seats,
        stacks=engine.stacks,
        start_stacks=engine.start_stacks,
        start_dealer=engine.start_dealer,
        inputs=tuple(_checkpoint_input(item) for item in engine.inputs),
        closed=engine.closed,
        after=tuple(_checkpoint_input(item) for item in engine.after),
    )


def _checkpoint_input(item: schema.InputData) -> TableInput:
    """An input of the checkpoint's hand (kept without its origin)."""
    try:
        if item.kind == CARD:
            return CardRead(_card(str(item.card), CHECKPOINT), ReadPoint(str(item.point)))
        if item.kind == TAG:
            return ForeignTag(str(item.uid), str(item.reason), ReadPoint(str(item.point)))
        if item.kind == BUTTON:
            return ButtonPress(Button(str(item.button)))
    except ValueError as exc:
        detail: JsonObject = {"input": schema.encode(item)}
        raise RecordFormatError(CHECKPOINT, detail, f"expected an input's fields: {exc}") from None
    detail = {"input": schema.encode(item)}
    raise RecordFormatError(CHECKPOINT, detail, f"expected one of {sorted(ENGINE_INPUTS)}")
