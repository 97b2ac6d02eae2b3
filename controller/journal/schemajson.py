"""The JSON Schema of the journal's records, generated from their declarations
(controller/journal/schema.py): published as ``docs/schema/journal-v3.json`` by
``python -m controller.journal.schemadoc`` (docs/journal.md, The schema). Pure.

Field types to JSON Schema: ``int`` integer, ``str`` string, ``bool`` boolean, ``X | None``
anyOf with null, ``tuple[X, ...]`` an array, a fixed tuple ``prefixItems``, an enum its words,
a dataclass a ``$ref`` to its ``$defs`` entry; a field with a default is optional.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Callable
from enum import Enum
from typing import Any, Final, Union

from controller.journal import JsonObject, JsonValue
from controller.journal.codec import fields_of
from controller.journal.schema import EVENTS, RECORDS, VERSION, VERSIONED
from controller.poker.engine import events as ev

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
    for name, tp, needed in fields_of(cls):
        properties[name] = _type_schema(tp, refs)
        if needed:
            required.append(name)
    out: JsonObject = {"type": "object"}
    doc = (cls.__doc__ or "").strip()
    if doc and not doc.startswith(f"{cls.__name__}("):
        out["description"] = " ".join(doc.split())
    out.update(properties=properties, required=required, additionalProperties=False)
    return out


#: A tag's UID in a record (schema version 2): ISO/IEC 15693, 16 uppercase hex digits MSB
#: first beginning E0 (docs/protocol.md 2), or ISO/IEC 14443-A, 8, 14 or 20 uppercase hex
#: digits UID0 first (docs/hardware.md, Tags): the length says the family.
UID_PATTERN: Final = "^(E0[0-9A-F]{14}|[0-9A-F]{8}|[0-9A-F]{14}|[0-9A-F]{20})$"


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
    for body in defs.values():  # version 2: a tag's UID of either family
        properties = body.get("properties") if isinstance(body, dict) else None
        uid = properties.get("uid") if isinstance(properties, dict) else None
        if not isinstance(uid, dict):
            continue
        options = uid.get("anyOf")
        for option in [uid, *(options if isinstance(options, list) else [])]:
            if isinstance(option, dict) and option.get("type") == "string":
                option["pattern"] = UID_PATTERN
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
            "of its kind. Generated by controller/journal/schema.py; do not edit."
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
