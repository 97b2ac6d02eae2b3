"""The NMEA framing layer: checksums, escapes, and the streaming frame decoder.

Modelled on pymodbus's framer tests: every sentence fed whole, split at every
byte position, and buried in noise; every way a frame can be wrong is named.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tierhelp import examples

from drivers.tablectl.nmea import (
    CHECKSUM_MARK,
    LF,
    MAX_SENTENCE_LENGTH,
    START,
    EncodeError,
    Frame,
    FrameDecoder,
    FrameError,
    FrameErrorKind,
    checksum,
    encode_frame,
    escape,
    unescape,
)

pytestmark = pytest.mark.fast

CARD = b"$SHCRD,17,slot,E004015012345678,81523908*3D\r\n"


def frames(decoder: FrameDecoder, data: bytes) -> list[Frame | FrameError]:
    return decoder.feed(data)


class ByteByByte:
    """The framing rules of docs/protocol.md read literally, one byte at a time: the
    reference the decoder's run-at-a-time ``feed`` is held to."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.discarding = False
        self.noise = 0
        self.out: list[tuple[object, ...]] = []

    def feed(self, data: bytes) -> None:
        for byte in data:
            self.step(byte)

    def step(self, byte: int) -> None:
        if byte == START:
            if self.buffer and not self.discarding:
                self.out.append(("error", FrameErrorKind.TRUNCATED, bytes(self.buffer)))
            self.buffer[:] = b"$"
            self.discarding = False
        elif not self.buffer:
            self.noise += 1
        elif not self.discarding:
            self.buffer.append(byte)
            if byte == LF:
                # What the frame holds is the check's business (tested on its own below),
                # not the framing's: the same check, given the frame directly.
                self.out.append(describe(FrameDecoder()._parse(bytes(self.buffer))))
                self.buffer.clear()
            elif len(self.buffer) >= MAX_SENTENCE_LENGTH:
                self.discarding = True
                self.out.append(("error", FrameErrorKind.TOO_LONG, bytes(self.buffer)))


def describe(item: Frame | FrameError) -> tuple[object, ...]:
    if isinstance(item, FrameError):
        return ("error", item.kind, item.raw)
    return ("frame", item.talker, item.kind, item.fields, item.raw)


#: Bytes that mostly make up sentences, with the framing characters common.
framing = st.lists(
    st.one_of(
        st.sampled_from([START, CHECKSUM_MARK, 0x0D, LF, ord(","), ord("^")]),
        st.sampled_from(CARD),
        st.integers(0, 255),
    ),
    max_size=400,
).map(bytes)


@settings(max_examples=examples(300))
@given(
    data=st.one_of(
        framing,
        st.lists(st.sampled_from([CARD, CARD[:30], CARD[25:], b"\r\n", b"$", b"x" * 90])).map(
            b"".join
        ),
        # Sentences about the 82-character limit, CR LF or LF at or past it.
        st.lists(
            st.tuples(st.integers(76, 84), st.sampled_from([b"\r\n", b"\n", b""])).map(
                lambda size_end: b"$" + b"A" * size_end[0] + size_end[1]
            )
        ).map(b"".join),
    ),
    cuts=st.lists(st.integers(1, 90), max_size=20),
)
def test_any_input_cut_anywhere_frames_as_read_byte_by_byte(data: bytes, cuts: list[int]) -> None:
    """The decoder works a run of bytes at a time; its frames, errors and noise count are
    those of the rules read one byte at a time, for any input cut at any places."""
    reference = ByteByByte()
    reference.feed(data)
    decoder = FrameDecoder()
    got: list[tuple[object, ...]] = []
    start = 0
    for size in [*cuts, len(data)]:
        got.extend(describe(item) for item in decoder.feed(data[start : start + size]))
        start += size
    assert got == reference.out
    assert decoder.counters.noise_bytes == reference.noise
    assert decoder.counters.frames == sum(item[0] == "frame" for item in got)


def test_checksum_is_the_xor_of_the_characters_between_dollar_and_star() -> None:
    """The checksum covers exactly the body: '$' and '*' are outside it."""
    body = b"SHCRD,17,slot,E004015012345678,81523908"
    value = 0
    for byte in body:
        value ^= byte
    assert checksum(body) == value
    assert b"$%s*%02X\r\n" % (body, value) == CARD


def test_encode_frame_writes_dollar_address_fields_checksum_crlf() -> None:
    """A sentence is '$', the address, comma-separated fields, '*hh' and CR LF."""
    assert encode_frame("SH", "CRD", ("17", "slot", "E004015012345678", "81523908")) == CARD


def test_a_whole_sentence_decodes_to_its_talker_type_and_fields() -> None:
    """Fed whole, a sentence comes back as one frame with its fields."""
    (frame,) = FrameDecoder().feed(CARD)
    assert frame == Frame("SH", "CRD", ("17", "slot", "E004015012345678", "81523908"))
    assert isinstance(frame, Frame)
    assert frame.raw == CARD


@pytest.mark.parametrize("cut", range(1, len(CARD)))
def test_a_sentence_split_at_any_byte_decodes_once(cut: int) -> None:
    """Partial input is kept between calls: split anywhere, the sentence decodes once."""
    decoder = FrameDecoder()
    assert decoder.feed(CARD[:cut]) == []
    assert decoder.feed(CARD[cut:]) == [
        Frame("SH", "CRD", ("17", "slot", "E004015012345678", "81523908"))
    ]


def test_a_sentence_fed_one_byte_at_a_time_decodes_once() -> None:
    """Byte-by-byte input (a slow line) decodes like whole input."""
    decoder = FrameDecoder()
    out = [item for byte in CARD for item in decoder.feed(bytes([byte]))]
    assert out == [Frame("SH", "CRD", ("17", "slot", "E004015012345678", "81523908"))]


def test_noise_before_and_between_sentences_is_counted_and_dropped() -> None:
    """Bytes outside a sentence are noise: counted, never an error, never a frame."""
    decoder = FrameDecoder()
    out = decoder.feed(b"\x00\xffjunk\r\n" + CARD + b"\x13\x11" + CARD)
    assert [type(item) for item in out] == [Frame, Frame]
    assert decoder.counters.noise_bytes == 10
    assert decoder.counters.error_total == 0
    assert decoder.counters.frames == 2


def test_a_dollar_inside_a_sentence_truncates_it_and_resynchronises() -> None:
    """A '$' before CR LF ends the broken sentence as truncated and starts the next."""
    decoder = FrameDecoder()
    out = decoder.feed(CARD[:20] + CARD)
    assert len(out) == 2
    assert isinstance(out[0], FrameError)
    assert out[0].kind is FrameErrorKind.TRUNCATED
    assert out[0].raw == CARD[:20]
    assert isinstance(out[1], Frame)


def test_a_sentence_past_82_characters_is_too_long_and_the_rest_dropped() -> None:
    """No CR LF within 82 characters: one too-long error, then silence until the next '$'."""
    decoder = FrameDecoder()
    out = decoder.feed(b"$SHCRD," + b"1" * 200 + b"*00\r\n" + CARD)
    assert [type(item) for item in out] == [FrameError, Frame]
    assert isinstance(out[0], FrameError)
    assert out[0].kind is FrameErrorKind.TOO_LONG
    assert len(out[0].raw) == MAX_SENTENCE_LENGTH


def test_a_sentence_of_exactly_82_characters_is_accepted() -> None:
    """82 characters, CR LF included, is the limit and is allowed."""
    field = "A" * (MAX_SENTENCE_LENGTH - len("$SHXYZ,*00\r\n"))
    wire = encode_frame("SH", "XYZ", (field,))
    assert len(wire) == MAX_SENTENCE_LENGTH
    assert FrameDecoder().feed(wire) == [Frame("SH", "XYZ", (field,))]
    with pytest.raises(EncodeError, match="83 characters"):
        encode_frame("SH", "XYZ", (field + "A",))


@pytest.mark.parametrize(
    ("wire", "kind"),
    [
        (CARD.replace(b"*3D", b"*3E"), FrameErrorKind.CHECKSUM),
        (CARD.replace(b"slot", b"slou"), FrameErrorKind.CHECKSUM),
        (CARD.replace(b"*3D", b"*3d"), FrameErrorKind.MALFORMED),
        (CARD.replace(b"*3D\r\n", b"*3D\n"), FrameErrorKind.MALFORMED),
        (CARD.replace(b"*3D\r\n", b"\r\n"), FrameErrorKind.MALFORMED),
        (b"$SHCRD,17,sl\x01t,E004015012345678,81523908*3D\r\n", FrameErrorKind.BAD_BYTE),
        (encode_frame("SH", "CRD", ("17",)).replace(b"SHCRD", b"shcrd"), FrameErrorKind.CHECKSUM),
        (b"$SH1RD,1*%02X\r\n" % checksum(b"SH1RD,1"), FrameErrorKind.BAD_ADDRESS),
        (b"$SHCR,1*%02X\r\n" % checksum(b"SHCR,1"), FrameErrorKind.BAD_ADDRESS),
        (b"$SHTXT,a^4*%02X\r\n" % checksum(b"SHTXT,a^4"), FrameErrorKind.MALFORMED),
    ],
)
def test_each_kind_of_broken_sentence_is_reported_and_counted(
    wire: bytes, kind: FrameErrorKind
) -> None:
    """A broken sentence yields one FrameError of its kind, and the next sentence decodes."""
    decoder = FrameDecoder()
    out = decoder.feed(wire + CARD)
    assert len(out) == 2
    assert isinstance(out[0], FrameError)
    assert out[0].kind is kind, out[0]
    assert out[0].raw == wire
    assert isinstance(out[1], Frame)
    assert decoder.counters.errors == {kind: 1}


@pytest.mark.parametrize("text", ["Seat 3, to call $20", "a*b!c\\d^e~f", "", "plain"])
def test_reserved_characters_travel_escaped_and_come_back(text: str) -> None:
    """NMEA 0183 v4 escapes: reserved characters go as '^hh' and decode back."""
    escaped = escape(text)
    assert not set(escaped) & set("$*,!\\~")
    assert unescape(escaped) == text
    (frame,) = FrameDecoder().feed(encode_frame("HC", "TXT", (text,)))
    assert isinstance(frame, Frame)
    assert frame.fields == (text,)


def test_non_ascii_field_text_cannot_be_encoded() -> None:
    """Only printable ASCII goes on the wire; the error names the text."""
    with pytest.raises(EncodeError, match="printable ASCII"):
        escape("Seat 3 \u2192 call")


@pytest.mark.parametrize("address", [("S", "CRD"), ("SH", "CR"), ("sh", "CRD"), ("S1", "CRD")])
def test_a_bad_address_cannot_be_encoded(address: tuple[str, str]) -> None:
    """The encoder refuses an address that is not 2 + 3 capital letters."""
    with pytest.raises(EncodeError, match="address"):
        encode_frame(*address)
