"""The PN532's frames on its HSU (UART) line: a pure codec, bytes in, frames and errors out.

NXP UM0701-02 (PN532 User Manual), 6.2.1: every frame is

- a normal information frame: ``00 00 FF LEN LCS TFI PD0..PDn DCS 00``, LEN counting TFI
  and the PDs (1 to 255), LCS making ``LEN + LCS`` zero modulo 256 and DCS making
  ``TFI + PD0 + .. + PDn + DCS`` zero modulo 256;
- an extended information frame: ``00 00 FF FF FF LENM LENL LCS TFI PD0..PDn DCS 00``, for
  up to 265 bytes of TFI and PDs (LCS covers LENM and LENL);
- an ACK ``00 00 FF 00 FF 00`` or a NACK ``00 00 FF FF 00 00``;
- an error frame ``00 00 FF 01 FF 7F 81 00`` (the chip could not parse the host's frame).

TFI is D4 from the host and D5 from the chip; PD0 is the command code (the answer's is
the command's plus one). The leading 00 (preamble) and trailing 00 (postamble), and the
0x55 and 0x00 bytes of the HSU wake-up (UM0701-02 7.2.11, ``WAKE_UP``), are not part of a
frame: the decoder passes over them. Any other byte outside a frame is noise, reported as
``Noise`` (never dropped silently); a frame whose checksum fails is a ``FrameError``.

``FrameDecoder`` has the shape of ``drivers.nmea.FrameDecoder`` (and pymodbus's framers):
partial input is kept between calls, so a frame split at any byte decodes as when whole.
It has no I/O, clock or thread, so the driver and the simulator share it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final

#: The start code every frame carries after its preamble.
START_CODE: Final = b"\x00\xff"
PREAMBLE: Final = 0x00
POSTAMBLE: Final = 0x00
#: The frame identifier of a frame from the host to the chip, and of the chip's answer.
HOST_TO_PN532: Final = 0xD4
PN532_TO_HOST: Final = 0xD5
#: The TFI-position byte of an error frame ("syntax error": UM0701-02 6.2.1.5).
ERROR_CODE: Final = 0x7F
#: TFI and PDs of a normal frame: LEN is one byte, and FF is the extended frame's mark.
MAX_NORMAL: Final = 255
#: TFI and PDs of the largest frame the PN532 takes or sends (UM0701-02 6.2.1.3: 265).
MAX_EXTENDED: Final = 265
#: The HSU wake-up the host sends before its first command: the chip sleeps after power-up
#: until its line sees 0x55 and a long preamble (UM0701-02 7.2.11; libnfc's pn532_uart too).
WAKE_UP: Final = b"\x55\x55" + bytes(14)
#: The bytes the decoder passes over between frames: pre/postamble and the wake-up's 0x55.
_FILLER: Final = frozenset({PREAMBLE, 0x55})

ACK_FRAME: Final = b"\x00\x00\xff\x00\xff\x00"
NACK_FRAME: Final = b"\x00\x00\xff\xff\x00\x00"
ERROR_FRAME: Final = b"\x00\x00\xff\x01\xff\x7f\x81\x00"


class EncodeError(ValueError):
    """A frame that cannot be written (too long, empty, a TFI that is not D4 or D5)."""


@dataclass(frozen=True, slots=True)
class Ack:
    """The chip took the host's command (or the host cancels the one in progress)."""

    def encode(self) -> bytes:
        return ACK_FRAME


@dataclass(frozen=True, slots=True)
class Nack:
    """Send the last frame again: the receiver's frame was garbled (UM0701-02 6.2.1.4)."""

    def encode(self) -> bytes:
        return NACK_FRAME


@dataclass(frozen=True, slots=True)
class ErrorFrame:
    """The chip read a frame it could not parse (a syntax error, UM0701-02 6.2.1.5)."""

    def encode(self) -> bytes:
        return ERROR_FRAME


@dataclass(frozen=True, slots=True)
class Information:
    """An information frame: its TFI (D4 host to chip, D5 chip to host) and its PDs.

    ``data[0]`` is the command code. ``extended`` says how it was (or is to be) written:
    a body of more than 255 bytes with its TFI is always extended.
    """

    tfi: int
    data: bytes
    extended: bool = field(default=False, compare=False)

    @property
    def code(self) -> int:
        """The command (or answer) code: PD0."""
        return self.data[0]

    @property
    def params(self) -> bytes:
        """What follows the code."""
        return self.data[1:]

    def encode(self) -> bytes:
        return encode_information(self.tfi, self.data, extended=self.extended)


Frame = Ack | Nack | ErrorFrame | Information


class FrameErrorKind(StrEnum):
    """Why bytes after a start code are not a frame."""

    #: LEN + LCS (or LENM + LENL + LCS) is not zero modulo 256.
    LENGTH_CHECKSUM = "length_checksum"
    #: TFI + PDs + DCS is not zero modulo 256.
    DATA_CHECKSUM = "data_checksum"
    #: A length of 0, or past the PN532's largest frame.
    BAD_LENGTH = "bad_length"
    #: A TFI that is neither D4, D5 nor an error frame's 7F.
    BAD_TFI = "bad_tfi"
    #: The line fell quiet inside a frame (``FrameDecoder.flush``).
    INCOMPLETE = "incomplete"


@dataclass(frozen=True, slots=True)
class FrameError:
    """Bytes from a start code that are not a frame; ``raw`` is what was dropped."""

    kind: FrameErrorKind
    detail: str
    raw: bytes = field(default=b"", compare=False)

    def __str__(self) -> str:
        return f"PN532 frame error ({self.kind.value}): {self.detail}: {self.raw.hex(' ')}"


@dataclass(frozen=True, slots=True)
class Noise:
    """Bytes outside any frame that are neither pre/postamble nor wake-up."""

    raw: bytes


Decoded = Frame | FrameError | Noise

#: The frames whose LEN and LCS say all: ACK (00 FF) and NACK (FF 00).
_SHORT_FRAMES: Final[dict[tuple[int, int], Frame]] = {(0x00, 0xFF): Ack(), (0xFF, 0x00): Nack()}


def checksum(data: bytes) -> int:
    """The byte that makes ``sum(data) + it`` zero modulo 256 (LCS and DCS)."""
    return -sum(data) & 0xFF


def encode_information(tfi: int, data: bytes, *, extended: bool = False) -> bytes:
    """An information frame of ``tfi`` and ``data`` (PD0 first), preamble to postamble.

    Normal when TFI and data fit in 255 bytes (unless ``extended``), extended otherwise.
    """
    if tfi not in (HOST_TO_PN532, PN532_TO_HOST):
        raise EncodeError(f"TFI {tfi:#04x}: expected D4 (host to PN532) or D5 (PN532 to host)")
    if not data:
        raise EncodeError("an information frame carries a command code: expected 1 byte or more")
    body = bytes([tfi]) + bytes(data)
    if len(body) > MAX_EXTENDED:
        raise EncodeError(
            f"{len(body)} bytes of TFI and data: the PN532 takes at most {MAX_EXTENDED}"
        )
    tail = bytes([checksum(body), POSTAMBLE])
    if len(body) <= MAX_NORMAL and not extended:
        return b"\x00" + START_CODE + bytes([len(body), checksum(bytes([len(body)]))]) + body + tail
    length = len(body).to_bytes(2, "big")
    return b"\x00" + START_CODE + b"\xff\xff" + length + bytes([checksum(length)]) + body + tail


def command(data: bytes) -> bytes:
    """The host's frame for command ``data`` (code first)."""
    return encode_information(HOST_TO_PN532, data)


def response(data: bytes) -> bytes:
    """The chip's frame for answer ``data`` (code first)."""
    return encode_information(PN532_TO_HOST, data)


class FrameDecoder:
    """Bytes in, frames, frame errors and noise out; partial input kept between ``feed``s.

    After a length checksum fails the decoder looks for the next start code just past the
    failed one (the length cannot be trusted); after a data checksum fails it drops the
    whole frame (the length was sound).
    """

    def __init__(self) -> None:
        self._buffer = bytearray()

    @property
    def pending(self) -> int:
        """Bytes held: a frame begun but not yet complete."""
        return len(self._buffer)

    def feed(self, data: bytes) -> list[Decoded]:
        """Decode what ``data`` completes; keep the rest for the next call."""
        self._buffer += data
        out: list[Decoded] = []
        while True:
            item, used = self._next()
            if item is not None:
                out.append(item)
            if used == 0:
                return out
            del self._buffer[:used]

    def flush(self) -> FrameError | None:
        """The line fell quiet: what is held is an incomplete frame (or only filler)."""
        held = bytes(self._buffer)
        self._buffer.clear()
        start = held.find(START_CODE)
        if start < 0:
            return None
        return FrameError(
            FrameErrorKind.INCOMPLETE, f"{len(held) - start} bytes of a frame, then silence", held
        )

    def _next(self) -> tuple[Decoded | None, int]:
        """The next item and the bytes it used; (None, 0) when more input is needed."""
        buf = self._buffer
        start = buf.find(START_CODE)
        if start < 0:
            # Keep a last 00: it may begin a start code.
            keep = 1 if buf.endswith(b"\x00") else 0
            return self._skip(len(buf) - keep)
        if start > 0:
            return self._skip(start)
        return self._frame()

    def _skip(self, count: int) -> tuple[Decoded | None, int]:
        """Pass over ``count`` bytes before a start code: filler quietly, the rest as noise."""
        if count <= 0:
            return None, 0
        skipped = bytes(self._buffer[:count])
        noise = bytes(b for b in skipped if b not in _FILLER)
        return (Noise(skipped) if noise else None), count

    def _frame(self) -> tuple[Decoded | None, int]:
        """Decode the frame whose start code begins the buffer."""
        buf = self._buffer
        length, lcs = (buf[2], buf[3]) if len(buf) >= 4 else (-1, -1)
        short = _SHORT_FRAMES.get((length, lcs))
        if short is not None:
            return short, 4
        extended = (length, lcs) == (0xFF, 0xFF)
        head = 7 if extended else 4
        if len(buf) < head:
            return None, 0
        size_bytes = bytes(buf[4:6]) if extended else bytes([length])
        size = int.from_bytes(size_bytes, "big")
        if (sum(size_bytes) + buf[head - 1]) & 0xFF:
            return self._error(FrameErrorKind.LENGTH_CHECKSUM, "LEN and LCS do not sum to 0", head)
        if not 1 <= size <= MAX_EXTENDED:
            return self._error(
                FrameErrorKind.BAD_LENGTH, f"length {size}: expected 1 to {MAX_EXTENDED}", head
            )
        end = head + size + 1  # the data, then DCS; the postamble is filler
        if len(buf) < end:
            return None, 0
        return _body(bytes(buf[:end]), head, extended), end

    def _error(self, kind: FrameErrorKind, detail: str, head: int) -> tuple[Decoded, int]:
        """A frame whose length is not to be trusted: drop its start code only."""
        return FrameError(kind, detail, bytes(self._buffer[:head])), len(START_CODE)


def _body(raw: bytes, head: int, extended: bool) -> Frame | FrameError:
    """The frame ``raw`` (start code to DCS) whose length checked: its data checked too."""
    body = raw[head:-1]
    if (sum(body) + raw[-1]) & 0xFF:
        return FrameError(FrameErrorKind.DATA_CHECKSUM, "TFI, data and DCS do not sum to 0", raw)
    if body == bytes([ERROR_CODE]):
        return ErrorFrame()
    if body[0] not in (HOST_TO_PN532, PN532_TO_HOST) or len(body) < 2:
        return FrameError(
            FrameErrorKind.BAD_TFI,
            f"TFI {body[0]:#04x} with {len(body) - 1} data bytes: expected D4 or D5 and a code",
            raw,
        )
    return Information(body[0], body[1:], extended)
