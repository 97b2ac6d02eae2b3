"""PN532 frames as nfcpy's own tests hold them, byte for byte: the fixture of the codec's tests.

Copied (the hex only) from the repository nfcpy/nfcpy:

- tests/base_clf_pn53x.py: ``ACK()``, ``NAK()``, ``ERR()``; the whole frames of
  ``test_command_with_standard_frame`` and ``test_command_with_extended_frame``;
  the command and answer bodies of ``test_sense_tta_no_target_found``,
  ``test_sense_tta_target_is_tt2`` and ``test_in_list_passive_target``.
- tests/test_clf_pn532.py: the bodies of ``TestDevice.device`` (the open sequence:
  GetFirmwareVersion, SAMConfiguration, SetParameters, the RFConfiguration items),
  ``test_set_serial_baudrate`` and ``reg_rsp`` (ReadRegister's answer code 07).
- nfc/clf/pn532.py (nfcpy 1.0.4, ``init``): the literal frames of the HSU open sequence.

A body is the frame's PD0 (command or answer code) and parameters, without TFI:
nfcpy's ``CMD(hex)`` is a D4 frame of ``hex``, ``RSP(hex)`` a D5 frame of it.
"""

from __future__ import annotations

from typing import Final

#: Whole frames (nfcpy's ACK(), NAK(), ERR() and literal frames), preamble to postamble.
ACK: Final = "0000FF00FF00"
NAK: Final = "0000FFFF0000"
ERR: Final = "0000FF01FF7F8100"
#: test_command_with_standard_frame: command 00 with "123", answer 01 with "456".
STANDARD_COMMAND: Final = "0000ff05fbd40031323396 00"
STANDARD_ANSWER: Final = "0000ff05fbd5013435368b00"
#: test_command_with_extended_frame: the same with 256 zero bytes after the three.
EXTENDED_COMMAND: Final = "0000ffffff0105fad400313233" + "00" * 256 + "9600"
EXTENDED_ANSWER: Final = "0000ffffff0105fad501343536" + "00" * 256 + "8b00"
#: nfc/clf/pn532.py init(): GetFirmwareVersion, the head of its answer, SAMConfiguration
#: and its answer, SetSerialBaudrate's answer.
GET_VERSION_COMMAND: Final = "0000ff02fed4022a00"
GET_VERSION_ANSWER_HEAD: Final = "0000ff06fad50332"
SAM_COMMAND: Final = "0000ff05fbd4140100001700"
SAM_ANSWER: Final = "0000ff02fed5151600"
SET_BAUD_ANSWER: Final = "0000ff02fed5111a00"

#: (what it is, command body, answer body): every command the shoe's driver sends.
EXCHANGES: Final[tuple[tuple[str, str, str], ...]] = (
    ("GetFirmwareVersion", "02", "03 32010607"),
    ("SAMConfiguration normal", "14 010000", "15"),
    ("RFConfiguration MaxRetries", "32 05010001", "33"),
    ("SetSerialBaudrate 115200", "10 04", "11"),
    ("SetSerialBaudrate 921600", "10 07", "11"),
    ("InListPassiveTarget, no tag", "4A 0100", "4B 00"),
    ("InListPassiveTarget, NTAG213", "4A 0100", "4B 0101004400070416c6c2d73881"),
    ("ReadRegister CIU_FIFOData", "06 6339", "07 26"),
)
#: nfcpy's eight RFConfiguration items at open (TestDevice.device), each answered "33".
OPEN_RF_CONFIGURATION: Final = (
    "32 02000b0a",
    "32 0400",
    "32 05010001",
    "32 0a59f43f114d85616f266287",
    "32 0b69ff3f114185616f",
    "32 0cff0485",
    "32 0d85158a8508b28501da",
    "32 0102",
)
#: The NTAG213's UID in test_sense_tta_target_is_tt2 (its sdd_res).
NTAG_UID: Final = "0416C6C2D73881"


def hexbytes(text: str) -> bytes:
    """The bytes of hex ``text`` (spaces allowed, as nfcpy writes them)."""
    return bytes.fromhex(text)
