"""The JSON Schema of the feeds' events, generated from their dataclasses
(controller/floor/web/feedhand.py): published as ``docs/schema/feed-v1.json`` (the ``hand``
event) and ``docs/schema/feed-broken-v1.json`` (the ``broken`` event, a hand not intact) by
``python -m controller.floor.web.feedjsonschema [[broken] FILE | -]`` (docs/floor-web.md, Feeds).
Pure but for the writing.

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
from controller.floor.web.feedhand import VERSION, FeedBroken, FeedHand
from controller.journal import JsonObject, JsonValue
from controller.journal.codec import fields_of

#: A hand's states (controller/floor/web/handpages.py ``state_of``).
STATES: Final = ("in progress", "settled", "voided")
PUBLISHED: Final = Path(__file__).parents[3] / "docs" / "schema" / f"feed-v{VERSION}.json"
#: The ``broken`` event's (a hand not intact): an event of its own, so a hand event is as v1 says.
PUBLISHED_BROKEN: Final = PUBLISHED.with_name(f"feed-broken-v{VERSION}.json")
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
    """The schema of one ``hand`` event (``data``) of every feed at ``VERSION``."""
    body, defs = _event(FeedHand)
    properties = body["properties"]
    assert isinstance(properties, dict)
    properties["state"] = {"enum": list(STATES)}
    return _document(
        body,
        defs,
        "tablectl floor feed event",
        "The data of one server-sent event of the floor's feeds (docs/floor-web.md, Feeds): "
        "a table's hand as the feed may show it; a card the feed may not carry is null.",
    )


def broken_schema() -> JsonObject:
    """The schema of one ``broken`` event (``data``) of every feed at ``VERSION``."""
    body, defs = _event(FeedBroken)
    return _document(
        body,
        defs,
        "tablectl floor feed broken event",
        "The data of a broken event of the floor's feeds (docs/floor-web.md, Feeds: A hand not "
        "intact): the hand's first record that fails its check, the last record its hand "
        "event is told from, and the floor's chain_broken alarms on its journal.",
    )


def _event(cls: type) -> tuple[JsonObject, dict[str, JsonValue]]:
    defs: dict[str, JsonValue] = {}
    body = _object(cls, defs)
    properties = body["properties"]
    assert isinstance(properties, dict)
    properties["version"] = {"const": VERSION}
    properties["feed"] = {"enum": list(policy.FEEDS)}
    return body, defs


def _document(
    body: JsonObject, defs: dict[str, JsonValue], title: str, description: str
) -> JsonObject:
    head: JsonObject = {
        "$schema": DIALECT,
        "title": title,
        "description": (
            f"{description} Generated from controller/floor/web/feedhand.py; do not edit."
        ),
        "version": VERSION,
    }
    return {**head, **{k: v for k, v in body.items() if k != "description"}, "$defs": defs}


def schema_text() -> str:
    return _text(json_schema())


def broken_schema_text() -> str:
    return _text(broken_schema())


def _text(schema: JsonObject) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    """No argument: write both published schemas. ``FILE`` or ``-``: the hand event's schema
    to that file or to stdout; ``broken FILE`` or ``broken -``: the broken event's."""
    texts = {"hand": schema_text, "broken": broken_schema_text}
    if not argv:
        PUBLISHED.write_text(schema_text(), encoding="utf-8")
        PUBLISHED_BROKEN.write_text(broken_schema_text(), encoding="utf-8")
        return 0
    event, target = (argv[0], argv[1]) if len(argv) == 2 else ("hand", argv[0])
    if len(argv) > 2 or event not in texts:
        print(
            "usage: python -m controller.floor.web.feedjsonschema [[broken] FILE | -]",
            file=sys.stderr,
        )
        return 2
    text = texts[event]()
    if target == "-":
        sys.stdout.write(text)
        return 0
    path = Path(target)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
