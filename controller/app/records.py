"""The journal's records of the table: one per input (card, tag, button, device event), one per
decision (the events an input caused). Pure: dicts in, dicts out. Their declarations, versions
and the JSON Schema are controller/app/schema.py's; this module reads them into the engine's
and the drivers' own types (inputs, stakes, the checkpoint).

Every input record carries the device, its ``boot`` and the sentence's ``seq``
(docs/journal.md, Durability), so a restarted controller recognises the
device's resend of a sentence it journaled but never acknowledged.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields
from typing import Final, TypeVar

from controller.app import schema
from controller.app.schema import RecordFormatError as RecordFormatError  # noqa: PLC0414 re-exported
from controller.cards import Card
from controller.engine.checkpoint import SeatStack, TableCheckpoint
from controller.engine.config import ConfigError, HouseRules, ShortAllIn, Stakes
from controller.engine.events import Event
from controller.inputs import Button, ButtonPress, CardRead, ForeignTag, ReadPoint, TableInput
from controller.journal import JsonObject, JsonValue
from drivers.sentences import Feed, Lid, Reader

#: Inputs the engine takes.
CARD: Final = "card"
TAG: Final = "tag"
BUTTON: Final = "button"
#: Device sentences that are not engine inputs, journaled so their seq is kept in order.
SHOE_STATUS: Final = "shoe_status"
RFID_REPEAT: Final = "rfid_repeat"
#: A link event: device ready (with its outcome), lost or refused.
DEVICE: Final = "device"
#: The deck in play for a hand, journaled as the hand starts (NOTES.md, Shuffle, cut and decks).
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
    """Which sentence of which device boot a record came from."""

    device: str
    boot: str
    seq: int

    def fields(self) -> JsonObject:
        return {"device": self.device, "boot": self.boot, "seq": self.seq}


def input_data(inp: TableInput, origin: Origin) -> tuple[str, JsonObject]:
    """The kind and data of an engine input's record."""
    data = origin.fields()
    kind, fields_ = input_fields(inp)
    data.update(fields_)
    return kind, data


def input_fields(inp: TableInput) -> tuple[str, JsonObject]:
    """The kind and fields of an engine input, without its origin (``input_of`` reads both)."""
    if isinstance(inp, CardRead):
        return CARD, {"card": inp.card.code, "point": inp.point.value}
    if isinstance(inp, ForeignTag):
        return TAG, {"uid": inp.tag, "point": inp.point.value, "reason": inp.reason}
    return BUTTON, {"button": inp.button.value}


def input_of(kind: str, data: JsonObject) -> TableInput:
    """The engine input an input record holds."""
    try:
        if kind == CARD:
            return CardRead(Card.parse(str(data["card"])), ReadPoint(str(data["point"])))
        if kind == TAG:
            return ForeignTag(str(data["uid"]), str(data["reason"]), ReadPoint(str(data["point"])))
        if kind == BUTTON:
            return ButtonPress(Button(str(data["button"])))
    except (KeyError, ValueError) as exc:
        raise RecordFormatError(kind, data, f"expected an input's fields: {exc}") from None
    raise RecordFormatError(kind, data, f"expected one of {sorted(ENGINE_INPUTS)}")


def origin_of(kind: str, data: JsonObject) -> Origin:
    """The device sentence a sequenced record came from."""
    device, boot, seq = data.get("device"), data.get("boot"), data.get("seq")
    if not (isinstance(device, str) and isinstance(boot, str) and isinstance(seq, int)):
        raise RecordFormatError(kind, data, "expected device, boot and seq")
    return Origin(device, boot, seq)


@dataclass(frozen=True, slots=True)
class DeckInPlay:
    """The deck in play from the start of hand ``hand`` (a ``deck`` record)."""

    hand: int
    deck: str

    def fields(self) -> JsonObject:
        return {"hand": self.hand, "deck": self.deck}


def deck_of(data: JsonObject) -> DeckInPlay:
    """The deck in play a ``deck`` record names."""
    hand, deck = data.get("hand"), data.get("deck")
    if not (isinstance(hand, int) and isinstance(deck, str)):
        raise RecordFormatError(DECK, data, "expected hand (a number) and deck (a name)")
    return DeckInPlay(hand, deck)


@dataclass(frozen=True, slots=True)
class ShoeRead:
    """A tag read by the shoe as a record keeps it, for its RFID repeat filter
    (docs/protocol.md 7): the boot, the tag, the read point and the shoe's clock."""

    boot: str
    uid: str
    point: ReadPoint
    read_ms: int


def shoe_read_of(kind: str, data: JsonObject) -> ShoeRead | None:
    """The shoe's read a ``card``, ``tag`` or ``rfid_repeat`` record holds; None for another
    record, or one written before reads were journaled with their ``uid`` and ``read_ms``."""
    if kind not in (CARD, TAG, RFID_REPEAT) or data.get("device") != "shoe":
        return None
    boot, uid, point, read_ms = (
        data.get("boot"),
        data.get("uid"),
        data.get("point"),
        data.get("read_ms"),
    )
    if not (isinstance(uid, str) and isinstance(read_ms, int)):
        return None
    if not (isinstance(boot, str) and isinstance(point, str)):
        raise RecordFormatError(kind, data, "expected the read's boot and point")
    try:
        return ShoeRead(boot, uid, ReadPoint(point), read_ms)
    except ValueError as exc:
        raise RecordFormatError(kind, data, f"expected a read point: {exc}") from None


@dataclass(frozen=True, slots=True)
class ShoeCondition:
    """The shoe's state as it last reported it (docs/protocol.md 3.1 ``STA``)."""

    lid: Lid = Lid.CLOSED
    reader: Reader = Reader.OK
    feed: Feed = Feed.OK

    def fields(self) -> JsonObject:
        return {"lid": self.lid.value, "reader": self.reader.value, "feed": self.feed.value}


def shoe_condition_of(data: JsonObject) -> ShoeCondition:
    """The shoe's state a ``shoe_status`` record (or a checkpoint's ``shoe``) holds."""
    return ShoeCondition(
        _shoe_word(data, "lid", Lid),
        _shoe_word(data, "reader", Reader),
        _shoe_word(data, "feed", Feed),
    )


_Word = TypeVar("_Word", Lid, Reader, Feed)


def _shoe_word(data: JsonObject, part: str, words: type[_Word]) -> _Word:
    word = data.get(part)
    if isinstance(word, str) and word in set(words):
        return words(word)
    allowed = ", ".join(w.value for w in words)
    raise RecordFormatError(SHOE_STATUS, data, f"{part} {word!r}: expected one of {allowed}")


@dataclass(frozen=True, slots=True)
class HandTerms:
    """What a hand is dealt under, journaled in its ``hand_started`` record as ``terms``
    (docs/journal.md, A hand's terms): the stakes and the house rules posted at the table
    (13:69F-8.3; NOTES.md, House rules), so a replay, recall and the export take each hand
    under its own after the configuration changed.
    """

    stakes: Stakes
    rules: HouseRules = field(default_factory=HouseRules)

    def fields(self) -> JsonObject:
        return {"stakes": stakes_json(self.stakes), "rules": rules_json(self.rules)}


#: The rules every hand was dealt under before hands recorded their rules: the full-bet
#: short all-in (NOTES.md's default then), NOTES.md's defaults otherwise. A record of terms
#: without rules is read as these, so such a journal replays as it was dealt.
RULES_BEFORE_JOURNALED: Final = HouseRules(short_all_in=ShortAllIn.FULL_BET)


def rules_json(rules: HouseRules) -> JsonObject:
    """Every house rule by name (``short_all_in`` as its word, the rest true or false)."""
    return dict(rules.as_words())


def rules_of(data: JsonValue, kind: str = HAND_STARTED) -> HouseRules:
    """The house rules a record's ``rules`` object holds; RecordFormatError names what is
    wrong (an unknown rule, a word or a type the rule does not take)."""
    detail: JsonObject = {"rules": data}
    if not isinstance(data, dict):
        raise RecordFormatError(kind, detail, "expected the house rules as an object")
    try:
        return HouseRules.from_words(data)
    except ConfigError as error:
        raise RecordFormatError(kind, detail, str(error)) from None


def stakes_json(stakes: Stakes) -> JsonObject:
    """Every field of the stakes, by name (a field added later is read back by its default)."""
    return {f.name: getattr(stakes, f.name) for f in fields(stakes)}


#: The stakes' fields a record may hold, and the JSON type each takes (rake_cap: also null).
_STAKES_TYPES: Final[dict[str, type]] = {
    f.name: bool if f.name == "rake_without_showdown" else int for f in fields(Stakes)
}
#: The stakes' fields without a default: every record of stakes holds them.
_STAKES_REQUIRED: Final = tuple(f.name for f in fields(Stakes) if f.default is MISSING)


def stakes_of(data: JsonValue, kind: str = HAND_STARTED) -> Stakes:
    """The stakes a record's ``stakes`` object holds; RecordFormatError names what is wrong."""
    detail: JsonObject = {"stakes": data}
    if not isinstance(data, dict):
        raise RecordFormatError(kind, detail, "expected the stakes as an object")
    unknown = sorted(set(data) - set(_STAKES_TYPES))
    if unknown:
        raise RecordFormatError(
            kind, detail, f"{', '.join(unknown)}: expected only {', '.join(_STAKES_TYPES)}"
        )
    for name, value in data.items():
        expected = _STAKES_TYPES[name]
        # type(), not isinstance(): JSON's true is an int to Python, and no amount of chips.
        if type(value) is not expected and not (name == "rake_cap" and value is None):
            raise RecordFormatError(kind, detail, f"{name} {value!r}: expected {expected.__name__}")
    missing = [name for name in _STAKES_REQUIRED if name not in data]
    if missing:
        raise RecordFormatError(kind, detail, f"expected {' and '.join(missing)}")
    try:
        return Stakes(**data)  # type: ignore[arg-type]  # each value's type checked above
    except ConfigError as exc:  # amounts the table would not have been configured with
        raise RecordFormatError(kind, detail, str(exc)) from None


def hand_terms_of(data: JsonObject, kind: str = HAND_STARTED) -> HandTerms | None:
    """The terms a ``hand_started`` record (or a checkpoint, of its last hand) holds; None for
    a record written before hands recorded them (the reader falls back on the configuration's
    stakes, and says so, and on ``RULES_BEFORE_JOURNALED``); terms without rules were dealt
    under ``RULES_BEFORE_JOURNALED``."""
    terms = data.get("terms")
    if terms is None:
        return None
    if not isinstance(terms, dict) or "stakes" not in terms:
        detail: JsonObject = {"terms": terms}
        raise RecordFormatError(kind, detail, "expected terms as an object with stakes")
    unknown = sorted(set(terms) - {"stakes", "rules"})
    if unknown:
        detail = {"terms": terms}
        raise RecordFormatError(kind, detail, f"{', '.join(unknown)}: expected stakes and rules")
    rules = terms.get("rules")
    return HandTerms(
        stakes_of(terms["stakes"], kind),
        RULES_BEFORE_JOURNALED if rules is None else rules_of(rules, kind),
    )


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
    """Events as the decision record keeps them (controller/app/schema.py, ``encode``)."""
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


def table_checkpoint_of(data: JsonValue) -> TableCheckpoint:
    """The engine's checkpoint a checkpoint record holds; RecordFormatError if malformed."""
    try:
        if not isinstance(data, dict):
            raise TypeError("not an object")
        return TableCheckpoint(
            hand=_int(data["hand"]),
            phase=str(data["phase"]),
            dealer=_int(data["dealer"]),
            seats=tuple(_int(seat) for seat in _list(data["seats"])),
            stacks=_stacks_of(data["stacks"]),
            start_stacks=_stacks_of(data["start_stacks"]),
            start_dealer=_int(data["start_dealer"]),
            inputs=_inputs_of(data["inputs"]),
            closed=data["closed"] is True,
            after=_inputs_of(data["after"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        detail: JsonObject = {"engine": data}
        raise RecordFormatError(
            CHECKPOINT, detail, f"expected the engine's checkpoint fields ({exc})"
        ) from None


def _int(value: JsonValue) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{value!r} is not a whole number")
    return value


def _list(value: JsonValue) -> list[JsonValue]:
    if not isinstance(value, list):
        raise TypeError(f"{value!r} is not a list")
    return value


def _stacks_of(value: JsonValue) -> tuple[SeatStack, ...]:
    pairs: list[SeatStack] = []
    for pair in _list(value):
        seat, stack = _list(pair)
        pairs.append((_int(seat), None if stack is None else _int(stack)))
    return tuple(pairs)


def _inputs_of(value: JsonValue) -> tuple[TableInput, ...]:
    inputs: list[TableInput] = []
    for item in _list(value):
        if not isinstance(item, dict):
            raise TypeError(f"{item!r} is not an input")
        inputs.append(input_of(str(item.get("kind")), item))
    return tuple(inputs)
