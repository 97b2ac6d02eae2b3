"""The journal's schema (controller/journal/schema.py): the published JSON Schema is the
code's, byte for byte; every record of the committed journals fits it and decodes into the
engine's own events; a record that does not fit, or of a newer version, is refused naming the
record's seq, its kind and the field."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tierhelp import examples

from controller.journal import JournalReader, Record, schema, schemajson
from controller.journal import tablerecords as rec
from controller.journal.schemadoc import PUBLISHED, main
from controller.poker.engine.events import CardDealt, Event, HandStarted, SeatAmount
from controller.poker.engine.tablesetup import Stakes

FIXTURES = Path(__file__).parent / "fixtures"
JOURNALS = [
    FIXTURES / "journal-before-stakes",
    *(FIXTURES / "journal-before-schema" / game for game in ("five-card-stud", "mambo")),
    FIXTURES / "journal-before-schema" / "triple-draw",
    FIXTURES / "journal-v1" / "mambo",  # version 1, before the tag families (version 2)
    FIXTURES / "journal-v2-paused" / "mambo",  # version 2, before every paused press refused
]


def _records() -> list[Record]:
    return [record for journal in JOURNALS for record in JournalReader(journal)]


def _record(kind: str, data: dict[str, Any], seq: int = 7) -> Record:
    ts = "2026-12-01T16:00:00.000000Z"
    return Record(seq=seq, ts=ts, kind=kind, data=data, prev="0" * 64, hash="0" * 64)


# --- a validator of the JSON Schema the generator writes (no dependency for 15 keywords) ----


def _problems(value: Any, node: dict[str, Any], root: dict[str, Any], path: str) -> list[str]:  # noqa: PLR0911, PLR0912 one rule a keyword
    if "$ref" in node:
        return _problems(value, root["$defs"][node["$ref"].split("/")[-1]], root, path)
    if "const" in node and value != node["const"]:
        return [f"{path}: {value!r} is not {node['const']!r}"]
    if "enum" in node and value not in node["enum"]:
        return [f"{path}: {value!r} is not one of {node['enum']}"]
    for keyword in ("anyOf", "oneOf"):
        if keyword in node:
            fits = [not _problems(value, option, root, path) for option in node[keyword]]
            if sum(fits) == 0 or (keyword == "oneOf" and sum(fits) > 1):
                return [f"{path}: {value!r:.80} fits {sum(fits)} of its {keyword}"]
    kind = node.get("type")
    types = {
        "object": dict,
        "array": list,
        "string": str,
        "integer": int,
        "boolean": bool,
        "null": type(None),
    }
    wrong = kind is not None and not isinstance(value, types[kind])
    if wrong or (kind == "integer" and isinstance(value, bool)):
        return [f"{path}: {value!r:.80} is not of type {kind}"]
    if "pattern" in node and not re.search(node["pattern"], value):
        return [f"{path}: {value!r} does not match {node['pattern']}"]
    if "minimum" in node and value < node["minimum"]:
        return [f"{path}: {value} < {node['minimum']}"]
    out: list[str] = []
    if kind == "object":
        properties = node.get("properties", {})
        out += [
            f"{path}: {name} is missing" for name in node.get("required", ()) if name not in value
        ]
        for name, item in value.items():
            if name in properties:
                out += _problems(item, properties[name], root, f"{path}.{name}")
            elif node.get("additionalProperties") is False:
                out.append(f"{path}: {name} is not allowed")
            elif isinstance(node.get("additionalProperties"), dict):
                out += _problems(item, node["additionalProperties"], root, f"{path}.{name}")
    if kind == "array":
        prefix = node.get("prefixItems", [])
        if prefix and node.get("items") is False and len(value) != len(prefix):
            out.append(f"{path}: {len(value)} items, expected {len(prefix)}")
        for i, item in enumerate(value):
            rule = prefix[i] if i < len(prefix) else node.get("items")
            if isinstance(rule, dict):
                out += _problems(item, rule, root, f"{path}[{i}]")
    return out


def _validate(line: dict[str, Any], published: dict[str, Any]) -> list[str]:
    return _problems(line, published, published, "record")


# --- the published file ---------------------------------------------------------------------


@pytest.mark.fast
def test_the_published_schema_is_the_codes_byte_for_byte() -> None:
    """docs/schema/journal-v3.json is what ``python -m controller.journal.schemadoc`` writes now:
    a declaration changed without the file regenerated fails here. Version 1's and 2's files stay
    published beside it, for the journals written at those versions."""
    assert Path(__file__).parents[1] / "docs" / "schema" / "journal-v3.json" == PUBLISHED
    assert (PUBLISHED.parent / "journal-v1.json").is_file()
    assert (PUBLISHED.parent / "journal-v2.json").is_file()
    assert PUBLISHED.read_text(encoding="utf-8") == schemajson.schema_text(), (
        "regenerate it: .venv/bin/python -m controller.journal.schemadoc"
    )


@pytest.mark.fast
def test_the_schema_has_a_definition_for_every_record_kind_and_every_event_and_its_version() -> (
    None
):
    published = json.loads(schemajson.schema_text())
    assert published["version"] == schema.VERSION == 3
    defs = published["$defs"]
    assert {f"record.{kind}" for kind in schema.RECORDS} <= set(defs)
    assert {f"event.{kind}" for kind in schema.EVENTS} <= set(defs)
    assert set(schema.RECORDS) == {
        rec.CARD, rec.TAG, rec.BUTTON, rec.SHOE_STATUS, rec.RFID_REPEAT, rec.DEVICE,
        rec.DECK, rec.DECISION, rec.HAND_STARTED, rec.CHECKPOINT, rec.SEATING,
        "table_key",  # the table's Ed25519 key (docs/journal.md, Signed checkpoints)
        "software",  # which software ran (13:69E-1.28B(d); docs/journal.md, The software record)
    }  # fmt: skip
    # Every event class of the engine is declared (a new one fails here until it is).
    engine = {cls.kind for cls in _subclasses(Event)}
    assert set(schema.EVENTS) == engine
    for kind in schema.VERSIONED:
        assert defs[f"record.{kind}"]["properties"]["version"] == {"const": 3}
        assert "version" in defs[f"record.{kind}"]["required"]
    assert defs["event.card_dealt"]["properties"]["seat"] == {
        "anyOf": [{"type": "integer"}, {"type": "null"}]
    }
    # Version 2: a tag's UID of either family (docs/journal.md, The schema: Versions).
    assert defs["record.tag"]["properties"]["uid"] == {
        "type": "string",
        "pattern": schemajson.UID_PATTERN,
    }


@pytest.mark.fast
@pytest.mark.parametrize(
    ("uid", "fits"),
    [
        ("E004010A0B0C0D0E", True),  # ISO/IEC 15693, as every version wrote
        ("DEADBEEF", True),  # ISO/IEC 14443-A, 4 bytes (MIFARE Classic)
        ("04A2B3C4D5E680", True),  # 7 bytes (NTAG213)
        ("04A2B3C4D5E6801122AA", True),  # 10 bytes
        ("0004010A0B0C0D0E", False),  # 16 digits that are not ISO/IEC 15693
        ("04a2b3c4d5e680", False),  # lowercase
        ("04A2B3C4D5", False),  # 5 bytes: neither family
    ],
)
def test_a_tag_record_of_version_2_holds_a_uid_of_either_family(uid: str, fits: bool) -> None:
    published = json.loads(PUBLISHED.read_text(encoding="utf-8"))
    data = {"device": "shoe", "boot": "H1A2B3C4", "seq": 0, "uid": uid, "point": "slot"}
    line = {**json.loads(_record(rec.TAG, {**data, "reason": "not enrolled"}).line())}
    assert (_validate(line, published) == []) is fits


def _subclasses(cls: type) -> set[type]:
    out = set()
    for sub in cls.__subclasses__():
        out |= {sub, *_subclasses(sub)}
    return out


@pytest.mark.fast
def test_schemadoc_writes_the_file_or_prints_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "schema" / "journal.json"
    assert main([str(target)]) == 0
    assert target.read_text(encoding="utf-8") == schemajson.schema_text()
    assert main(["-"]) == 0
    assert capsys.readouterr().out.endswith(schemajson.schema_text())
    assert main(["a", "b"]) == 2


# --- the records ----------------------------------------------------------------------------


# Not fast: it reads every committed journal, 1.3 s (docs/testing.md, How the tier stays fast).
def test_every_committed_record_fits_the_published_schema_with_its_version() -> None:
    """The journals before the schema (version 0) are version 1's records without the version,
    version 1's are version 2's of the ISO/IEC 15693 family, and version 2's records are version
    3's (only what a paused table refuses changed): each record, given the version, fits the
    published schema (docs/journal.md, The schema: migration)."""
    published = json.loads(PUBLISHED.read_text(encoding="utf-8"))
    records = _records()
    assert {r.kind for r in records} >= {rec.CARD, rec.BUTTON, rec.CHECKPOINT, rec.SEATING}
    for record in records:
        line = json.loads(record.line())
        if record.kind in schema.VERSIONED:
            line["data"]["version"] = schema.VERSION
        assert _validate(line, published) == [], record.seq


@pytest.mark.fast
def test_the_validator_refuses_what_the_schema_does_not_allow() -> None:
    """The check above can fail: a field out of place, a wrong type, an unknown event."""
    published = json.loads(PUBLISHED.read_text(encoding="utf-8"))
    record = next(r for r in _records() if r.kind == rec.DECISION)
    line = json.loads(record.line())
    line["data"]["events"][0]["seat"] = "three"
    assert _validate(line, published)
    line = json.loads(record.line())
    line["data"]["extra"] = 1
    assert _validate(line, published)
    line = json.loads(record.line())
    line["data"]["events"].append({"kind": "card_teleported"})
    assert _validate(line, published)


@pytest.mark.fast
def test_every_committed_decision_decodes_into_the_engines_events_and_back() -> None:
    decisions = [r for r in _records() if r.kind in rec.DECISIONS]
    assert len(decisions) > 500
    for record in decisions:
        events = schema.decode_events(record)
        assert all(isinstance(event, Event) for event in events)
        assert schema.encode_events(events) == record.data["events"], record.seq
    first = schema.decode_events(decisions[0])[0]
    assert isinstance(first, HandStarted)
    assert isinstance(first.antes[0], SeatAmount)
    assert isinstance(first.seats, tuple)


_KEPT = frozenset({"card_dealt", "action_taken", "hand_started", "hand_settled"})


@pytest.mark.fast
def test_kept_events_are_the_decoded_events_of_those_kinds_with_their_journaled_json() -> None:
    """The floor's derive decodes only the events a hand's row keeps (schema.kept_events)."""
    decisions = [r for r in _records() if r.kind in rec.DECISIONS]
    for record in decisions:
        kept = schema.kept_events(record, _KEPT)
        expected = [e for e in schema.decode_events(record) if e.kind in _KEPT]
        assert [event for event, _ in kept] == expected, record.seq
        assert [journaled for _, journaled in kept] == schema.encode_events(expected)
    assert any(len(schema.kept_events(r, _KEPT)) < len(r.data["events"]) for r in decisions)


@pytest.mark.parametrize(
    ("event", "message"),
    [
        ({"kind": "card_dealt", "card": 7}, r"record 12 \(decision\)\.events\[0\]"),
        ({"kind": "card_teleported"}, r"expected one of hand_started"),
        ({"card": "As"}, r"record 12 \(decision\)"),
        ("As", r"record 12 \(decision\)"),
    ],
)
@pytest.mark.fast
def test_kept_events_refuses_a_kept_event_that_does_not_fit_and_an_unknown_kind(
    event: object, message: str
) -> None:
    dealt = {"kind": "card_dealt", **dataclasses.asdict(CardDealt("As", "seat", 1, "down"))}
    if isinstance(event, dict) and event.get("kind") == "card_dealt":
        event = {**dealt, **event}
    record = _record(rec.DECISION, {"input": 11, "events": [event]}, seq=12)
    with pytest.raises(schema.SchemaError, match=message):
        schema.kept_events(record, _KEPT)
    extra = _record(rec.DECISION, {"input": 11, "events": [dealt], "more": 1}, seq=12)
    with pytest.raises(schema.SchemaError, match=r"record 12 \(decision\)"):
        schema.kept_events(extra, _KEPT)


@pytest.mark.fast
def test_a_hand_started_record_and_a_checkpoint_carry_the_version_they_are_written_in() -> None:
    started = HandStarted(hand=1, game="mambo", seats=(1, 2), dealer=0, antes=())
    kind, data = rec.decision_data(3, [started], None)
    assert (kind, data["version"]) == (rec.HAND_STARTED, 3)
    assert "version" not in rec.decision_data(4, [CardDealt("As", "seat", 1, "down")])[1]
    decoded = schema.decode(_record(kind, data))
    assert isinstance(decoded, schema.HandStartedData)
    assert decoded.version == 3
    assert decoded.events == (started,)


@pytest.mark.fast
def test_a_newer_version_is_refused_naming_the_record_and_the_version() -> None:
    started = HandStarted(hand=1, game="mambo", seats=(1, 2), dealer=0, antes=())
    _kind, data = rec.decision_data(3, [started], None)
    data["version"] = 4
    with pytest.raises(schema.SchemaError) as error:
        schema.decode(_record(rec.HAND_STARTED, data, seq=41))
    assert str(error.value) == (
        "journal record 41 (hand_started): schema version 4 is newer than this tablectl reads "
        "(versions 0 to 3): read the journal with the tablectl that wrote it, or a newer one"
    )
    checkpoint = next(r for r in _records() if r.kind == rec.CHECKPOINT)
    newer = _record(rec.CHECKPOINT, {**checkpoint.data, "version": 5}, seq=99)
    with pytest.raises(schema.SchemaError, match=r"record 99 \(checkpoint\): schema version 5"):
        schema.decode(newer)
    assert isinstance(schema.RecordFormatError("x", {}, "y"), ValueError)
    assert issubclass(schema.SchemaError, rec.RecordFormatError)  # tablectl run refuses both


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"seat": "three"},
            "journal record 12 (decision).events[0] (card_dealt).seat: expected a whole number, "
            'not "three"',
        ),
        (
            {"card": None},
            "journal record 12 (decision).events[0] (card_dealt).card: expected a string, not null",
        ),
        (
            {"colour": "red"},
            "journal record 12 (decision).events[0] (card_dealt): field colour is not in the "
            "schema; expected card, destination, seat, face",
        ),
        (
            {"kind": "card_teleported"},
            "journal record 12 (decision).events[0].kind: expected one of hand_started, "
            "street_started",
        ),
    ],
)
@pytest.mark.fast
def test_a_record_that_does_not_fit_is_refused_naming_the_seq_and_the_field(
    change: dict[str, Any], message: str
) -> None:
    event = dataclasses.asdict(CardDealt("As", "seat", 1, "down"))
    event = {"kind": "card_dealt", **event, **change}
    with pytest.raises(schema.SchemaError) as error:
        schema.decode(_record(rec.DECISION, {"input": 11, "events": [event]}, seq=12))
    assert str(error.value).startswith(message)


@pytest.mark.fast
def test_a_missing_field_and_an_unknown_kind_are_named() -> None:
    with pytest.raises(schema.SchemaError, match=r"record 5 \(deck\): field deck is missing"):
        schema.decode(_record(rec.DECK, {"hand": 3}, seq=5))
    with pytest.raises(schema.SchemaError, match=r"record 6 \(teleport\): kind 'teleport'"):
        schema.decode(_record("teleport", {}, seq=6))


# --- encode and decode are each other's inverse, for every declared record -----------------

_stakes = st.builds(
    Stakes,
    small_bet=st.sampled_from([2, 4, 10]),
    big_bet=st.sampled_from([10, 20]),
    ante=st.sampled_from([0, 1, 2]),
    rake_cap=st.none() | st.just(4),
)
# Stakes check their amounts (a ConfigError for a cap of 0, say): draw only stakes a table
# could post. Registered for this module's from_type; no other test draws Stakes by type.
st.register_type_strategy(Stakes, _stakes)
# A field declared as an Event holds one of the schema's events, never the base class.
st.register_type_strategy(
    Event, st.sampled_from(list(schema.EVENTS.values())).flatmap(st.from_type)
)


@pytest.mark.fast
@settings(max_examples=examples(15), deadline=None)
@given(st.data())
@pytest.mark.parametrize("kind", sorted(schema.RECORDS))
def test_every_record_encoded_decodes_back_to_the_same_value(
    kind: str, data: st.DataObject
) -> None:
    value = data.draw(st.from_type(schema.RECORDS[kind]))
    if kind in schema.VERSIONED:  # a version this code reads (newer ones: the test above)
        value = dataclasses.replace(value, version=data.draw(st.sampled_from(schema.VERSIONS_READ)))
    encoded = schema.encode(value)
    assert json.loads(json.dumps(encoded)) == encoded  # plain JSON, as the journal writes it
    assert schema.decode_data(kind, encoded, "the record") == value
