"""The journal's schema (docs/journal.md, The schema): every record the table journals and
every engine event a decision record holds, declared once, versioned, with typed encode and
decode. Pure: no I/O.

The declarations are dataclasses: the engine's own events (``controller.poker.engine.events``) and,
for each record kind, the dataclass of its ``data`` below. ``encode`` writes a dataclass as the
journal keeps it, ``decode`` reads it back as the dataclass, refusing what does not fit with a
``SchemaError`` naming the record's seq and kind and the field; ``schemajson`` derives the
JSON Schema published in ``docs/schema/journal-v3.json``, versions 1 and 2 beside it (regenerate
it with ``python -m controller.journal.schemadoc``, which writes what ``schemajson`` generates; a
test compares it byte for byte).

Versions (docs/journal.md, The schema): a hand's first decision record (``hand_started``) and
every checkpoint carry ``version``, so each file (it begins with a hand) and every start's
replay (it begins at a checkpoint) begins with it. Version 0 is a journal written before the
schema: the same records without ``version``. A reader takes every version it knows and refuses
a newer one, naming the record and its version.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final

from controller.journal import JsonObject, JsonValue, Record, codec
from controller.poker.engine import events as ev
from controller.poker.engine.tablesetup import HouseRules, Stakes
from controller.poker.inputs import Button, ReadPoint
from drivers.seam.events import Feed, Lid, Reader

#: The version this code writes. 2: a tag's ``uid`` (card, tag, rfid_repeat records and a
#: checkpoint's reads) is of either family, ISO/IEC 15693 (16 hex digits, E0 first) or
#: ISO/IEC 14443-A (8, 14 or 20 hex digits, UID0 first), its length saying which (docs/hardware.md,
#: Tags), and a read's origin may be the host's (a PN532: boot "H..."); version 1 held only
#: ISO/IEC 15693 UIDs (docs/journal.md, The schema: Versions and migration). 3: the records
#: are those of version 2, and a button pressed while the table was paused is refused
#: (its decision a ``Refused``), where version 2 refused only a new hand then and took the
#: other presses (docs/app.md, Devices lost and found; ``TableCore._paused_refusal``).
VERSION: Final = 3
#: Every version this code reads: 0 (no ``version``: before the schema), 1, 2 and 3.
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
    #: Who asked on the control socket: the peer's uid and user name from its credentials
    #: (SO_PEERCRED; absent: a record written before they were journaled).
    uid: int | None = None
    user: str | None = None


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
    """The engine's checkpoint (``controller.poker.engine.checkpoint.TableCheckpoint``)."""

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
class CheckpointSignatureData:
    """A checkpoint's Ed25519 signature by the table's key (docs/journal.md, Signed
    checkpoints; controller/journal/signing.py ``checkpoint_message``): over the checkpoint
    record's own seq and prev, so it covers every record before it."""

    key_id: str
    signature: str


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
    #: None: written by a table without a key (or before checkpoints were signed).
    signature: CheckpointSignatureData | None = None


@dataclass(frozen=True, slots=True)
class TableKeyData:
    """``table_key``: the table's Ed25519 public key, journaled at every start of a table
    that has one (docs/journal.md, Signed checkpoints). A new key names the key it replaces
    and carries that key's signature over the hand-over (``signing.rotation_message``)."""

    #: The 32 raw bytes as 64 lowercase hex digits.
    public_key: str
    #: The first 16 hex digits of SHA-256 of the raw bytes (``signing.key_id``).
    key_id: str
    #: The key_id of the key this one replaces (None: not a rotation).
    previous: str | None = None
    #: The previous key's signature over the hand-over, 128 hex digits.
    rotation_signature: str | None = None


@dataclass(frozen=True, slots=True)
class SoftwareData:
    """``software``: which software ran, journaled first at every start (docs/journal.md, The
    software record; 13:69E-1.28B(d)): ``controller/history/attest.py`` makes it, the same manifest
    and digest ``tablectl attest`` prints."""

    #: tablectl's version, as its installed distribution names it.
    version: str
    #: Every file of the installed packages controller, drivers and simulator: its path from
    #: the site's root, "/" joined, to its SHA-256 hex.
    files: dict[str, str]
    #: The configuration in force (table.toml, its house rules among it): absolute path to
    #: SHA-256 hex.
    config: dict[str, str]
    #: SHA-256 hex of the manifest of ``files`` and ``config`` (``attest.Manifest.digest``).
    digest: str


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
    "table_key": TableKeyData,
    "software": SoftwareData,
}
#: The records of the table's inputs: written without their fields at None (a device event
#: names only what it has, a read without its tag's uid is as journals before them had it).
SPARSE: Final = frozenset(
    {
        "card",
        "tag",
        "button",
        "shoe_status",
        "rfid_repeat",
        "device",
        "deck",
        "seating",
        "table_key",
        "software",
    }
)
#: The records that carry ``version``.
VERSIONED: Final = frozenset({"hand_started", "checkpoint"})


# --- decode and encode (controller/journal/codec.py) -------------------------------------------


def _event(value: Any) -> ev.Event:
    """An engine event: its ``kind`` names its class."""
    kind = value.get("kind") if type(value) is dict else None
    cls = EVENTS.get(kind) if type(kind) is str else None
    if cls is None:
        if type(value) is not dict:
            raise codec.Misfit(f"expected an event (an object with its kind), not {value!r:.80}")
        error = codec.Misfit(f"expected one of {', '.join(EVENTS)}, not {json.dumps(kind)}")
        error.path.append(".kind")
        raise error
    try:
        event: ev.Event = _EVENT_DECODERS[cls](value)
    except codec.Misfit as error:
        error.path.insert(0, f" ({kind})")
        raise
    return event


class _EventDecoders(dict[type[ev.Event], codec.Decoder]):
    """Each event class's decoder, compiled at its first event, not at every process's import
    (docs/performance.md, Process start)."""

    def __missing__(self, cls: type[ev.Event]) -> codec.Decoder:
        decoder = self[cls] = codec.dataclass_decoder(cls, allowed=frozenset({"kind"}))
        return decoder


codec.special(ev.Event, _event)
_EVENT_DECODERS: Final = _EventDecoders()


def decode_event(value: JsonValue, where: str = "event") -> ev.Event:
    """The engine event a decision record's entry holds; SchemaError names what is wrong."""
    try:
        return _event(value)
    except codec.Misfit as error:
        raise SchemaError(_said(where, error)) from None


def _said(where: str, error: codec.Misfit) -> str:
    return f"{where}{error.where()}: {error.reason}"


def decode_events(record: Record) -> list[ev.Event]:
    """The events of a decision record, as the engine's own dataclasses."""
    data = decode(record)
    assert isinstance(data, DecisionData | HandStartedData)
    return list(data.events)


def kept_events(record: Record, kept: frozenset[str]) -> list[tuple[ev.Event, JsonObject]]:
    """A decision record's events of the kinds ``kept`` names, each decoded and with the JSON
    it is journaled as (the schema's encoding of it, as the table wrote it); the others are
    not decoded. The floor's hands keep a few kinds of event (controller/floor/derive.py): the
    dealer's prompts (action_required, card_expected, ...) are half a hand's events.

    SchemaError as ``decode`` gives it, for a kept event that does not fit, an event of no
    kind the schema knows, or a record whose other fields do not fit (a hand's first decision
    is decoded whole)."""
    data = record.data
    events = data.get("events")
    if record.kind != "decision" or type(events) is not list or type(data.get("input")) is not int:
        return [(e, _journaled(e)) for e in decode_events(record) if e.kind in kept]
    found: list[tuple[ev.Event, JsonObject]] = []
    for value in events:
        if not isinstance(value, dict):
            decode(record)  # the SchemaError naming the record and the event
            raise SchemaError(f"{_where(record)}: an event that is not an object")
        kind = value.get("kind")
        if type(kind) is not str:
            decode(record)  # the SchemaError naming the record and the event
            raise SchemaError(f"{_where(record)}: an event without its kind")
        if kind in kept:
            try:
                found.append((_event(value), value))
            except codec.Misfit as error:
                decode(record)  # the SchemaError naming the record, the event and the field
                raise SchemaError(_said(_where(record), error)) from None
        elif kind not in EVENTS:
            decode(record)  # the SchemaError naming the kinds the schema knows
            raise SchemaError(f"{_where(record)}: an event of kind {kind!r}")
    if len(data) != 2:  # a field beyond input and events: decode says which
        decode(record)
    return found


def _journaled(event: ev.Event) -> JsonObject:
    encoded = _EVENT_ENCODERS[type(event)](event)
    assert type(encoded) is dict
    return encoded


def checkpoint_signature(record: Record) -> CheckpointSignatureData | None:
    """A checkpoint record's signature alone (None: unsigned), without decoding the engine's
    state the checkpoint carries (some 5 KB a hand): the floor checks every checkpoint's
    signature as it arrives (controller/floor/keys.py). SchemaError as ``decode`` gives it for
    a signature that does not fit."""
    value = record.data.get("signature")
    if value is None:
        return None
    try:
        found: CheckpointSignatureData = codec.decoder(CheckpointSignatureData)(value)
    except codec.Misfit as error:
        error.path.insert(0, ".signature")
        raise SchemaError(_said(_where(record), error)) from None
    return found


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
    try:
        return codec.decoder(cls)(data)
    except codec.Misfit as error:
        raise SchemaError(_said(where, error)) from None


def decode(record: Record) -> object:
    """A record's data as the dataclass its kind declares (``RECORDS``): SchemaError names the
    record's seq and kind and the field, or a version newer than this code reads."""
    return decode_data(record.kind, record.data, _where(record))


#: Each event class's encoder, its object beginning with the event's ``kind``.
_EVENT_ENCODERS: Final[dict[type, codec.Encoder]] = {
    cls: codec.encoder(cls, cls.kind) for cls in EVENTS.values()
}
codec.special_encoder(ev.Event, lambda event: _EVENT_ENCODERS[type(event)](event))


#: Each record's data class, its kind, and its encoder.
KIND_OF: Final[dict[type, str]] = {cls: kind for kind, cls in RECORDS.items()}
_RECORD_ENCODERS: Final[dict[type, codec.Encoder]] = {
    cls: codec.encoder(cls, sparse=kind in SPARSE) for kind, cls in RECORDS.items()
}


def encode(value: object) -> JsonValue:
    """A declared value (a record's data, an event, a part of one) as the journal keeps it:
    tuples as lists, enums as their words, dataclasses as objects, an event with its
    ``kind``, an input record without its fields at None."""
    cls = type(value)
    code = _EVENT_ENCODERS.get(cls) or _RECORD_ENCODERS.get(cls)
    return (code or codec.encoder(cls))(value)


def record(value: object) -> tuple[str, JsonObject]:
    """The kind and data of the record ``value`` (one of ``RECORDS``' classes) is written as."""
    data = _RECORD_ENCODERS[type(value)](value)
    assert isinstance(data, dict)  # a record's data is an object
    return KIND_OF[type(value)], data


def encode_events(events: list[ev.Event]) -> list[JsonValue]:
    """Events as a decision record keeps them."""
    encoders = _EVENT_ENCODERS
    return [encoders[type(event)](event) for event in events]
