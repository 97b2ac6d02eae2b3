"""Journal records: canonical JSON, the hash over the record, the genesis value, payload checks."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta, timezone
from types import MappingProxyType

import pytest

from controller.journal import GENESIS, RecordError
from controller.journal.record import format_ts, make_record, make_record_line, parse_line

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
