"""The PN532 commands the shoe uses: their bodies and their answers, pure (UM0701-02 7).

A body is PD0 (the command code) and its parameters, as ``frames.command`` wraps it. The
answers are checked field by field: ``ResponseError`` says what was expected.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

GET_FIRMWARE_VERSION: Final = 0x02
DIAGNOSE: Final = 0x00
READ_REGISTER: Final = 0x06
WRITE_REGISTER: Final = 0x08
SET_SERIAL_BAUDRATE: Final = 0x10
SET_PARAMETERS: Final = 0x12
SAM_CONFIGURATION: Final = 0x14
POWER_DOWN: Final = 0x16
RF_CONFIGURATION: Final = 0x32
IN_LIST_PASSIVE_TARGET: Final = 0x4A

#: What GetFirmwareVersion's IC byte is on a PN532 (UM0701-02 7.2.2).
PN532_IC: Final = 0x32
#: SetSerialBaudrate's BR byte for each rate (UM0701-02 7.2.8); 115200 is the power-up rate.
BAUD_CODES: Final[dict[int, int]] = {
    9600: 0x00,
    19200: 0x01,
    38400: 0x02,
    57600: 0x03,
    115200: 0x04,
    230400: 0x05,
    460800: 0x06,
    921600: 0x07,
    1288000: 0x08,
}
POWER_UP_BAUD: Final = 115200
#: RFConfiguration's item 5, MaxRetries (UM0701-02 7.3.1): ATR, PSL, passive activation.
MAX_RETRIES_ITEM: Final = 0x05
#: Passive activation tried twice, then InListPassiveTarget answers "0 targets" (about 10 ms
#: at 106 kbps). The power-up value 0xFF retries for ever: a reader that never answers and an
#: empty field would look alike, and a late answer would collide with the next command.
BOUNDED_RETRIES: Final = b"\x01\x00\x01"
#: InListPassiveTarget's BrTy for 106 kbps type A (ISO/IEC 14443-A).
TYPE_A_106: Final = 0x00
#: The most targets InListPassiveTarget can list (UM0701-02 7.3.5).
MAX_TARGETS: Final = 2
#: SAMConfiguration normal mode (no SAM), no timeout, no IRQ: nfcpy's frame too.
SAM_NORMAL: Final = b"\x01\x00\x00"


class ResponseError(ValueError):
    """An answer that is not what its command's answer must be."""


def get_firmware_version() -> bytes:
    return bytes([GET_FIRMWARE_VERSION])


def sam_configuration_normal() -> bytes:
    return bytes([SAM_CONFIGURATION]) + SAM_NORMAL


def rf_max_retries(retries: bytes = BOUNDED_RETRIES) -> bytes:
    return bytes([RF_CONFIGURATION, MAX_RETRIES_ITEM]) + retries


def set_serial_baudrate(baud: int) -> bytes:
    if baud not in BAUD_CODES:
        rates = ", ".join(str(b) for b in BAUD_CODES)
        raise ValueError(f"baud rate {baud}: the PN532's HSU runs at {rates}")
    return bytes([SET_SERIAL_BAUDRATE, BAUD_CODES[baud]])


def in_list_passive_target(max_targets: int = MAX_TARGETS) -> bytes:
    if not 1 <= max_targets <= MAX_TARGETS:
        raise ValueError(f"max targets {max_targets}: expected 1 or 2")
    return bytes([IN_LIST_PASSIVE_TARGET, max_targets, TYPE_A_106])


def read_register(*addresses: int) -> bytes:
    return bytes([READ_REGISTER]) + b"".join(a.to_bytes(2, "big") for a in addresses)


@dataclass(frozen=True, slots=True)
class Firmware:
    """GetFirmwareVersion's answer: IC (0x32 on a PN532), version, revision, support."""

    ic: int
    version: int
    revision: int
    support: int

    def __str__(self) -> str:
        return f"PN5{self.ic:02x} v{self.version}.{self.revision}"


@dataclass(frozen=True, slots=True)
class TypeATarget:
    """One ISO/IEC 14443-A target InListPassiveTarget found at 106 kbps."""

    number: int
    sens_res: bytes
    sel_res: int
    uid: bytes
    ats: bytes = b""


def expect_answer(command_code: int, data: bytes) -> bytes:
    """The parameters of the answer ``data`` to ``command_code``; its code is checked."""
    if not data or data[0] != command_code + 1:
        got = f"{data[0]:#04x}" if data else "nothing"
        raise ResponseError(
            f"answer code {got}: expected {command_code + 1:#04x} "
            f"(the answer to command {command_code:#04x})"
        )
    return data[1:]


def parse_firmware(data: bytes) -> Firmware:
    params = expect_answer(GET_FIRMWARE_VERSION, data)
    if len(params) != 4:
        raise ResponseError(
            f"GetFirmwareVersion answered {len(params)} bytes: expected IC, Ver, Rev, Support"
        )
    return Firmware(*params)


def parse_targets(data: bytes) -> tuple[TypeATarget, ...]:
    """InListPassiveTarget's answer at 106 kbps type A (UM0701-02 7.3.5): NbTg, then per
    target Tg, SENS_RES (2), SEL_RES, NFCIDLength, NFCID1 and, for an ISO/IEC 14443-4 target
    (SEL_RES bit 6), its ATS (whose first byte, TL, counts the ATS itself)."""
    params = expect_answer(IN_LIST_PASSIVE_TARGET, data)
    if not params:
        raise ResponseError("InListPassiveTarget answered no NbTg: expected 0, 1 or 2")
    count, rest = params[0], params[1:]
    if count > MAX_TARGETS:
        raise ResponseError(f"InListPassiveTarget NbTg {count}: expected 0, 1 or 2")
    targets = []
    at = 0
    for index in range(count):
        if len(rest) < at + 5:
            raise ResponseError(f"InListPassiveTarget target {index + 1} is cut short")
        number, sens_res, sel_res, uid_length = (
            rest[at],
            rest[at + 1 : at + 3],
            rest[at + 3],
            rest[at + 4],
        )
        at += 5
        if uid_length not in (4, 7, 10) or len(rest) < at + uid_length:
            raise ResponseError(
                f"InListPassiveTarget target {index + 1}: NFCID1 of {uid_length} bytes "
                f"({len(rest) - at} there): expected 4, 7 or 10 (ISO/IEC 14443-3)"
            )
        uid = rest[at : at + uid_length]
        at += uid_length
        ats = b""
        if sel_res & 0x20:
            if len(rest) <= at or rest[at] < 1 or len(rest) < at + rest[at]:
                raise ResponseError(f"InListPassiveTarget target {index + 1}: ATS cut short")
            ats = rest[at : at + rest[at]]
            at += len(ats)
        targets.append(TypeATarget(number, bytes(sens_res), sel_res, bytes(uid), bytes(ats)))
    if at != len(rest):
        raise ResponseError(
            f"InListPassiveTarget answered {len(rest) - at} bytes past its {count} targets"
        )
    return tuple(targets)


def encode_targets(targets: tuple[TypeATarget, ...]) -> bytes:
    """The chip's answer listing ``targets`` (the simulator's, and the tests')."""
    out = bytearray([IN_LIST_PASSIVE_TARGET + 1, len(targets)])
    for target in targets:
        out += bytes([target.number]) + target.sens_res + bytes([target.sel_res, len(target.uid)])
        out += target.uid + target.ats
    return bytes(out)
