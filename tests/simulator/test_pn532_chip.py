"""The simulated PN532 (simulator/pn532/chip.py) byte for byte, driven by hand: nfcpy's
open sequence and answers, the RF field over time, and every fault."""

from __future__ import annotations

import pytest

from drivers.pn532 import commands
from drivers.pn532.frames import (
    ACK_FRAME,
    ERROR_FRAME,
    NACK_FRAME,
    WAKE_UP,
    FrameDecoder,
    FrameError,
    Information,
    command,
    response,
)
from simulator.pn532.chip import ACTIVATION_TRY, Tag, VirtualPN532
from tests.drivers import pn532_nfcpy_frames as nfcpy_frames
from tests.drivers.pn532_nfcpy_frames import hexbytes

pytestmark = pytest.mark.fast

NTAG = Tag.ntag213(hexbytes(nfcpy_frames.NTAG_UID))
CLASSIC = Tag.mifare_classic(hexbytes("A1B2C3D4"))
LONG_PREAMBLE = bytes(10)  # nfcpy's wake-up (nfc/clf/pn532.py init)
T0 = 100.0


def awake_chip() -> VirtualPN532:
    chip = VirtualPN532()
    chip.receive(WAKE_UP + command(commands.sam_configuration_normal()), T0)
    assert chip.poll(T0) == ACK_FRAME + response(b"\x15")
    return chip


def exchange(chip: VirtualPN532, body: bytes, now: float = T0) -> bytes:
    chip.receive(command(body), now)
    return chip.poll(now)


def test_nfcpys_open_sequence_byte_for_byte() -> None:
    """The frames nfcpy's TestDevice fixture reads, for the frames it writes."""
    chip = VirtualPN532()
    chip.receive(LONG_PREAMBLE + hexbytes(nfcpy_frames.GET_VERSION_COMMAND), T0)
    assert chip.poll(T0) == ACK_FRAME + response(hexbytes("03 32010607"))
    chip.receive(LONG_PREAMBLE + hexbytes(nfcpy_frames.SAM_COMMAND), T0)
    assert chip.poll(T0) == ACK_FRAME + hexbytes(nfcpy_frames.SAM_ANSWER)
    chip.receive(LONG_PREAMBLE + command(hexbytes("10 07")), T0)
    assert chip.poll(T0) == ACK_FRAME + hexbytes(nfcpy_frames.SET_BAUD_ANSWER)
    chip.receive(ACK_FRAME, T0)
    assert chip.baud == 921600
    line_test = hexbytes("00 00") + bytes(x % 256 for x in range(262))
    chip.receive(command(line_test), T0)
    assert chip.poll(T0) == ACK_FRAME + response(b"\x01" + line_test[1:])
    assert exchange(chip, hexbytes("02")) == ACK_FRAME + response(hexbytes("03 32010607"))
    assert exchange(chip, hexbytes("12 00")) == ACK_FRAME + response(b"\x13")
    for item in nfcpy_frames.OPEN_RF_CONFIGURATION:
        assert exchange(chip, hexbytes(item)) == ACK_FRAME + response(b"\x33")
    assert chip.max_retries == 0x01


@pytest.mark.parametrize(("what", "body", "answer"), nfcpy_frames.EXCHANGES)
def test_every_exchange_of_the_fixture(what: str, body: str, answer: str) -> None:
    chip = awake_chip()
    assert exchange(chip, hexbytes("32 05010001")) == ACK_FRAME + response(b"\x33")
    if "NTAG213" in what:
        chip.place(NTAG, T0, 1.0)
    if "CIU_FIFOData" in what:
        chip.receive(command(hexbytes("4A 0100")), T0)
        chip.poll(T0 + 1)
    now = T0 + 1 if "no tag" in what else T0
    chip.receive(command(hexbytes(body)), T0)
    assert chip.poll(now) == ACK_FRAME + response(hexbytes(answer)), what


def test_asleep_until_the_wake_up() -> None:
    chip = VirtualPN532()
    chip.receive(command(commands.get_firmware_version()), T0)
    assert chip.poll(T0) == b""
    chip.receive(WAKE_UP + command(commands.get_firmware_version()), T0)
    assert chip.poll(T0).startswith(ACK_FRAME)


def test_the_field_over_time_and_two_targets() -> None:
    chip = awake_chip()
    exchange(chip, commands.rf_max_retries())
    poll = commands.in_list_passive_target(2)
    chip.place(CLASSIC, T0, 0.3)
    chip.place(NTAG, T0 + 0.1, 0.3)
    first = exchange(chip, poll, T0)
    assert first == ACK_FRAME + response(commands.encode_targets((target(1, CLASSIC),)))
    both = exchange(chip, poll, T0 + 0.2)
    assert both == ACK_FRAME + response(
        commands.encode_targets((target(1, CLASSIC), target(2, NTAG)))
    )
    assert exchange(chip, poll, T0 + 0.35) == ACK_FRAME + response(
        commands.encode_targets((target(1, NTAG),))
    )
    chip.receive(command(poll), T0 + 0.5)
    assert chip.poll(T0 + 0.5) == ACK_FRAME  # the empty field's answer after the retries
    assert chip.poll(T0 + 0.5 + 2 * ACTIVATION_TRY) == response(b"\x4b\x00")


def target(number: int, tag: Tag) -> commands.TypeATarget:
    return commands.TypeATarget(number, tag.sens_res, tag.sel_res, tag.uid)


def test_unbounded_retries_wait_for_a_tag_and_the_hosts_ack_cancels() -> None:
    chip = awake_chip()
    chip.receive(command(commands.in_list_passive_target(1)), T0)
    assert chip.poll(T0 + 5) == ACK_FRAME
    chip.place(NTAG, T0 + 6, 0.2)
    assert chip.next_deadline() == T0 + 6
    assert chip.poll(T0 + 6) == response(commands.encode_targets((target(1, NTAG),)))
    chip.receive(command(commands.in_list_passive_target(1)), T0 + 7)
    assert chip.poll(T0 + 7) == ACK_FRAME
    chip.receive(ACK_FRAME, T0 + 8)  # the host gives up on it
    chip.place(NTAG, T0 + 9, 0.2)
    assert chip.poll(T0 + 9) == b""
    assert chip.counters.cancelled == 1


def test_nack_fault_and_a_hosts_nack() -> None:
    chip = awake_chip()
    chip.nack()
    assert exchange(chip, commands.get_firmware_version()) == NACK_FRAME
    answer = exchange(chip, commands.get_firmware_version())
    assert answer == ACK_FRAME + response(hexbytes("03 32010607"))
    chip.receive(NACK_FRAME, T0)
    assert chip.poll(T0) == response(hexbytes("03 32010607"))


def test_garbled_answer_fails_its_checksum_and_a_nack_gets_it_whole() -> None:
    chip = awake_chip()
    chip.garble()
    out = exchange(chip, commands.get_firmware_version())
    decoded = FrameDecoder().feed(out)
    assert len(decoded) == 2
    assert isinstance(decoded[1], FrameError)
    chip.receive(NACK_FRAME, T0)
    assert FrameDecoder().feed(chip.poll(T0)) == [Information(0xD5, hexbytes("03 32010607"))]


def test_late_answer_silence_and_unknown_command() -> None:
    chip = awake_chip()
    chip.late(0.5)
    assert exchange(chip, commands.get_firmware_version()) == ACK_FRAME
    assert chip.poll(T0 + 0.4) == b""
    assert chip.poll(T0 + 0.5) == response(hexbytes("03 32010607"))
    chip.silence(T0 + 1, 1.0)
    assert exchange(chip, commands.get_firmware_version(), T0 + 1) == b""
    assert exchange(chip, commands.get_firmware_version(), T0 + 2.5).startswith(ACK_FRAME)
    assert exchange(chip, b"\x99\x01", T0 + 3) == ACK_FRAME + ERROR_FRAME


def test_reset_forgets_everything() -> None:
    chip = awake_chip()
    exchange(chip, commands.rf_max_retries())
    exchange(chip, commands.set_serial_baudrate(921600))
    chip.receive(ACK_FRAME, T0)
    chip.reset()
    assert (chip.awake, chip.baud, chip.max_retries, chip.sam_configured) == (
        False,
        115200,
        0xFF,
        False,
    )
    assert exchange(chip, commands.get_firmware_version()) == b""


def test_a_host_at_another_speed_is_not_heard_and_hears_garbage() -> None:
    chip = VirtualPN532()
    chip.receive(WAKE_UP + command(commands.get_firmware_version()), T0, host_baud=9600)
    assert chip.poll(T0, host_baud=9600) == b""
    chip.receive(WAKE_UP + command(commands.get_firmware_version()), T0, host_baud=115200)
    garbage = chip.poll(T0, host_baud=9600)
    assert garbage
    assert b"\x00\xff" not in garbage  # no start code: not one frame for the host


def test_tag_uid_lengths() -> None:
    with pytest.raises(ValueError, match="expected 4, 7 or 10 bytes"):
        Tag(b"\x01\x02\x03")
    with pytest.raises(ValueError, match="dwell 0"):
        VirtualPN532().place(NTAG, T0, 0)
