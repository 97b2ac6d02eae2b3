"""One journal record: its canonical bytes, its hash and the link to the record before it.

Pure: no I/O, no clock. A record is one line of JSON Lines in canonical form
(sorted keys, no spaces, UTF-8, no NaN or infinity) so that its bytes, and
therefore its hash, follow from its content alone.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final, TypeAlias

import msgspec

JsonValue: TypeAlias = bool | int | float | str | list["JsonValue"] | dict[str, "JsonValue"] | None
JsonObject: TypeAlias = dict[str, JsonValue]

#: ``prev`` of the first record of a journal (seq 1): no record came before it.
GENESIS: Final = "0" * 64

#: The fields of every record, in canonical (sorted) order.
FIELDS: Final = ("data", "hash", "kind", "prev", "seq", "ts")

_HASH_RE: Final = re.compile(r"[0-9a-f]{64}")
_TS_RE: Final = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z")
_TS_FORMAT: Final = "%Y-%m-%dT%H:%M:%S.%fZ"


class RecordError(ValueError):
    """A line or a payload that is not a well-formed journal record; says what was expected."""


class UnparsableError(RecordError):
    """A line that is not even JSON (or not UTF-8), as against JSON that is no record."""


@dataclass(frozen=True, slots=True)
class Record:
    """A journal record as stored: ``hash`` is SHA-256 over the canonical record without it.

    ``data`` is a plain dict for the caller's convenience; treat it as read-only.
    """

    seq: int
    ts: str
    kind: str
    data: JsonObject
    prev: str
    hash: str

    def line(self) -> bytes:
        """The record's canonical line, newline included, as it is written to the file."""
        return canonical_json(self._fields(with_hash=True)) + b"\n"

    def computed_hash(self) -> str:
        """SHA-256 (hex) of the canonical record without its ``hash`` field."""
        return hashlib.sha256(canonical_json(self._fields(with_hash=False))).hexdigest()

    def _fields(self, *, with_hash: bool) -> JsonObject:
        fields: JsonObject = {
            "seq": self.seq,
            "ts": self.ts,
            "kind": self.kind,
            "data": self.data,
            "prev": self.prev,
        }
        if with_hash:
            fields["hash"] = self.hash
        return fields


def canonical_json(value: JsonValue) -> bytes:
    """Canonical JSON: sorted keys, no spaces, UTF-8 (not ASCII-escaped), no NaN or infinity."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8", errors="strict")


def format_ts(moment: datetime) -> str:
    """``moment`` as UTC ISO-8601 with microseconds, e.g. ``2026-11-29T14:05:25.000123Z``."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise RecordError(
            f"the journal clock returned a naive datetime {moment.isoformat()!r}; "
            "expected a timezone-aware one (e.g. datetime.now(UTC))"
        )
    utc = moment.astimezone(UTC).replace(tzinfo=None)
    # isoformat is several times faster than strftime(_TS_FORMAT) and gives the same text.
    return utc.isoformat(timespec="microseconds") + "Z"


def make_record(
    seq: int, moment: datetime, kind: str, data: Mapping[str, object], prev: str
) -> Record:
    """The record that follows the one whose hash is ``prev``; ``data`` is copied and checked."""
    return make_record_line(seq, moment, kind, data, prev)[0]


def make_record_line(
    seq: int, moment: datetime, kind: str, data: Mapping[str, object], prev: str
) -> tuple[Record, bytes]:
    """``make_record`` and the record's canonical line (``Record.line``), built together.

    The journal's hot path (the controller appends two records per card): the data is
    encoded once, and the hashed text and the line are put together around it in the
    canonical key order (data, hash, kind, prev, seq, ts), equal byte for byte to
    ``canonical_json`` of the fields (the tests compare them).
    """
    if not kind:
        raise RecordError("record kind is empty; expected a name such as 'card_read'")
    payload = _fast_copy(data)
    if payload is None:  # something out of the ordinary: the full check names what is wrong
        payload = json_object(data, "data")
    ts = format_ts(moment)
    head = '{"data":' + _dumps(payload)
    # A hash (hex) or the genesis word is written as is: letters and digits need no escape.
    prev_text = f'"{prev}"' if prev.isalnum() else _dumps(prev)
    tail = f',"kind":{_kind_text(kind)},"prev":{prev_text},"seq":{seq},"ts":"{ts}"}}'
    try:
        digest = hashlib.sha256((head + tail).encode("utf-8")).hexdigest()
        line = f'{head},"hash":"{digest}"{tail}\n'.encode()
    except UnicodeEncodeError:
        json_object(data, "data")  # names the string that is not UTF-8
        raise RecordError(f"kind {kind!r} is not encodable as UTF-8") from None
    return Record(seq=seq, ts=ts, kind=kind, data=payload, prev=prev, hash=digest), line


#: How every record line the writer writes begins (canonical JSON: ``data`` is the first key).
_RECORD_START: Final = b'{"data":{'
#: The form of a record's ``ts``, ``d`` a digit.
_TS_SHAPE: Final = "dddd-dd-ddTdd:dd:dd.ddddddZ"
_JSON: Final = json.JSONDecoder()


def is_line_start(body: bytes, seq: int, prev: str) -> bool:
    """Whether ``body`` is a prefix of the line of record ``seq`` after the record whose hash
    is ``prev``, as ``make_record_line`` writes it (its data and hash unknown): what a
    write cut short leaves (docs/journal.md, Torn tails). Beside ``make_record_line``, so
    that a change of the line's layout meets it."""
    if len(body) <= len(_RECORD_START):
        return _RECORD_START.startswith(body)
    if not body.startswith(_RECORD_START) or any(byte < 0x20 for byte in body):
        return False  # canonical JSON escapes every control character
    try:
        text = body.decode()
    except UnicodeDecodeError as error:
        if error.reason != "unexpected end of data":  # not only a character cut at the end
            return False
        text = body[: error.start].decode()
    try:
        _, end = _JSON.raw_decode(text, len('{"data":'))
    except ValueError:
        return True  # cut inside the data
    # After the data, the fields in canonical order: literals, None for 64 hex digits, str for
    # a JSON string, and the form of ts.
    template: tuple[str | type[str] | None, ...] = (
        ',"hash":"',
        None,
        '","kind":',
        str,
        f',"prev":"{prev}","seq":{seq},"ts":"',
        _TS_SHAPE,
        '"}',
    )
    return _fields_prefix(text[end:], template)


def _string_end(text: str, at: int) -> int | None:
    """Where the JSON string at ``text[at]`` ends (the text's end if it is cut inside), or
    None if there is no string there."""
    try:
        value, end = _JSON.raw_decode(text, at)
    except ValueError:
        return len(text) if text[at] == '"' else None  # cut inside the string
    return end if isinstance(value, str) else None


def _fields_prefix(rest: str, template: tuple[str | type[str] | None, ...]) -> bool:
    """Whether ``rest`` is a prefix of the record's fields after ``data`` (``template``)."""
    at = 0
    for part in template:
        if at == len(rest):
            return True
        if part is None:  # 64 lowercase hex digits
            digits = rest[at : at + 64]
            if any(char not in "0123456789abcdef" for char in digits):
                return False
            at += len(digits)
        elif part is str:
            end = _string_end(rest, at)
            if end is None:
                return False
            at = end
        elif part == _TS_SHAPE:
            for shape, char in zip(_TS_SHAPE, rest[at:], strict=False):
                if not (char in "0123456789" if shape == "d" else char == shape):
                    return False
                at += 1
        else:
            assert isinstance(part, str)
            piece = rest[at : at + len(part)]
            if not part.startswith(piece):
                return False
            at += len(piece)
    return at == len(rest)


#: One encoder for every record: ``json.dumps`` with options builds a new one per call.
#: ``allow_nan=False``: the writer's payloads are checked finite before they get here, and a
#: parsed line's infinity (from a number too large for a float) is refused, not written back.
_ENCODER: Final = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)


def _dumps(value: JsonValue) -> str:
    return _ENCODER.encode(value)


#: The JSON text of each record kind met so far: a journal has a dozen kinds.
_KIND_TEXTS: dict[str, str] = {}


def _kind_text(kind: str) -> str:
    text = _KIND_TEXTS.get(kind)
    if text is None:
        text = _dumps(kind)
        if len(_KIND_TEXTS) < 64:  # a caller's odd kinds do not grow it without end
            _KIND_TEXTS[kind] = text
    return text


class _Unusual(Exception):
    """A value the fast copy leaves to ``json_object`` (which accepts it or says why not)."""


def _fast_copy(data: object) -> JsonObject | None:
    """A copy of ``data`` if it is made of plain dicts, lists, str, int, bool, None and
    finite floats only; None for anything else. Strings are checked for UTF-8 when the
    line is encoded."""
    if type(data) is not dict:
        return None
    try:
        return _copy_dict(data)
    except _Unusual:
        return None


def _copy_dict(value: dict[object, object]) -> JsonObject:
    copy: JsonObject = {}
    for key, item in value.items():
        if type(key) is not str:
            raise _Unusual
        copy[key] = _copy_value(item)
    return copy


def _copy_value(value: object) -> JsonValue:
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value  # type: ignore[return-value]  # one of the plain types just checked
    if kind is dict:
        return _copy_dict(value)  # type: ignore[arg-type]  # a dict, just checked
    if kind is list:
        return [_copy_value(item) for item in value]  # type: ignore[attr-defined]  # a list
    if kind is float and math.isfinite(value):  # type: ignore[arg-type]  # a float
        return value  # type: ignore[return-value]  # a float, just checked
    raise _Unusual


def json_object(value: object, where: str) -> JsonObject:
    """A fresh copy of ``value`` if it is a JSON object; else a RecordError naming ``where``."""
    if not isinstance(value, Mapping):
        raise RecordError(f"{where} is a {type(value).__name__}; expected a JSON object (a dict)")
    copy: JsonObject = {}
    for key, item in value.items():
        if not isinstance(key, str):
            raise RecordError(f"{where} has the key {key!r}; expected string keys only")
        _check_text(key, f"{where} key {key!r}")
        copy[key] = _json_value(item, f"{where}[{key!r}]")
    return copy


def _json_value(value: object, where: str) -> JsonValue:
    # bool before int: bool is an int, and both are JSON as they are.
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise RecordError(f"{where} is {value}; expected a finite number (JSON has no NaN)")
        return value
    if isinstance(value, str):
        _check_text(value, where)
        return value
    if isinstance(value, list):
        return [_json_value(item, f"{where}[{i}]") for i, item in enumerate(value)]
    if isinstance(value, Mapping):
        return json_object(value, where)
    raise RecordError(
        f"{where} is a {type(value).__name__}; expected a JSON value "
        "(dict, list, str, int, float, bool or None)"
    )


def _check_text(text: str, where: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise RecordError(f"{where} is not encodable as UTF-8 ({error.reason})") from None


def parse_line(line: bytes) -> Record:
    """The record on ``line`` (without its newline), checked for form and for its own hash.

    Checks what one line can show alone: JSON, the six fields and their types,
    the hash over the content, and the canonical form. The link to the record
    before (``seq``, ``prev``) is the reader's to check.

    Every start reads the current journal file through here, and the floor every line it
    takes, so the usual line (canonical, its hash right, no float in it) goes by a fast path:
    msgspec decodes it and encodes its data back in sorted order, in C, and one comparison with
    the line proves it canonical. For JSON without a float, msgspec's sorted encoding is the
    standard library's canonical one, byte for byte (tests/test_journal_record.py proves it as
    a property); a float (msgspec and the standard library may write one differently), or a
    line that is not as expected in any way, is read again by ``_parse_standard``, which gives
    the verdict and the exact error (docs/performance.md, The floor).
    """
    try:
        value = _FAST_DECODER.decode(line)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return _parse_standard(line)
    record = _fast_record(value)
    if record is None:
        return _parse_standard(line)
    tail = (
        f',"kind":{_kind_text(record.kind)},"prev":"{record.prev}",'
        f'"seq":{record.seq},"ts":"{record.ts}"}}'
    ).encode()
    expected = b'{"data":' + _FAST_ENCODER.encode(record.data) + b',"hash":"'
    if expected + record.hash.encode() + b'"' + tail == line:
        # Canonical: its own bytes, the hash field cut out, are the hashed text.
        hashed = line[: -(len(tail) + _HASH_FIELD)] + tail
        if hashlib.sha256(hashed).hexdigest() == record.hash:
            return record
    return _parse_standard(line)


def _fast_record(value: object) -> Record | None:
    """The record a decoded line holds if each field is as ``_record_of`` checks it, but the
    hash's form: the fast path proves it by comparing it with the line's SHA-256 hex digest.
    None: any other value, left to ``_parse_standard`` for the verdict and its error."""
    if type(value) is not dict or len(value) != len(FIELDS):
        return None
    # Six fields, each of the six names: the fields are FIELDS exactly.
    data, seq, ts = value.get("data"), value.get("seq"), value.get("ts")
    kind, prev, hash_ = value.get("kind"), value.get("prev"), value.get("hash")
    if (
        type(data) is not dict
        or type(seq) is not int
        or seq < 1
        or type(ts) is not str
        or type(kind) is not str
        or not kind
        or type(prev) is not str
        or type(hash_) is not str
        or not _TS_RE.fullmatch(ts)
        or not _HASH_RE.fullmatch(prev)
    ):
        return None
    try:
        datetime.fromisoformat(ts[:-1])  # a real date and time (no 30 February)
    except ValueError:
        return None
    return Record(seq=seq, ts=ts, kind=kind, data=data, prev=prev, hash=hash_)


def _no_float(_literal: str) -> float:
    """msgspec's hook for a float literal: leave the line to the standard path."""
    raise ValueError("a float: read by the standard path")


_FAST_DECODER: Final = msgspec.json.Decoder(float_hook=_no_float)
_FAST_ENCODER: Final = msgspec.json.Encoder(order="sorted")


def _parse_standard(line: bytes) -> Record:
    """``parse_line`` by the standard library's json: every line the fast path does not take,
    and the verdict on each (the error naming what is wrong)."""
    try:
        value = _DECODER.decode(line.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise UnparsableError(f"not UTF-8 at byte {error.start}") from None
    except _NotFinite as error:
        raise RecordError(
            f"holds {error.args[0]}; expected finite numbers only (JSON has no NaN or infinity)"
        ) from None
    except ValueError as error:
        raise UnparsableError(f"not JSON ({error})") from None
    if type(value) is not dict:
        raise RecordError(f"a JSON {type(value).__name__}; expected a JSON object (a record)")
    record = _record_of(value)
    try:
        head = '{"data":' + _dumps(record.data)
        tail = (
            f',"kind":{_kind_text(record.kind)},"prev":"{record.prev}",'
            f'"seq":{record.seq},"ts":"{record.ts}"}}'
        )
        computed = hashlib.sha256((head + tail).encode("utf-8")).hexdigest()
    except UnicodeEncodeError:  # an escaped lone surrogate (\ud800) reads as a str UTF-8 refuses
        raise RecordError("holds a string that is not encodable as UTF-8") from None
    except ValueError:  # a number too large for a float (1e999) reads as infinity
        raise RecordError("holds a number out of range; expected finite numbers only") from None
    if computed != record.hash:
        raise RecordError(
            f"hash {record.hash} does not match the record's content, which hashes to {computed} "
            "(the record was edited)"
        )
    if f'{head},"hash":"{computed}"{tail}'.encode() != line:
        raise RecordError("not in canonical form (sorted keys, no spaces, UTF-8); it was rewritten")
    return record


def _record_of(value: dict[str, JsonValue]) -> Record:
    """The record a decoded line holds, each field checked (RecordError says which)."""
    if tuple(sorted(value)) != FIELDS:
        raise RecordError(
            f"fields are {', '.join(sorted(value)) or 'none'}; expected {', '.join(FIELDS)}"
        )
    data = value["data"]
    if type(data) is not dict:
        raise RecordError(f"data is {data!r}; expected a JSON object")
    return Record(
        seq=_field_seq(value["seq"]),
        ts=_field_ts(value["ts"]),
        kind=_field_kind(value["kind"]),
        data=data,
        prev=_field_hash(value["prev"], "prev"),
        hash=_field_hash(value["hash"], "hash"),
    )


#: The bytes of ``,"hash":"<64 hex digits>"`` in a line.
_HASH_FIELD: Final = len(',"hash":""') + 64


class _NotFinite(Exception):
    """NaN or infinity met while parsing: not a ValueError, so not reported as "not JSON"."""


def _refuse_constant(name: str) -> JsonValue:
    raise _NotFinite(name)


#: One decoder for every line (``json.loads`` with options builds a new one per call).
_DECODER: Final = json.JSONDecoder(parse_constant=_refuse_constant)


def _field_seq(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise RecordError(f"seq is {value!r}; expected a positive integer")
    return value


def _field_ts(value: object) -> str:
    if not isinstance(value, str) or not _TS_RE.fullmatch(value):
        raise RecordError(
            f"ts is {value!r}; expected UTC ISO-8601 such as 2026-11-29T14:05:25.000123Z"
        )
    try:
        # The pattern fixed the form; this checks the date is real (no 30 February), and is
        # several times faster than strptime(_TS_FORMAT).
        datetime.fromisoformat(value[:-1])
    except ValueError:
        raise RecordError(f"ts is {value!r}, which is not a real date and time") from None
    return value


def _field_kind(value: object) -> str:
    if not isinstance(value, str) or not value:
        raise RecordError(f"kind is {value!r}; expected a non-empty string")
    return value


def _field_hash(value: object, name: str) -> str:
    if not isinstance(value, str) or not _HASH_RE.fullmatch(value):
        raise RecordError(f"{name} is {value!r}; expected 64 lowercase hex digits (SHA-256)")
    return value
