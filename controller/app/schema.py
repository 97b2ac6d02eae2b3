"""The journal's schema (issue 16): every record the table journals and every engine event a
decision record holds, declared once, versioned, with typed encode and decode. Pure: no I/O.

The declarations are dataclasses: the engine's own events (``controller.engine.events``) and,
for each record kind, the dataclass of its ``data`` below. ``encode`` writes a dataclass as the
journal keeps it, ``decode`` reads it back as the dataclass, refusing what does not fit with a
``SchemaError`` naming the record's seq and kind and the field; ``json_schema`` derives the
JSON Schema published in ``docs/schema/journal-v1.json`` (regenerate it with
``python -m controller.app.schemadoc``, which writes it; a test compares it byte for byte).

Versions (docs/journal.md, The schema): a hand's first decision record (``hand_started``) and
every checkpoint carry ``version``, so each file (it begins with a hand) and every start's
replay (it begins at a checkpoint) begins with it. Version 0 is a journal written before the
schema: the same records without ``version``. A reader takes every version it knows and refuses
a newer one, naming the record and its version.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import types
import typing
from collections.abc import Callable
from dataclasses import MISSING, dataclass
from enum import Enum
from typing import Any, Final, TypeVar, Union

from controller.engine import events as ev
from controller.engine.config import HouseRules, Stakes
from controller.inputs import Button, ReadPoint
from controller.journal import JsonObject, JsonValue, Record
from drivers.sentences import Feed, Lid, Reader

#: The version this code writes.
VERSION: Final = 1
#: Every version this code reads: 0 (no ``version``: before the schema) and 1.
VERSIONS_READ: Final = range(VERSION + 1)

#: Every event a decision record may hold, by its ``kind``.
EVENTS: Final[dict[str, type[ev.Event]]] = {
    cls.kind: cls
    for cls in (
        ev.HandStarted,
        ev.StreetStarted,
        ev.CardExpected,
        ev.CardDealt,
        ev.CardMucked,
        ev.BlindPosted,
        ev.DrawExpected,
        ev.CardDiscarded,
        ev.DrawDeclared,
        ev.DiscardsReshuffled,
        ev.RoundStarted,
        ev.ActionRequired,
        ev.ActionTaken,
        ev.RoundCompleted,
        ev.Showdown,
        ev.HandSettled,
        ev.HandVoided,
        ev.SeatsChanged,
        ev.Alarm,
        ev.Refused,
        ev.Undone,
        ev.NewHandExpected,
    )
}


class RecordFormatError(ValueError):
    """A journal record whose data is not what this controller writes (``records`` raises it
    for the data it reads into the engine's types)."""

    def __init__(self, kind: str, data: JsonObject, reason: str) -> None:
        super().__init__(f"journal record {kind} {data}: {reason}")


class SchemaError(RecordFormatError):
    """A record that does not fit the schema: names the record's seq and kind, the field and
    what was expected (or the version, when newer than this code reads). A RecordFormatError,
    so what refuses one (``tablectl run``, ``status``) refuses the other."""

    def __init__(self, message: str) -> None:
        ValueError.__init__(self, message)


# --- the records' data ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CardData:
    """``card``: a card read by the shoe (a tag of the deck in play)."""

    device: str
    boot: str
    seq: int
    card: str
    point: ReadPoint
    #: The tag and the shoe's clock at the read (absent from journals before the repeat
    #: filter was restored: docs/app.md, Start: replay and resume).
    uid: str | None = None
    read_ms: int | None = None


@dataclass(frozen=True, slots=True)
class TagData:
    """``tag``: a tag read that is no card of the deck in play (an integrity alarm)."""

    device: str
    boot: str
    seq: int
    uid: str
    point: ReadPoint
    reason: str
    read_ms: int | None = None


@dataclass(frozen=True, slots=True)
class ButtonData:
    """``button``: a button the dealer pressed."""

    device: str
    boot: str
    seq: int
    button: Button


@dataclass(frozen=True, slots=True)
class ShoeStatusData:
    """``shoe_status``: the shoe's lid, reader and feed (docs/protocol.md 3.1)."""

    device: str
    boot: str
    seq: int
    lid: Lid
    reader: Reader
    feed: Feed


@dataclass(frozen=True, slots=True)
class RfidRepeatData:
    """``rfid_repeat``: a read the shoe dropped as a repeat (docs/protocol.md 7)."""

    device: str
    boot: str
    seq: int
    uid: str
    point: ReadPoint
    read_ms: int | None = None


@dataclass(frozen=True, slots=True)
class DeviceData:
    """``device``: a device ready (with its hello's outcome), lost or refused."""

    device: str
    #: ready, lost or refused.
    event: str
    outcome: str | None = None
    boot: str | None = None
    serial: str | None = None
    #: The sequence numbers the device lost, [first, last] (docs/protocol.md 5).
    lost: tuple[int, int] | None = None
    reason: str | None = None
    rejected: str | None = None


@dataclass(frozen=True, slots=True)
class DeckData:
    """``deck``: the deck in play from the start of hand ``hand``."""

    hand: int
    deck: str


@dataclass(frozen=True, slots=True)
class SeatingData:
    """``seating``: a seat change the floor asked for between hands."""

    change: str
    seat: int
    chips: int | None = None


@dataclass(frozen=True, slots=True)
class TermsData:
    """A hand's terms: its stakes and house rules (docs/journal.md, A hand's terms). Terms
    without ``rules`` were dealt under ``records.RULES_BEFORE_JOURNALED``."""

    stakes: Stakes
    rules: HouseRules | None = None


@dataclass(frozen=True, slots=True)
class DecisionData:
    """``decision``: the events the input journaled as ``input`` caused."""

    input: int
    events: tuple[ev.Event, ...]


@dataclass(frozen=True, slots=True)
class HandStartedData:
    """``hand_started``: a hand's first decision, with the terms it is dealt under (absent:
    before hands recorded them) and the schema's version (absent: version 0)."""

    input: int
    events: tuple[ev.Event, ...]
    terms: TermsData | None = None
    version: int = 0


@dataclass(frozen=True, slots=True)
class InputData:
    """An engine input as a checkpoint's hand keeps it: a card or a button."""

    kind: str
    card: str | None = None
    point: str | None = None
    uid: str | None = None
    reason: str | None = None
    button: str | None = None


@dataclass(frozen=True, slots=True)
class EngineData:
    """The engine's checkpoint (``controller.engine.checkpoint.TableCheckpoint``)."""

    hand: int
    phase: str
    dealer: int
    seats: tuple[int, ...]
    #: [seat, chips], chips null when unknown.
    stacks: tuple[tuple[int, int | None], ...]
    start_stacks: tuple[tuple[int, int | None], ...]
    start_dealer: int
    inputs: tuple[InputData, ...]
    closed: bool
    after: tuple[InputData, ...]


@dataclass(frozen=True, slots=True)
class DeviceStateData:
    """A device as a checkpoint keeps it (docs/journal.md, Checkpoints)."""

    connected: bool
    message: str
    boot: str | None
    last_seq: int | None
    restarted: bool
    refused: str | None
    lost: str


@dataclass(frozen=True, slots=True)
class TotalsData:
    records: int
    finished: int
    voided: int
    showdowns: int
    #: [seat, net chips] since the journal began.
    net: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class ShoeData:
    lid: Lid
    reader: Reader
    feed: Feed


@dataclass(frozen=True, slots=True)
class CheckpointData:
    """``checkpoint``: everything the core needs to continue without the records before it."""

    engine: EngineData
    devices: dict[str, DeviceStateData]
    totals: TotalsData
    deck: DeckData | None = None
    shoe: ShoeData | None = None
    #: [boot, uid, point, read_ms] of the shoe's last reads.
    shoe_reads: tuple[tuple[str, str, ReadPoint, int], ...] = ()
    terms: TermsData | None = None
    version: int = 0


#: Every record kind and the dataclass of its data.
RECORDS: Final[dict[str, type]] = {
    "card": CardData,
    "tag": TagData,
    "button": ButtonData,
    "shoe_status": ShoeStatusData,
    "rfid_repeat": RfidRepeatData,
    "device": DeviceData,
    "deck": DeckData,
    "seating": SeatingData,
    "decision": DecisionData,
    "hand_started": HandStartedData,
    "checkpoint": CheckpointData,
}
#: The records that carry ``version``.
VERSIONED: Final = frozenset({"hand_started", "checkpoint"})


# --- decode --------------------------------------------------------------------------------

_T = TypeVar("_T")
_HINTS: dict[type, tuple[tuple[str, Any, bool], ...]] = {}


def _fields(cls: type) -> tuple[tuple[str, Any, bool], ...]:
    """(name, type, required) of each field of a dataclass, read once."""
    known = _HINTS.get(cls)
    if known is None:
        hints = typing.get_type_hints(cls, vars(sys.modules[cls.__module__]))
        known = tuple(
            (
                f.name,
                hints[f.name],
                f.default is MISSING and f.default_factory is MISSING,
            )
            for f in dataclasses.fields(cls)
        )
        _HINTS[cls] = known
    return known


def _fail(path: str, expected: str, value: object) -> SchemaError:
    return SchemaError(f"{path}: expected {expected}, not {json.dumps(value)[:80]}")


def _decode(tp: Any, value: JsonValue, path: str) -> Any:  # noqa: PLR0911, PLR0912 one branch a type
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        options = typing.get_args(tp)
        if value is None and type(None) in options:
            return None
        rest = [o for o in options if o is not type(None)]
        return _decode(rest[0] if len(rest) == 1 else Union[tuple(rest)], value, path)  # noqa: UP007
    if tp is type(None):
        if value is not None:
            raise _fail(path, "null", value)
        return None
    if tp is bool:
        if not isinstance(value, bool):
            raise _fail(path, "true or false", value)
        return value
    if tp is int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise _fail(path, "a whole number", value)
        return value
    if tp is str:
        if not isinstance(value, str):
            raise _fail(path, "a string", value)
        return value
    if isinstance(tp, type) and issubclass(tp, Enum):
        words = [m.value for m in tp]
        if value not in words:
            raise _fail(path, "one of " + ", ".join(map(str, words)), value)
        return tp(value)
    if origin is tuple:
        args = typing.get_args(tp)
        if not isinstance(value, list):
            raise _fail(path, "a list", value)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_decode(args[0], v, f"{path}[{i}]") for i, v in enumerate(value))
        if len(value) != len(args):
            raise _fail(path, f"a list of {len(args)}", value)
        return tuple(
            _decode(a, v, f"{path}[{i}]") for i, (a, v) in enumerate(zip(args, value, strict=True))
        )
    if origin is dict:
        if not isinstance(value, dict):
            raise _fail(path, "an object", value)
        item = typing.get_args(tp)[1]
        return {k: _decode(item, v, f"{path}.{k}") for k, v in value.items()}
    if tp is ev.Event:
        return decode_event(value, path)
    if dataclasses.is_dataclass(tp):
        return _decode_dataclass(tp, value, path)  # type: ignore[arg-type]  # a dataclass type
    raise TypeError(f"{path}: the schema has no rule for {tp!r}")  # a declaration's bug


def _decode_dataclass(cls: type[_T], value: JsonValue, path: str, skip: str = "") -> _T:
    if not isinstance(value, dict):
        raise _fail(path, "an object", value)
    declared = _fields(cls)
    unknown = sorted(set(value) - {name for name, _, _ in declared} - {skip})
    if unknown:
        names = ", ".join(name for name, _, _ in declared)
        raise SchemaError(f"{path}: field {unknown[0]} is not in the schema; expected {names}")
    given: dict[str, Any] = {}
    for name, tp, required in declared:
        if name in value:
            given[name] = _decode(tp, value[name], f"{path}.{name}")
        elif required:
            raise SchemaError(f"{path}: field {name} is missing")
    try:
        return cls(**given)
    except ValueError as exc:  # a value the type refuses (the stakes' own checks)
        raise SchemaError(f"{path}: {exc}") from None


def decode_event(value: JsonValue, path: str = "event") -> ev.Event:
    """The engine event a decision record's entry holds; SchemaError names what is wrong."""
    if not isinstance(value, dict):
        raise _fail(path, "an event (an object with its kind)", value)
    kind = value.get("kind")
    cls = EVENTS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise _fail(f"{path}.kind", "one of " + ", ".join(EVENTS), kind)
    return _decode_dataclass(cls, value, f"{path} ({kind})", skip="kind")


def decode_events(record: Record) -> list[ev.Event]:
    """The events of a decision record, as the engine's own dataclasses."""
    data = decode(record)
    assert isinstance(data, DecisionData | HandStartedData)
    return list(data.events)


def version_of(record: Record) -> int:
    """The schema version a record declares (0: none); SchemaError for one newer than this code
    reads."""
    return _check_version(record.data.get("version", 0), _where(record))


def _check_version(version: JsonValue, where: str) -> int:
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        raise SchemaError(f"{where}: version {version!r}: expected a whole number")
    if version not in VERSIONS_READ:
        raise SchemaError(
            f"{where}: schema version {version} is newer than this tablectl reads "
            f"(versions {VERSIONS_READ.start} to {VERSIONS_READ.stop - 1}): read the journal "
            "with the tablectl that wrote it, or a newer one"
        )
    return version


def _where(record: Record) -> str:
    return f"journal record {record.seq} ({record.kind})"


def decode_data(kind: str, data: JsonObject, where: str) -> Any:
    """``data`` as the dataclass of record ``kind`` (``RECORDS``), ``where`` naming it in a
    SchemaError; its version checked when the kind carries one."""
    cls = RECORDS.get(kind)
    if cls is None:
        raise SchemaError(f"{where}: kind {kind!r}: expected one of {', '.join(RECORDS)}")
    if kind in VERSIONED:
        _check_version(data.get("version", 0), where)
    return _decode_dataclass(cls, data, where)


def decode(record: Record) -> object:
    """A record's data as the dataclass its kind declares (``RECORDS``): SchemaError names the
    record's seq and kind and the field, or a version newer than this code reads."""
    return decode_data(record.kind, record.data, _where(record))


# --- encode --------------------------------------------------------------------------------

#: Each class's field names, read once (dataclasses.asdict deep-copies: 30x slower).
_NAMES: dict[type, tuple[str, ...]] = {}


def encode(value: object) -> JsonValue:
    """A declared value as the journal keeps it: tuples as lists, enums as their words,
    dataclasses as objects (an event with its ``kind`` first), a field left at None out when
    the record's declaration makes it optional is still written as null: the reader takes
    both."""
    if value is None or isinstance(value, str | int | float):
        return value.value if isinstance(value, Enum) else value
    if isinstance(value, tuple | list):
        return [encode(item) for item in value]
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    names = _NAMES.get(type(value))
    if names is None:
        names = tuple(f.name for f in dataclasses.fields(value))  # type: ignore[arg-type]  # a declared value
        _NAMES[type(value)] = names
    body: JsonObject = {name: encode(getattr(value, name)) for name in names}
    if isinstance(value, ev.Event):
        return {"kind": value.kind, **body}
    return body


def encode_events(events: list[ev.Event]) -> list[JsonValue]:
    """Events as a decision record keeps them."""
    return [encode(event) for event in events]


# --- JSON Schema ---------------------------------------------------------------------------

JSON_SCHEMA_DIALECT: Final = "https://json-schema.org/draft/2020-12/schema"


def _type_schema(tp: Any, refs: Callable[[type], str]) -> JsonObject:  # noqa: PLR0911 one branch a type
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        return {"anyOf": [_type_schema(option, refs) for option in typing.get_args(tp)]}
    if tp is type(None):
        return {"type": "null"}
    if tp is bool:
        return {"type": "boolean"}
    if tp is int:
        return {"type": "integer"}
    if tp is str:
        return {"type": "string"}
    if isinstance(tp, type) and issubclass(tp, Enum):
        return {"enum": [m.value for m in tp]}
    if origin is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": _type_schema(args[0], refs)}
        return {
            "type": "array",
            "prefixItems": [_type_schema(a, refs) for a in args],
            "items": False,
        }
    if origin is dict:
        return {
            "type": "object",
            "additionalProperties": _type_schema(typing.get_args(tp)[1], refs),
        }
    if tp is ev.Event:
        return {"oneOf": [{"$ref": refs(cls)} for cls in EVENTS.values()]}
    if dataclasses.is_dataclass(tp):
        return {"$ref": refs(tp)}  # type: ignore[arg-type]  # a dataclass type
    raise TypeError(f"the schema has no rule for {tp!r}")


def _object_schema(cls: type, refs: Callable[[type], str], kind: str | None) -> JsonObject:
    properties: JsonObject = {}
    required: list[JsonValue] = []
    if kind is not None:
        properties["kind"] = {"const": kind}
        required.append("kind")
    for name, tp, needed in _fields(cls):
        properties[name] = _type_schema(tp, refs)
        if needed:
            required.append(name)
    out: JsonObject = {"type": "object"}
    doc = (cls.__doc__ or "").strip()
    if doc and not doc.startswith(f"{cls.__name__}("):
        out["description"] = " ".join(doc.split())
    out.update(properties=properties, required=required, additionalProperties=False)
    return out


def json_schema() -> JsonObject:
    """The JSON Schema of the journal's records at ``VERSION``: one ``$defs`` entry per record
    kind (``record.<kind>``, the record's ``data``) and per event (``event.<kind>``), and the
    parts they share; a record is the chain's six fields (docs/journal.md, The record)."""
    names: dict[type, str] = {cls: f"record.{kind}" for kind, cls in RECORDS.items()}
    names.update({cls: f"event.{kind}" for kind, cls in EVENTS.items()})
    pending: list[type] = [*RECORDS.values(), *EVENTS.values()]

    def refs(cls: type) -> str:
        if cls not in names:
            names[cls] = cls.__name__
            pending.append(cls)
        return f"#/$defs/{names[cls]}"

    defs: dict[str, JsonValue] = {}
    while pending:
        cls = pending.pop(0)
        kind = cls.kind if isinstance(cls, type) and issubclass(cls, ev.Event) else None
        defs[names[cls]] = _object_schema(cls, refs, kind)
    for kind in VERSIONED:  # what this version writes: its number, always
        body = defs[f"record.{kind}"]
        assert isinstance(body, dict)
        properties, required = body["properties"], body["required"]
        assert isinstance(properties, dict)
        assert isinstance(required, list)
        properties["version"] = {"const": VERSION}
        required.append("version")
    records: list[JsonValue] = [
        {
            "type": "object",
            "properties": {
                "kind": {"const": kind},
                "data": {"$ref": f"#/$defs/record.{kind}"},
            },
        }
        for kind in RECORDS
    ]
    return {
        "$schema": JSON_SCHEMA_DIALECT,
        "title": "tablectl journal record",
        "description": (
            "One line of a tablectl journal (docs/journal.md): the chain's fields and the data "
            "of its kind. Generated by controller/app/schema.py; do not edit."
        ),
        "version": VERSION,
        "type": "object",
        "properties": {
            "seq": {"type": "integer", "minimum": 1},
            "ts": {"type": "string"},
            "kind": {"enum": list(RECORDS)},
            "data": {"type": "object"},
            "prev": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
            "hash": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
        },
        "required": ["seq", "ts", "kind", "data", "prev", "hash"],
        "additionalProperties": False,
        "oneOf": records,
        "$defs": defs,
    }


def schema_text() -> str:
    """The published file's text: the schema, indented, keys in declaration order."""
    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"
