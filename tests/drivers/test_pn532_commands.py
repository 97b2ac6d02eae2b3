"""The PN532 commands' bodies and answers (drivers/pn532/commands.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.pn532 import commands
from drivers.pn532.commands import ResponseError, TypeATarget
from tests.tierhelp import examples

pytestmark = pytest.mark.fast

MIFARE_CLASSIC = TypeATarget(1, b"\x00\x04", 0x08, bytes.fromhex("A1B2C3D4"))
NTAG213 = TypeATarget(2, b"\x00\x44", 0x00, bytes.fromhex("0416C6C2D73881"))
DESFIRE = TypeATarget(
    1, b"\x03\x44", 0x20, bytes.fromhex("04112233445566"), b"\x06\x75\x77\x81\x02\x80"
)


def test_two_targets_four_and_seven_byte_uids() -> None:
    answer = commands.encode_targets((MIFARE_CLASSIC, NTAG213))
    assert commands.parse_targets(answer) == (MIFARE_CLASSIC, NTAG213)


def test_an_iso_14443_4_target_carries_its_ats() -> None:
    answer = commands.encode_targets((DESFIRE,))
    assert commands.parse_targets(answer) == (DESFIRE,)


@pytest.mark.parametrize(
    ("answer", "says"),
    [
        ("4B", "no NbTg"),
        ("4B 03", "NbTg 3"),
        ("4B 01 01 0044 00 05 0102030405", "NFCID1 of 5 bytes"),
        ("4B 01 01 0044 00 07 010203", "NFCID1 of 7 bytes"),
        ("4B 01 01 0044 00 04 01020304 FF", "1 bytes past its 1 targets"),
        ("4B 01 01 0344 20 04 01020304 06 75", "ATS cut short"),
        ("03 32010607", "answer code 0x03: expected 0x4b"),
        ("", "answer code nothing"),
    ],
)
def test_bad_answers_say_what_was_expected(answer: str, says: str) -> None:
    with pytest.raises(ResponseError, match=says):
        commands.parse_targets(bytes.fromhex(answer))


def test_firmware() -> None:
    firmware = commands.parse_firmware(bytes.fromhex("03 32010607"))
    assert firmware.ic == commands.PN532_IC
    assert str(firmware) == "PN532 v1.6"
    with pytest.raises(ResponseError, match="expected IC, Ver, Rev, Support"):
        commands.parse_firmware(bytes.fromhex("03 3201"))


def test_bodies() -> None:
    assert commands.set_serial_baudrate(921600) == b"\x10\x07"
    with pytest.raises(ValueError, match="baud rate 100000: the PN532's HSU runs at 9600"):
        commands.set_serial_baudrate(100000)
    with pytest.raises(ValueError, match="max targets 3"):
        commands.in_list_passive_target(3)
    assert commands.read_register(0x6339, 0x6303) == b"\x06\x63\x39\x63\x03"


uids = st.sampled_from([4, 7, 10]).flatmap(lambda n: st.binary(min_size=n, max_size=n))
targets = st.builds(
    TypeATarget,
    st.integers(1, 2),
    st.binary(min_size=2, max_size=2),
    st.integers(0, 255).map(lambda s: s & ~0x20),
    uids,
)


@settings(max_examples=examples(200))
@given(st.lists(targets, max_size=2))
def test_targets_roundtrip(found: list[TypeATarget]) -> None:
    assert commands.parse_targets(commands.encode_targets(tuple(found))) == tuple(found)
