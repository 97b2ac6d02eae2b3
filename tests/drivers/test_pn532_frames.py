"""The PN532 frame codec (drivers/pn532/frames.py): nfcpy's frames byte for byte, whole, split
at every byte, in noise, and as properties; nfcpy's own frame code as the oracle."""

from __future__ import annotations

import logging

import nfc.clf.pn532
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.pn532 import commands
from drivers.pn532.frames import (
    ACK_FRAME,
    ERROR_FRAME,
    NACK_FRAME,
    WAKE_UP,
    Ack,
    Decoded,
    EncodeError,
    ErrorFrame,
    FrameDecoder,
    FrameError,
    FrameErrorKind,
    Information,
    Nack,
    Noise,
    command,
    encode_information,
    response,
)
from tests.drivers import pn532_nfcpy_frames as nfcpy_frames
from tests.drivers.pn532_nfcpy_frames import hexbytes
from tests.tierhelp import examples

pytestmark = pytest.mark.fast


def frames_of(items: list[Decoded]) -> list[Decoded]:
    return [i for i in items if not isinstance(i, Noise)]


def decode_all(data: bytes) -> list[Decoded]:
    return FrameDecoder().feed(data)


def test_ack_nack_error_are_nfcpys() -> None:
    assert hexbytes(nfcpy_frames.ACK) == ACK_FRAME == Ack().encode()
    assert hexbytes(nfcpy_frames.NAK) == NACK_FRAME == Nack().encode()
    assert hexbytes(nfcpy_frames.ERR) == ERROR_FRAME == ErrorFrame().encode()
    assert decode_all(ACK_FRAME + NACK_FRAME + ERROR_FRAME) == [Ack(), Nack(), ErrorFrame()]


def test_standard_and_extended_frames_are_nfcpys() -> None:
    assert command(b"\x00123") == hexbytes(nfcpy_frames.STANDARD_COMMAND)
    assert response(b"\x01456") == hexbytes(nfcpy_frames.STANDARD_ANSWER)
    long_command = b"\x00123" + bytes(256)
    long_answer = b"\x01456" + bytes(256)
    assert command(long_command) == hexbytes(nfcpy_frames.EXTENDED_COMMAND)
    assert response(long_answer) == hexbytes(nfcpy_frames.EXTENDED_ANSWER)
    decoded = decode_all(hexbytes(nfcpy_frames.EXTENDED_ANSWER))
    assert decoded == [Information(0xD5, long_answer)]
    assert isinstance(decoded[0], Information)
    assert decoded[0].extended


def test_open_sequence_literals_are_nfcpys() -> None:
    assert command(commands.get_firmware_version()) == hexbytes(nfcpy_frames.GET_VERSION_COMMAND)
    assert response(b"\x03\x32\x01\x06\x07").startswith(
        hexbytes(nfcpy_frames.GET_VERSION_ANSWER_HEAD)
    )
    assert command(commands.sam_configuration_normal()) == hexbytes(nfcpy_frames.SAM_COMMAND)
    assert response(b"\x15") == hexbytes(nfcpy_frames.SAM_ANSWER)
    assert response(b"\x11") == hexbytes(nfcpy_frames.SET_BAUD_ANSWER)


@pytest.mark.parametrize(("what", "body", "answer"), nfcpy_frames.EXCHANGES)
def test_every_exchange_of_the_driver_is_nfcpys(what: str, body: str, answer: str) -> None:
    """Each command the driver sends, framed by us and by nfcpy's Chipset.command, and each
    answer framed by us read back by nfcpy's as the same bytes."""
    transport = RecordingTransport([ACK_FRAME, response(hexbytes(answer))])
    chipset = nfc.clf.pn532.Chipset(transport, logging.getLogger("nfcpy-oracle"))
    data = hexbytes(body)
    got = chipset.command(data[0], data[1:], 1.0)
    assert transport.written == [command(data)], what
    assert bytes(got) == hexbytes(answer)[1:], what
    assert decode_all(command(data)) == [Information(0xD4, data)]


def test_the_drivers_own_bodies_are_in_the_fixture() -> None:
    bodies = {hexbytes(body) for _, body, _ in nfcpy_frames.EXCHANGES}
    assert commands.get_firmware_version() in bodies
    assert commands.sam_configuration_normal() in bodies
    assert commands.rf_max_retries() in bodies
    assert commands.set_serial_baudrate(115200) in bodies
    assert commands.read_register(0x6339) in bodies
    # The driver asks for two targets where nfcpy asks for one: the frame differs in MaxTg.
    assert commands.in_list_passive_target(1) in bodies
    assert command(commands.in_list_passive_target(2)) == hexbytes("0000ff04fcd44a0200e000")


def test_the_frames_of_a_poll_as_a_pn532_writes_them() -> None:
    """InListPassiveTarget for one target, an NTAG213's answer, an empty field's answer."""
    assert command(commands.in_list_passive_target(1)) == hexbytes("0000FF04FCD44A0100E100")
    ntag = hexbytes("0000FF0FF1D54B0101004400070416C6C2D73881 6100")
    no_tag = hexbytes("0000FF03FDD54B00E000")
    (frame,) = decode_all(ntag)
    assert isinstance(frame, Information)
    (target,) = commands.parse_targets(frame.data)
    assert target.uid == hexbytes(nfcpy_frames.NTAG_UID)
    assert target.sens_res == b"\x00\x44"  # ATQA 0x0044, written MSB first
    (empty,) = decode_all(no_tag)
    assert isinstance(empty, Information)
    assert commands.parse_targets(empty.data) == ()


class RecordingTransport:
    """What nfcpy's Chipset writes, and the frames it reads, one ``read`` a frame."""

    TYPE = "TTY"

    def __init__(self, replies: list[bytes]) -> None:
        self.written: list[bytes] = []
        self.replies = list(replies)

    def write(self, frame: bytearray) -> None:
        self.written.append(bytes(frame))

    def read(self, timeout: int) -> bytearray:
        return bytearray(self.replies.pop(0))


SEQUENCE = (
    WAKE_UP
    + command(b"\x02")
    + ACK_FRAME
    + response(b"\x03\x32\x01\x06\x07")
    + NACK_FRAME
    + response(b"\x01" + bytes(range(256)) + b"\x00\x01")
    + ERROR_FRAME
)
SEQUENCE_FRAMES: list[Decoded] = [
    Information(0xD4, b"\x02"),
    Ack(),
    Information(0xD5, b"\x03\x32\x01\x06\x07"),
    Nack(),
    Information(0xD5, b"\x01" + bytes(range(256)) + b"\x00\x01"),
    ErrorFrame(),
]


def test_whole_and_split_at_every_byte() -> None:
    assert decode_all(SEQUENCE) == SEQUENCE_FRAMES
    for cut in range(1, len(SEQUENCE)):
        decoder = FrameDecoder()
        got = decoder.feed(SEQUENCE[:cut]) + decoder.feed(SEQUENCE[cut:])
        assert got == SEQUENCE_FRAMES, cut
        assert decoder.pending <= 1


def test_byte_by_byte() -> None:
    decoder = FrameDecoder()
    got = [item for byte in SEQUENCE for item in decoder.feed(bytes([byte]))]
    assert got == SEQUENCE_FRAMES


def test_noise_is_reported_and_frames_survive_it() -> None:
    noisy = b"\x13\x37" + ACK_FRAME + b"garbage" + response(b"\x15") + b"\xfe"
    got = decode_all(noisy)
    assert frames_of(got) == [Ack(), Information(0xD5, b"\x15")]
    noise = b"".join(i.raw for i in got if isinstance(i, Noise))
    assert b"\x13\x37" in noise
    assert b"garbage" in noise
    assert noise.endswith(b"\xfe")


def test_wake_up_and_postamble_are_not_noise() -> None:
    assert decode_all(WAKE_UP + bytes(5) + ACK_FRAME + b"\x55\x00") == [Ack()]


def test_length_checksum_error_resynchronises() -> None:
    bad = bytearray(response(b"\x15"))
    bad[4] ^= 0x01  # LCS
    got = decode_all(bytes(bad) + ACK_FRAME)
    errors = [i for i in got if isinstance(i, FrameError)]
    assert [e.kind for e in errors] == [FrameErrorKind.LENGTH_CHECKSUM]
    assert frames_of(got)[-1] == Ack()


def test_data_checksum_error_drops_the_frame() -> None:
    bad = bytearray(response(b"\x4b\x00"))
    bad[-2] ^= 0x40  # DCS
    got = decode_all(bytes(bad) + response(b"\x4b\x00"))
    assert [type(i) for i in got] == [FrameError, Information]
    assert isinstance(got[0], FrameError)
    assert got[0].kind is FrameErrorKind.DATA_CHECKSUM
    assert "data_checksum" in str(got[0])


def test_unknown_tfi_and_zero_length() -> None:
    framed = b"\x00\x00\xff\x02\xfe\xd6\x01\x29\x00"
    (error,) = frames_of(decode_all(framed))
    assert isinstance(error, FrameError)
    assert error.kind is FrameErrorKind.BAD_TFI
    (zero,) = frames_of(decode_all(b"\x00\x00\xff\x00\x00\x00"))
    assert isinstance(zero, FrameError)
    assert zero.kind is FrameErrorKind.BAD_LENGTH


def test_flush_reports_a_frame_cut_by_silence() -> None:
    decoder = FrameDecoder()
    assert decoder.feed(response(b"\x03\x32\x01\x06\x07")[:7]) == []
    error = decoder.flush()
    assert error is not None
    assert error.kind is FrameErrorKind.INCOMPLETE
    assert decoder.pending == 0
    assert decoder.flush() is None


def test_encoder_refuses_what_the_chip_cannot_take() -> None:
    with pytest.raises(EncodeError, match="TFI 0x7f"):
        encode_information(0x7F, b"\x01")
    with pytest.raises(EncodeError, match="at most 265"):
        command(bytes(265))
    with pytest.raises(EncodeError, match="command code"):
        command(b"")


bodies = st.binary(min_size=1, max_size=264)
tfis = st.sampled_from([0xD4, 0xD5])


@settings(max_examples=examples(300))
@given(tfi=tfis, data=bodies, extended=st.booleans())
def test_roundtrip(tfi: int, data: bytes, extended: bool) -> None:
    frame = encode_information(tfi, data, extended=extended)
    assert decode_all(frame) == [Information(tfi, data)]
    (decoded,) = decode_all(frame)
    assert isinstance(decoded, Information)
    assert decoded.extended == (extended or len(data) + 1 > 255)


@settings(max_examples=examples(200))
@given(
    data=st.lists(st.tuples(tfis, bodies), min_size=1, max_size=4),
    cuts=st.lists(st.integers(min_value=0, max_value=2000), max_size=6),
)
def test_any_split_decodes_as_whole(data: list[tuple[int, bytes]], cuts: list[int]) -> None:
    stream = b"".join(encode_information(t, d) for t, d in data)
    expected = [Information(t, d) for t, d in data]
    decoder = FrameDecoder()
    got: list[Decoded] = []
    at = 0
    for cut in [*sorted({c % (len(stream) + 1) for c in cuts}), len(stream)]:
        got += decoder.feed(stream[at:cut])
        at = cut
    assert got == expected


@settings(max_examples=examples(200))
@given(
    data=st.lists(st.tuples(tfis, bodies), min_size=1, max_size=3),
    noise=st.lists(st.binary(max_size=8).filter(lambda b: b"\x00" not in b), max_size=4),
)
def test_noise_without_zero_bytes_never_costs_a_frame(
    data: list[tuple[int, bytes]], noise: list[bytes]
) -> None:
    """Noise between frames (no 00 in it, which could begin a start code) costs no frame.

    A postamble 00 and noise FF read as a start code: that false frame is an error, and
    the real frame after it still decodes."""
    stream = b""
    for i, (t, d) in enumerate(data):
        stream += (noise[i] if i < len(noise) else b"") + encode_information(t, d)
    got = decode_all(stream)
    assert [i for i in got if isinstance(i, Information)] == [Information(t, d) for t, d in data]


@settings(max_examples=examples(300))
@given(st.binary(max_size=300))
def test_garbage_never_raises_and_keeps_little(data: bytes) -> None:
    decoder = FrameDecoder()
    decoder.feed(data)
    assert decoder.pending <= MAX_HELD


MAX_HELD = 7 + 265 + 1


@settings(max_examples=examples(200))
@given(data=st.binary(min_size=1, max_size=262))
def test_nfcpy_reads_every_answer_we_frame(data: bytes) -> None:
    """nfcpy's Chipset.command is the oracle: it checks LCS, DCS and length of our frames."""
    code = 0x40
    transport = RecordingTransport([ACK_FRAME, response(bytes([code + 1]) + data)])
    chipset = nfc.clf.pn532.Chipset(transport, logging.getLogger("nfcpy-oracle"))
    assert bytes(chipset.command(code, data, 1.0)) == data
    assert transport.written == [command(bytes([code]) + data)]
