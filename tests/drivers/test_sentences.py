"""Every shoe and panel sentence, both directions: encode, decode, and each field's error."""

from __future__ import annotations

import pytest

from controller.poker.inputs import Button, ReadPoint
from drivers.seam.events import Feed, Lid, Reader, RejectReason
from drivers.seam.tags import UidError, parse_uid
from drivers.tablectl import panel, shoe
from drivers.tablectl.nmea import EncodeError, Talker, encode_frame
from drivers.tablectl.panel import Light, Press, Text
from drivers.tablectl.sentences import (
    Ack,
    Codec,
    DecodeError,
    DecodeErrorKind,
    Heartbeat,
    Hello,
    Query,
    Reject,
    Sentence,
    Welcome,
)
from drivers.tablectl.shoe import CardSeen, ShoeStatus

pytestmark = pytest.mark.fast

UID = "E004015012345678"
HELLO = Hello(41, "RS-200", "SHOE0001", "2.1.0", 1, "5A17C0DE")

SHOE_SAYS: list[Sentence] = [
    HELLO,
    Heartbeat(41),
    CardSeen(41, ReadPoint.DEALING_SLOT, UID, 81523907),
    CardSeen(9999, ReadPoint.DISCARD_READER, UID, 0),
    CardSeen(0, ReadPoint.DEALING_SLOT, UID, 4294967295),
    ShoeStatus(0, Lid.OPEN, Reader.FAULT, Feed.JAM),
    ShoeStatus(7, Lid.CLOSED, Reader.OK, Feed.EMPTY),
]
PANEL_SAYS: list[Sentence] = [
    Hello(0, "DP-8", "PANEL0001", "1.0", 1, "00000001"),
    Heartbeat(3),
    *(Press(n, button) for n, button in enumerate(Button)),
]
HOST_SAYS_TO_SHOE: list[Sentence] = [
    Query(),
    Welcome(),
    Reject(RejectReason.PROTOCOL, "1"),
    Reject(RejectReason.IDENTITY, "SHOE0001"),
    Ack(0),
    Ack(9999),
]
HOST_SAYS_TO_PANEL: list[Sentence] = [
    *HOST_SAYS_TO_SHOE,
    Light(0),
    Light(10),
    Light(11),  # 13:69F-14.13A(b): Mambo seats eleven, a light a seat
    Text(""),
    Text("Seat 3: call $20, raise or fold!"),
    Text("x" * 40),
]


@pytest.mark.parametrize(
    ("sentences", "speaker", "listener"),
    [
        (SHOE_SAYS, shoe.device_codec, shoe.host_codec),
        (PANEL_SAYS, panel.device_codec, panel.host_codec),
        (HOST_SAYS_TO_SHOE, shoe.host_codec, shoe.device_codec),
        (HOST_SAYS_TO_PANEL, panel.host_codec, panel.device_codec),
    ],
    ids=["shoe-to-host", "panel-to-host", "host-to-shoe", "host-to-panel"],
)
def test_every_sentence_round_trips_whole_and_split_at_every_byte(
    sentences: list[Sentence], speaker: type[Codec], listener: type[Codec]
) -> None:
    """What one end encodes the other decodes to the same sentence, however it is cut."""
    wire = b"".join(speaker().encode(s) for s in sentences)
    assert listener().feed(wire) == sentences
    for cut in range(1, len(wire)):
        codec = listener()
        assert codec.feed(wire[:cut]) + codec.feed(wire[cut:]) == sentences
        assert codec.counters.sentences == len(sentences)
        assert codec.counters.error_total == 0


def test_the_documented_card_read_is_exactly_these_bytes() -> None:
    """A card read at the dealing slot, as docs/protocol.md shows it."""
    wire = shoe.device_codec().encode(CardSeen(41, ReadPoint.DEALING_SLOT, UID, 81523907))
    assert wire == b"$SHCRD,41,slot,E004015012345678,81523907*31\r\n"


def test_panel_button_tokens_are_the_engine_button_values() -> None:
    """Each panel button token on the wire maps 1:1 to a controller Button."""
    codec = panel.host_codec()
    for button in Button:
        (press,) = codec.feed(encode_frame("PN", "BTN", ("1", button.value)))
        assert press == Press(1, button)


def decode_one(codec: Codec, talker: str, kind: str, *fields: str) -> DecodeError:
    (item,) = codec.feed(encode_frame(talker, kind, fields))
    assert isinstance(item, DecodeError), item
    return item


@pytest.mark.parametrize(
    ("fields", "field", "expected"),
    [
        (("x", "slot", UID, "5"), "seq", "0 to 9999"),
        (("10000", "slot", UID, "5"), "seq", "0 to 9999"),
        (("-1", "slot", UID, "5"), "seq", "0 to 9999"),
        (("1", "deal", UID, "5"), "point", "slot discard"),
        (("1", "slot", "E00401501234567", "5"), "uid", "16 uppercase hex"),
        (("1", "slot", "e004015012345678", "5"), "uid", "16 uppercase hex"),
        (("1", "slot", "78563412500104E0", "5"), "uid", "beginning E0"),
        (("1", "slot", UID, ""), "read_ms", "0 to 4294967295"),
        (("1", "slot", UID, "-5"), "read_ms", "0 to 4294967295"),
        (("1", "slot", UID, "+5"), "read_ms", "0 to 4294967295"),
        (("1", "slot", UID, "1.5"), "read_ms", "0 to 4294967295"),
        (("1", "slot", UID, "4294967296"), "read_ms", "0 to 4294967295"),
        (("1", "slot", UID, "00000000001"), "read_ms", "0 to 4294967295"),
        (("1", "slot", UID, "5A"), "read_ms", "0 to 4294967295"),
        (("1", "slot", UID), "count", "4 fields"),
        (("1", "slot", UID, "5", "6"), "count", "4 fields"),
    ],
)
def test_each_bad_card_field_is_named_with_what_was_expected(
    fields: tuple[str, ...], field: str, expected: str
) -> None:
    """protocol.md 3.1 CRD: a bad seq, point, uid or read_ms (or a wrong number of fields) is
    a bad_field error naming the field, the text and what was expected."""
    error = decode_one(shoe.host_codec(), "SH", "CRD", *fields)
    assert error.kind is DecodeErrorKind.BAD_FIELD
    assert f"CRD field {field} = " in error.detail
    assert expected in error.detail


@pytest.mark.parametrize(
    ("kind", "fields", "field"),
    [
        ("STA", ("1", "ajar", "ok", "ok"), "lid"),
        ("STA", ("1", "open", "bad", "ok"), "reader"),
        ("STA", ("1", "open", "ok", "stuck"), "feed"),
        ("HEL", ("1", "RS 200", "S1", "1.0", "1", "00000000"), "model"),
        ("HEL", ("1", "RS", "S" * 17, "1.0", "1", "00000000"), "serial"),
        ("HEL", ("1", "RS", "S1", "", "1", "00000000"), "firmware"),
        ("HEL", ("1", "RS", "S1", "1.0", "v1", "00000000"), "protocol"),
        ("HEL", ("1", "RS", "S1", "1.0", "1", "0000000g"), "boot"),
        ("HBT", ("one",), "seq"),
        ("HBT", (), "count"),
    ],
)
def test_each_bad_shoe_field_is_named(kind: str, fields: tuple[str, ...], field: str) -> None:
    """STA, HEL and HBT: each bad field is a bad_field error naming the sentence and field."""
    error = decode_one(shoe.host_codec(), "SH", kind, *fields)
    assert error.kind is DecodeErrorKind.BAD_FIELD
    assert f"{kind} field {field} = " in error.detail


@pytest.mark.parametrize(
    ("kind", "fields", "field"),
    [
        ("BTN", ("1", "shuffle"), "button"),
        ("BTN", ("1", "FOLD"), "button"),
    ],
)
def test_each_bad_panel_field_is_named(kind: str, fields: tuple[str, ...], field: str) -> None:
    """BTN: a token that is not a Button value is a bad_field error listing the buttons."""
    error = decode_one(panel.host_codec(), "PN", kind, *fields)
    assert error.kind is DecodeErrorKind.BAD_FIELD
    assert f"{kind} field {field} = " in error.detail
    assert "new_hand fold check_call" in error.detail


@pytest.mark.parametrize(
    ("kind", "fields", "field"),
    [
        ("LIT", ("12",), "seat"),
        ("LIT", ("one",), "seat"),
        ("TXT", ("x" * 41,), "text"),
        ("ACK", ("99999",), "seq"),
        ("REJ", ("because", "1"), "reason"),
        ("QRY", ("0",), "protocol"),
        ("WEL", (), "count"),
    ],
)
def test_each_bad_host_field_is_named(kind: str, fields: tuple[str, ...], field: str) -> None:
    """Host sentences decoded on the device side name their bad fields too."""
    error = decode_one(panel.device_codec(), "HC", kind, *fields)
    assert error.kind is DecodeErrorKind.BAD_FIELD
    assert f"{kind} field {field} = " in error.detail


def test_a_sentence_from_the_wrong_talker_is_refused() -> None:
    """The host's shoe link drops a panel's sentence, naming both talkers."""
    error = decode_one(shoe.host_codec(), "PN", "BTN", "1", "fold")
    assert error.kind is DecodeErrorKind.WRONG_TALKER
    assert "'PN'" in error.detail
    assert "'SH'" in error.detail


def test_an_unknown_sentence_type_is_refused_listing_the_known_ones() -> None:
    """A well-formed sentence of a type the device has not got is unknown_sentence."""
    error = decode_one(shoe.host_codec(), "SH", "BTN", "1", "fold")
    assert error.kind is DecodeErrorKind.UNKNOWN_SENTENCE
    assert "CRD HBT HEL STA" in error.detail


@pytest.mark.parametrize(
    ("sentence", "match"),
    [
        (CardSeen(1, ReadPoint.DEALING_SLOT, "78563412500104E0", 0), "least significant byte"),
        (CardSeen(10_000, ReadPoint.DEALING_SLOT, UID, 0), "seq 10000"),
        (CardSeen(1, ReadPoint.DEALING_SLOT, UID, 2**32), "read_ms 4294967296"),
        (CardSeen(1, ReadPoint.DEALING_SLOT, UID, -1), "read_ms -1"),
        (Hello(1, "RS 200", "S", "1", 1, "00000000"), "model"),
        (Hello(1, "RS", "S", "1", 1, "xyz"), "boot"),
        (Light(12), "seat 12"),
        (Text("x" * 41), "at most 40"),
        (Text("caf\u00e9"), "printable ASCII"),
        (Text("tab\there"), "printable ASCII"),
        (Text("del\x7f"), "printable ASCII"),
    ],
)
def test_a_sentence_that_cannot_go_on_the_wire_is_refused_by_the_encoder(
    sentence: Sentence, match: str
) -> None:
    """Encoding checks the fields too, so neither end ever writes a sentence the other drops."""
    codec = Codec(Talker.HOST, Talker.SHOE, {})
    with pytest.raises(EncodeError, match=match):
        codec.encode(sentence)


def test_parse_uid_names_a_reversed_uid() -> None:
    """A UID sent least significant byte first is caught and the byte order explained."""
    assert parse_uid(UID) == UID
    with pytest.raises(UidError, match="this is E004015012345678 sent least significant byte"):
        parse_uid("78563412500104E0")


def test_a_crd_uid_sent_lsb_first_gets_the_byte_order_hint_on_the_wire() -> None:
    """docs/protocol.md 2, ``uid``: a CRD whose UID is a valid one reversed byte-wise is a
    bad_field whose message says so and gives the UID most significant byte first."""
    error = decode_one(shoe.host_codec(), "SH", "CRD", "1", "slot", "1234567890ABCDE0", "5")
    assert error.kind is DecodeErrorKind.BAD_FIELD
    assert "least significant byte first" in error.detail
    assert "E0CDAB9078563412" in error.detail


@pytest.mark.parametrize("uid", ["E00401ZZZZ", "E00401501234567", "0004015012345678", "e0" * 8])
def test_a_bad_uid_that_is_no_reversed_uid_gets_no_byte_order_hint(uid: str) -> None:
    """docs/protocol.md 2, ``uid``: the least-significant-byte-first hint is given only when
    the text reads as a valid UID reversed; any other bad UID is told only what a UID is."""
    error = decode_one(shoe.host_codec(), "SH", "CRD", "1", "slot", uid, "5")
    assert error.kind is DecodeErrorKind.BAD_FIELD
    assert "MSB first, beginning E0" in error.detail
    assert "least significant" not in error.detail
    with pytest.raises(UidError) as caught:
        parse_uid(uid)
    assert "least significant" not in str(caught.value)
