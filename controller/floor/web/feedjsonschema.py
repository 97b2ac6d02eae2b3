"""The JSON Schema of the feeds' events, generated from their dataclasses
(controller/floor/web/feedhand.py): published as ``docs/schema/feed-v1.json`` by
``python -m controller.floor.web.feedjsonschema [FILE | -]`` (docs/floor-web.md, Feeds). Pure but
for the writing.

Field types to JSON Schema as the journal's (controller/journal/schemajson.py): ``int`` integer,
``str`` string, ``X | None`` anyOf with null, ``tuple[X, ...]`` an array, a dataclass a ``$ref``
to its ``$defs`` entry; every field is required and no other is allowed.
"""

from __future__ import annotations

import json
import sys
import types
import typing
from pathlib import Path
from typing import Any, Final, Union

from controller.floor.web import policy
from controller.floor.web.feedhand import VERSION, FeedHand
from controller.journal import JsonObject, JsonValue
from controller.journal.codec import fields_of

#: A hand's states (controller/floor/web/handpages.py ``state_of``).
STATES: Final = ("in progress", "settled", "voided")
PUBLISHED: Final = Path(__file__).parents[3] / "docs" / "schema" / f"feed-v{VERSION}.json"
DIALECT: Final = "https://json-schema.org/draft/2020-12/schema"


def _type(tp: Any, defs: dict[str, JsonValue]) -> JsonObject:
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        return {"anyOf": [_type(option, defs) for option in typing.get_args(tp)]}
    if tp is type(None):
        return {"type": "null"}
    if tp is int:
        return {"type": "integer"}
    if tp is str:
        return {"type": "string"}
    if origin is tuple:
        item, rest = typing.get_args(tp)
        assert rest is Ellipsis, f"a fixed tuple has no rule: {tp!r}"
        return {"type": "array", "items": _type(item, defs)}
    if isinstance(tp, type) and hasattr(tp, "__dataclass_fields__"):
        if tp.__name__ not in defs:
            defs[tp.__name__] = {}  # a placeholder: a dataclass is defined once
            defs[tp.__name__] = _object(tp, defs)
        return {"$ref": f"#/$defs/{tp.__name__}"}
    raise TypeError(f"the feed's schema has no rule for {tp!r}")


def _object(cls: type, defs: dict[str, JsonValue]) -> JsonObject:
    properties: JsonObject = {name: _type(tp, defs) for name, tp, _ in fields_of(cls)}
    out: JsonObject = {"type": "object"}
    doc = (cls.__doc__ or "").strip()
    if doc and not doc.startswith(f"{cls.__name__}("):
        out["description"] = " ".join(doc.split())
    out.update(properties=properties, required=list(properties), additionalProperties=False)
    return out


def json_schema() -> JsonObject:
    """The schema of one event (``data``) of every feed at ``VERSION``."""
    defs: dict[str, JsonValue] = {}
    body = _object(FeedHand, defs)
    properties = body["properties"]
    assert isinstance(properties, dict)
    properties["version"] = {"const": VERSION}
    properties["feed"] = {"enum": list(policy.FEEDS)}
    properties["state"] = {"enum": list(STATES)}
    head: JsonObject = {
        "$schema": DIALECT,
        "title": "tablectl floor feed event",
        "description": (
            "The data of one server-sent event of the floor's feeds (docs/floor-web.md, Feeds): "
            "a table's hand as the feed may show it; a card the feed may not carry is null. "
            "Generated from controller/floor/web/feedhand.py; do not edit."
        ),
        "version": VERSION,
    }
    return {**head, **{k: v for k, v in body.items() if k != "description"}, "$defs": defs}


def schema_text() -> str:
    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    """Write the schema to the file named (default: the published one), or ``-``: print it."""
    if len(argv) > 1:
        print("usage: python -m controller.floor.web.feedjsonschema [FILE | -]", file=sys.stderr)
        return 2
    target = argv[0] if argv else str(PUBLISHED)
    if target == "-":
        sys.stdout.write(schema_text())
        return 0
    path = Path(target)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(schema_text(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
