"""Journal records: canonical JSON, the hash over the record, the genesis value, payload checks."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from types import MappingProxyType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tierhelp import examples

from controller.journal import GENESIS, RecordError
from controller.journal.record import (
    _FAST_DECODER,
    _FAST_ENCODER,
    _parse_standard,
    format_ts,
    make_record,
    make_record_line,
    parse_line,
)

pytestmark = pytest.mark.fast

MOMENT = datetime(2026, 11, 29, 14, 5, 25, 123, tzinfo=UTC)


def test_record_line_is_canonical_json_with_sorted_keys_and_no_spaces() -> None:
    """A record is one line: sorted keys, no spaces, UTF-8 text kept as it is, a newline."""
    record = make_record(1, MOMENT, "card_read", {"seat": 3, "card": "As", "note": "€"}, GENESIS)
    line = record.line()
    assert line.endswith(b"\n")
    assert line.count(b"\n") == 1
    assert b" " not in line
    assert "€".encode() in line  # UTF-8, not \u20ac
    assert line.startswith(b'{"data":{"card":"As","note":"\xe2\x82\xac","seat":3},"hash":"')
    assert list(json.loads(line)) == ["data", "hash", "kind", "prev", "seq", "ts"]


def test_hash_is_sha256_of_the_canonical_record_without_the_hash_field() -> None:
    """hash = SHA-256 hex of the canonical JSON of seq, ts, kind, data, prev."""
    record = make_record(7, MOMENT, "button", {"button": "fold"}, "ab" * 32)
    unhashed = (
        b'{"data":{"button":"fold"},"kind":"button","prev":"' + b"ab" * 32 + b'","seq":7,'
        b'"ts":"2026-11-29T14:05:25.000123Z"}'
    )
    assert record.hash == hashlib.sha256(unhashed).hexdigest()
    assert record.computed_hash() == record.hash


def test_genesis_is_64_zeros() -> None:
    """The first record's prev is the documented genesis value: 64 zero hex digits."""
    assert GENESIS == "0" * 64


def test_timestamp_is_utc_iso_8601_with_microseconds() -> None:
    """ts is UTC with six fractional digits and a Z, whatever zone the clock reports in."""
    assert format_ts(MOMENT) == "2026-11-29T14:05:25.000123Z"
    new_york = timezone(timedelta(hours=-5))
    assert format_ts(datetime(2026, 11, 29, 9, 5, 25, tzinfo=new_york)) == (
        "2026-11-29T14:05:25.000000Z"
    )


def test_naive_clock_reading_is_refused() -> None:
    """A clock without a zone would make ts ambiguous: refused, naming the reading."""
    with pytest.raises(RecordError, match=r"naive datetime '2026-11-29T14:05:25'.*timezone-aware"):
        format_ts(datetime(2026, 11, 29, 14, 5, 25))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (["not", "an", "object"], r"data is a list; expected a JSON object"),
        ({1: "x"}, r"data has the key 1; expected string keys only"),
        ({"x": float("nan")}, r"data\['x'\] is nan; expected a finite number"),
        ({"x": {"y": (1, 2)}}, r"data\['x'\]\['y'\] is a tuple; expected a JSON value"),
        ({"x": [1, b"raw"]}, r"data\['x'\]\[1\] is a bytes; expected a JSON value"),
        ({"x": "\ud800"}, r"data\['x'\] is not encodable as UTF-8"),
    ],
)
def test_payload_that_is_not_a_json_object_is_refused_with_its_path(
    data: object, message: str
) -> None:
    """A payload must be a JSON object; the error names the offending place in it."""
    with pytest.raises(RecordError, match=message):
        make_record(1, MOMENT, "card_read", data, GENESIS)  # type: ignore[arg-type]  # bad on purpose


def test_empty_kind_is_refused() -> None:
    """Every record says what it is: an empty kind is refused."""
    with pytest.raises(RecordError, match="kind is empty"):
        make_record(1, MOMENT, "", {}, GENESIS)


def test_payload_is_copied_so_later_changes_do_not_reach_the_record() -> None:
    """The caller may reuse its dict: the record keeps what was appended."""
    data: dict[str, object] = {"seats": [1, 2]}
    record = make_record(1, MOMENT, "hand_started", data, GENESIS)
    data["seats"].append(3)  # type: ignore[attr-defined]  # the caller's own list
    assert record.data == {"seats": [1, 2]}


def test_parse_line_round_trips_a_record() -> None:
    """A written line parses back to an equal record."""
    record = make_record(3, MOMENT, "decision", {"to_act": 5, "pot": 120, "odd": 0.5}, "cd" * 32)
    assert parse_line(record.line()[:-1]) == record


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b"\xff\xfe", r"not UTF-8 at byte 0"),
        (b'{"seq":1,', r"not JSON"),
        (b"[1,2]", r"a JSON list; expected a JSON object"),
        (b'{"seq":1}', r"fields are seq; expected data, hash, kind, prev, seq, ts"),
    ],
)
def test_parse_line_names_what_is_wrong(line: bytes, message: str) -> None:
    """A line that is not a record says why."""
    with pytest.raises(RecordError, match=message):
        parse_line(line)


def _edited(field: str, value: object) -> bytes:
    record = make_record(2, MOMENT, "button", {"button": "fold"}, "ab" * 32)
    fields = json.loads(record.line())
    fields[field] = value
    return json.dumps(fields, sort_keys=True, separators=(",", ":")).encode()


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("seq", 0, r"seq is 0; expected a positive integer"),
        ("seq", True, r"seq is True; expected a positive integer"),
        ("ts", "2026-11-29 14:05:25", r"ts is '2026-11-29 14:05:25'; expected UTC ISO-8601"),
        ("ts", "2026-02-30T14:05:25.000000Z", r"not a real date and time"),
        ("kind", "", r"kind is ''; expected a non-empty string"),
        ("data", [], r"data is \[\]; expected a JSON object"),
        ("prev", "AB" * 32, r"prev is 'ABAB.*expected 64 lowercase hex digits"),
        ("hash", "0" * 63, r"hash is '0{63}'; expected 64 lowercase hex digits"),
        ("hash", "1" * 64, r"does not match the record's content.*edited"),
        ("data", {"button": "check_call"}, r"does not match the record's content.*edited"),
    ],
)
def test_parse_line_refuses_a_bad_field(field: str, value: object, message: str) -> None:
    """Each field is checked for type and form, and the hash against the content."""
    with pytest.raises(RecordError, match=message):
        parse_line(_edited(field, value))


def test_parse_line_refuses_a_record_rewritten_out_of_canonical_form() -> None:
    """Same content, other bytes (spaces added): refused, since the bytes are what is kept."""
    record = make_record(2, MOMENT, "button", {"button": "fold"}, "ab" * 32)
    spaced = json.dumps(json.loads(record.line()), sort_keys=True).encode()
    with pytest.raises(RecordError, match="not in canonical form"):
        parse_line(spaced)


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"seat": 3, "card": "As", "note": "€ \u00e9 \U0001f0a1", "quote": 'a"b\\c\n'},
        {"events": [{"kind": "card_dealt", "seat": 2, "up": True}, None], "odd": 0.5, "n": -7},
        {"z": 1, "a": {"y": [1, [2, {"b": False}]], "x": 1e300}},
    ],
)
def test_the_line_built_on_the_hot_path_is_the_canonical_line(data: dict[str, object]) -> None:
    """make_record_line puts the line together around the data encoded once: it equals
    Record.line() (canonical_json of the fields) byte for byte, and parses back whole."""
    record, line = make_record_line(42, MOMENT, "decision", data, "ab" * 32)
    assert line == record.line()
    assert record.hash == record.computed_hash()
    assert parse_line(line.rstrip(b"\n")) == record


@pytest.mark.parametrize(
    ("kind", "prev"),
    [
        ("card", GENESIS),
        ("card", "ab" * 32),
        ('odd "kind" \\ \u00e9', "ab" * 32),
        ("card", 'not "a" hash'),
        ("card", "\u00e9t\u00e9"),
        ("card", ""),
    ],
)
def test_the_kind_and_prev_on_the_hot_path_are_written_as_canonical_json(
    kind: str, prev: str
) -> None:
    """The hot path writes a hex hash (or the genesis) without the encoder and keeps each kind's
    text: any kind and any prev still give the canonical line, twice in a row."""
    for _ in range(2):
        record, line = make_record_line(7, MOMENT, kind, {"n": 1}, prev)
        assert line == record.line()
        assert record.hash == record.computed_hash()


def test_a_mapping_that_is_not_a_dict_is_still_taken_as_a_json_object() -> None:
    """Any Mapping with JSON values is a payload (the full check, not the hot path's copy)."""
    record = make_record(1, MOMENT, "button", MappingProxyType({"button": "fold"}), GENESIS)
    assert record.data == {"button": "fold"}
    assert type(record.data) is dict


@pytest.mark.parametrize(
    ("data_text", "message"),
    [
        ('{"x":NaN}', r"holds NaN; expected finite numbers only"),
        ('{"x":-Infinity}', r"holds -Infinity; expected finite numbers only"),
        ('{"x":1e999}', r"holds a number out of range"),
        ('{"x":"\\ud800"}', r"holds a string that is not encodable as UTF-8"),
    ],
)
def test_parse_line_refuses_what_json_reads_but_a_record_cannot_hold(
    data_text: str, message: str
) -> None:
    """NaN, infinity and an escaped lone surrogate read as JSON but are no record's data: a
    RecordError says so (a complete line holding one is an edit, not a torn line)."""
    record = make_record(2, MOMENT, "button", {"x": 1}, "ab" * 32)
    line = record.line()[:-1].replace(b'{"x":1}', data_text.encode(), 1)
    with pytest.raises(RecordError, match=message) as raised:
        parse_line(line)
    assert type(raised.value) is RecordError  # JSON, but no record's: not UnparsableError


# --- parse_line's fast path (msgspec) is the standard library's verdict, faster ---------------

_KEYS = st.text(max_size=6)
_PLAIN = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=examples(300), deadline=None)
@given(st.dictionaries(_KEYS, _PLAIN, max_size=5))
def test_msgspecs_sorted_encoding_of_json_without_floats_is_the_canonical_one(
    data: dict[str, object],
) -> None:
    """The fast path's ground: for any JSON object without a float, msgspec's sorted encoding is
    the canonical JSON (sorted keys, no spaces, UTF-8, the same escapes) byte for byte, and
    decodes back to the same value."""
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert _FAST_ENCODER.encode(data) == canonical.encode()
    assert _FAST_DECODER.decode(canonical.encode()) == data


def _verdict(parse: Callable[[bytes], object], line: bytes) -> object:
    try:
        return parse(line)
    except RecordError as error:
        return (type(error), str(error))


@settings(max_examples=examples(300), deadline=None)
@given(
    st.dictionaries(_KEYS, _PLAIN | st.floats(allow_nan=False, allow_infinity=False), max_size=4),
    st.data(),
)
def test_parse_line_gives_the_standard_paths_verdict_on_any_line(
    data: dict[str, object], draw: st.DataObject
) -> None:
    """A record's line, and the line with a byte changed, cut or added: parse_line and the
    standard library's path (_parse_standard) return the same record or the same error."""
    _record, line = make_record_line(7, MOMENT, "decision", data, GENESIS)
    line = line[:-1]
    assert _verdict(parse_line, line) == _verdict(_parse_standard, line) == _record
    at = draw.draw(st.integers(min_value=0, max_value=len(line) - 1))
    byte = draw.draw(st.integers(min_value=0, max_value=255)).to_bytes(1, "big")
    for changed in (line[:at] + byte + line[at + 1 :], line[:at] + line[at + 1 :], line[:at]):
        assert _verdict(parse_line, changed) == _verdict(_parse_standard, changed)


def test_a_float_and_an_odd_line_go_the_standard_way() -> None:
    _record, line = make_record_line(3, MOMENT, "x", {"ms": 1e-05, "b": 1}, GENESIS)
    assert parse_line(line[:-1]) == _record  # 1e-05: written "0.00001" by msgspec
    spaced = line[:-1].replace(b'"b":1', b'"b": 1')
    with pytest.raises(RecordError, match="not in canonical form"):
        parse_line(spaced)


def test_a_float_written_as_msgspec_writes_it_is_not_taken_for_canonical() -> None:
    """1e-05 is "1e-05" in canonical JSON and "0.00001" in msgspec's: a line re-hashed over
    msgspec's form must be refused, as the standard path refuses it."""
    _record, line = make_record_line(3, MOMENT, "x", {"ms": 1e-05}, GENESIS)
    other = line[:-1].replace(b"1e-05", b"0.00001")
    cut = other.index(b',"hash":"')
    text = other[:cut] + other[cut + len(',"hash":""') + 64 :]
    rehashed = other.replace(_record.hash.encode(), hashlib.sha256(text).hexdigest().encode())
    assert _verdict(parse_line, rehashed) == _verdict(_parse_standard, rehashed)
    with pytest.raises(RecordError, match="does not match the record's content"):
        parse_line(rehashed)
