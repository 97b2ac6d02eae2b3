"""A typed JSON codec for frozen dataclasses, driven by their field types (the journal's schema,
controller/app/schema.py, declares its records with it). Pure.

``decoder(tp)`` compiles, once per type, a function that reads a JSON value as ``tp``: ``int``
(not a boolean), ``str``, ``bool``, ``None``, ``X | None``, an enum (by its words), ``tuple[X,
...]``, a fixed ``tuple[X, Y]``, ``dict[str, X]`` and a dataclass (its fields by name, one
without a default required, no other key). Compiled, a decision record's events decode in
about a tenth of the time of interpreting the types at each value. What does not fit raises
``Misfit``: why, and the path to the value, built only then (``.seat``, ``[3]``).
"""

from __future__ import annotations

import dataclasses
import json
import sys
import types
import typing
from collections.abc import Callable
from dataclasses import MISSING
from enum import Enum
from typing import Any, Union

from controller.journal import JsonObject, JsonValue

Decoder = Callable[[Any], Any]


class Misfit(Exception):
    """A JSON value that does not fit its declared type: ``reason`` and ``path`` inside the
    value decoded (the caller names the value itself)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.path: list[str] = []

    def where(self) -> str:
        return "".join(self.path)


def _shown(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)[:80]


def fields_of(cls: type) -> tuple[tuple[str, Any, bool], ...]:
    """(name, type, required) of each field of a dataclass, its types resolved."""
    hints = typing.get_type_hints(cls, vars(sys.modules[cls.__module__]))
    return tuple(
        (f.name, hints[f.name], f.default is MISSING and f.default_factory is MISSING)
        for f in dataclasses.fields(cls)
    )


_COMPILED: dict[Any, Decoder] = {}
#: Types a declaration names that the codec does not build itself (the schema's events).
_SPECIAL: dict[Any, Decoder] = {}


def special(tp: Any, decode: Decoder) -> None:
    """Decode ``tp`` with ``decode`` (a base class whose value names its subclass)."""
    _SPECIAL[tp] = decode


def decoder(tp: Any) -> Decoder:
    """The compiled decoder of ``tp`` (cached)."""
    known = _COMPILED.get(tp)
    if known is None:
        known = _COMPILED[tp] = _compile(tp)
    return known


def _scalar(kind: type, expected: str) -> Decoder:
    def decode(value: Any) -> Any:
        if type(value) is not kind:  # not isinstance: JSON's true is no whole number
            raise Misfit(f"expected {expected}, not {_shown(value)}")
        return value

    return decode


def _compile(tp: Any) -> Decoder:  # noqa: PLR0911 one branch a kind of type
    if tp in _SPECIAL:
        return _SPECIAL[tp]
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        return _optional(tp)
    if tp is int:
        return _scalar(int, "a whole number")
    if tp is str:
        return _scalar(str, "a string")
    if tp is bool:
        return _scalar(bool, "true or false")
    if tp is type(None):
        return _scalar(type(None), "null")
    if isinstance(tp, type) and issubclass(tp, Enum):
        return _enum(tp)
    if origin is tuple:
        return _tuple(typing.get_args(tp))
    if origin is dict:
        return _dict(typing.get_args(tp)[1])
    if dataclasses.is_dataclass(tp):
        return dataclass_decoder(tp)  # type: ignore[arg-type]  # a dataclass type
    raise TypeError(f"the codec has no rule for {tp!r}")  # a declaration's bug


def _optional(tp: Any) -> Decoder:
    options = [o for o in typing.get_args(tp) if o is not type(None)]
    if len(options) != 1 or len(typing.get_args(tp)) != 2:
        raise TypeError(f"the codec reads X | None only, not {tp!r}")
    inner = decoder(options[0])

    def decode(value: Any) -> Any:
        return None if value is None else inner(value)

    return decode


def _enum(tp: type[Enum]) -> Decoder:
    members = {member.value: member for member in tp}
    words = ", ".join(map(str, members))

    def decode(value: Any) -> Any:
        member = members.get(value) if type(value) is str else None
        if member is None:
            raise Misfit(f"expected one of {words}, not {_shown(value)}")
        return member

    return decode


def _at(index: int, error: Misfit) -> Misfit:
    error.path.insert(0, f"[{index}]")
    return error


def _tuple(args: tuple[Any, ...]) -> Decoder:
    if len(args) == 2 and args[1] is Ellipsis:
        item = decoder(args[0])

        def decode_all(value: Any) -> Any:
            if type(value) is not list:
                raise Misfit(f"expected a list, not {_shown(value)}")
            out = []
            for index, entry in enumerate(value):
                try:
                    out.append(item(entry))
                except Misfit as error:
                    raise _at(index, error) from None
            return tuple(out)

        return decode_all
    items = [decoder(arg) for arg in args]

    def decode_fixed(value: Any) -> Any:
        if type(value) is not list or len(value) != len(items):
            raise Misfit(f"expected a list of {len(items)}, not {_shown(value)}")
        out = []
        for index, (item_, entry) in enumerate(zip(items, value, strict=True)):
            try:
                out.append(item_(entry))
            except Misfit as error:
                raise _at(index, error) from None
        return tuple(out)

    return decode_fixed


def _dict(item_type: Any) -> Decoder:
    item = decoder(item_type)

    def decode(value: Any) -> Any:
        if type(value) is not dict:
            raise Misfit(f"expected an object, not {_shown(value)}")
        out = {}
        for key, entry in value.items():
            try:
                out[key] = item(entry)
            except Misfit as error:
                error.path.insert(0, f".{key}")
                raise
        return out

    return decode


def dataclass_decoder(cls: type, allowed: frozenset[str] = frozenset()) -> Decoder:
    """The decoder of a dataclass's object: ``allowed`` keys beside its fields are skipped (an
    event's ``kind``)."""
    declared = fields_of(cls)
    known = frozenset(name for name, _, _ in declared) | allowed
    names = ", ".join(name for name, _, _ in declared)
    # Compiled lazily: a declaration may name a type declared after it.
    compiled: list[tuple[str, Decoder, bool]] = []

    def decode(value: Any) -> Any:
        if type(value) is not dict:
            raise Misfit(f"expected an object, not {_shown(value)}")
        if not compiled:
            compiled.extend((name, decoder(tp), needed) for name, tp, needed in declared)
        if not value.keys() <= known:
            unknown = sorted(set(value) - known)[0]
            raise Misfit(f"field {unknown} is not in the schema; expected {names}")
        given = {}
        for name, decode_field, required in compiled:
            if name in value:
                try:
                    given[name] = decode_field(value[name])
                except Misfit as error:
                    error.path.insert(0, f".{name}")
                    raise
            elif required:
                raise Misfit(f"field {name} is missing")
        try:
            return cls(**given)
        except ValueError as exc:  # a value the type refuses (the stakes' own checks)
            raise Misfit(str(exc)) from None

    return decode


# --- encode --------------------------------------------------------------------------------

#: Each class's field names, read once (dataclasses.asdict deep-copies: 30x slower).
_NAMES: dict[type, tuple[str, ...]] = {}


def encode(value: object, tagged: Callable[[object], str | None]) -> JsonValue:
    """A declared value as JSON: tuples as lists, enums as their words, dataclasses as objects;
    ``tagged`` gives the ``kind`` a dataclass's object begins with (an event's), or None."""
    if value is None or isinstance(value, str | int | float):
        return value.value if isinstance(value, Enum) else value
    if isinstance(value, tuple | list):
        return [encode(item, tagged) for item in value]
    if isinstance(value, dict):
        return {str(k): encode(v, tagged) for k, v in value.items()}
    names = _NAMES.get(type(value))
    if names is None:
        names = tuple(f.name for f in dataclasses.fields(value))  # type: ignore[arg-type]  # a declared value
        _NAMES[type(value)] = names
    body: JsonObject = {name: encode(getattr(value, name), tagged) for name in names}
    kind = tagged(value)
    return body if kind is None else {"kind": kind, **body}
