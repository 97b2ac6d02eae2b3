"""A typed JSON codec for frozen dataclasses, driven by their field types (the journal's schema,
controller/journal/schema.py, declares its records with it). Pure.

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

from controller.journal import JsonValue

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
#
# Encoders are compiled once per type from the declaration, as decoders are: a decision record
# is encoded on every card's path (docs/performance.md, the phase modules' A/B), and a field whose
# JSON is its own value (an int, a str, a bool) then costs one attribute read, where a generic walk
# asked each value its type. A dataclass's encoder is generated source (as ``dataclasses`` builds
# its own methods), a dict display of its fields.

Encoder = Callable[[Any], JsonValue]
#: The compiled encoders; None: the value is its own JSON (no call needed).
_ENCODERS: dict[Any, Encoder | None] = {}
#: Types a declaration names that the codec does not build itself (the schema's events).
_SPECIAL_ENCODERS: dict[Any, Encoder] = {}


def special_encoder(tp: Any, encode: Encoder) -> None:
    """Encode ``tp`` with ``encode`` (a base class whose value's own class encodes it)."""
    _SPECIAL_ENCODERS[tp] = encode


def encoder(tp: Any, kind: str | None = None, *, sparse: bool = False) -> Encoder:
    """The compiled encoder of ``tp``; a dataclass's object begins with ``"kind": kind`` when
    ``kind`` is given (an event's), and leaves out a field at its default None when ``sparse``
    (the input records: a card read without its tag's uid is written without it)."""
    if kind is not None or sparse:
        return _dataclass_encoder(tp, kind, sparse)
    compiled = _encoder(tp)
    return _identity if compiled is None else compiled


def _identity(value: Any) -> JsonValue:
    return value  # type: ignore[no-any-return]  # declared as a JSON scalar


def _encoder(tp: Any) -> Encoder | None:
    if tp not in _ENCODERS:
        _ENCODERS[tp] = _compile_encoder(tp)
    return _ENCODERS[tp]


def _compile_encoder(tp: Any) -> Encoder | None:  # noqa: PLR0911 one branch a kind of type
    if tp in _SPECIAL_ENCODERS:
        return _SPECIAL_ENCODERS[tp]
    origin = typing.get_origin(tp)
    if tp in (int, str, bool, float, type(None)):
        return None
    if origin in (Union, types.UnionType):
        inner = _encoder(next(o for o in typing.get_args(tp) if o is not type(None)))
        return None if inner is None else _or_none(inner)
    if isinstance(tp, type) and issubclass(tp, Enum):
        return _enum_word
    if origin is tuple:
        args = typing.get_args(tp)
        items = [_encoder(arg) for arg in (args[:1] if args[-1] is Ellipsis else args)]
        if all(item is None for item in items):
            return list
        coders = [_identity if item is None else item for item in items]
        if args[-1] is Ellipsis:
            return _each(coders[0])
        return lambda value: [code(entry) for code, entry in zip(coders, value, strict=True)]
    if origin is dict:
        entries = _encoder(typing.get_args(tp)[1])
        return dict if entries is None else _each_entry(entries)
    if dataclasses.is_dataclass(tp):
        return _dataclass_encoder(tp, None)
    raise TypeError(f"the codec has no rule for {tp!r}")  # a declaration's bug


def _each(item: Encoder) -> Encoder:
    return lambda value: [item(entry) for entry in value]


def _each_entry(item: Encoder) -> Encoder:
    return lambda value: {key: item(entry) for key, entry in value.items()}


def _or_none(inner: Encoder) -> Encoder:
    return lambda value: None if value is None else inner(value)


def _enum_word(value: Enum) -> JsonValue:
    return value.value  # type: ignore[no-any-return]  # the schema's enums are words


def _dataclass_encoder(cls: Any, kind: str | None, sparse: bool = False) -> Encoder:
    """A dataclass's encoder, compiled at its first use (a declaration may name a type declared
    after it)."""
    compiled: list[Encoder] = []

    def encode(value: Any) -> JsonValue:
        if not compiled:
            compiled.append(_generate(cls, kind, sparse))
        return compiled[0](value)

    return encode


def _generate(cls: Any, kind: str | None, sparse: bool) -> Encoder:
    names: dict[str, object] = {}
    entries = [] if kind is None else [f"'kind': {kind!r}"]
    optional: list[str] = []
    defaults = {f.name: f.default for f in dataclasses.fields(cls)}
    for name, tp, _ in fields_of(cls):
        code = _encoder(tp)
        written = f"value.{name}" if code is None else f"_{name}(value.{name})"
        if code is not None:
            names[f"_{name}"] = code
        if sparse and defaults[name] is None:
            optional.append(
                f"    if value.{name} is not None:\n        out[{name!r}] = {written}\n"
            )
        else:
            entries.append(f"{name!r}: {written}")
    source = (
        f"def encode(value):\n    out = {{{', '.join(entries)}}}\n{''.join(optional)}"
        "    return out\n"
    )
    exec(source, names)  # the source is made above from the declaration's field names
    return names["encode"]  # type: ignore[return-value]  # the function just defined
