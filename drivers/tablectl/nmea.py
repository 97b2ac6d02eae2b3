"""NMEA 0183-style framing shared by the shoe, the panel and the host (docs/protocol.md).

A sentence on the wire is ``$`` + talker (2 letters) + type (3 letters),
comma-separated fields, ``*``, two uppercase hex digits of the XOR checksum of
every character between ``$`` and ``*``, then CR LF; at most 82 characters in
all. Field text that would collide with the framing characters is escaped as
``^`` and two hex digits, as NMEA 0183 v4 does.

``FrameDecoder`` is the pure streaming half: bytes in, frames and frame errors
out, partial input kept between calls, resynchronising on the next ``$``.
It has no I/O, no clock and no threads, so the host and the device simulator
share it.
"""

from __future__ import annotations

import functools
import operator
import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final

#: NMEA 0183's limit, ``$`` and CR LF included.
MAX_SENTENCE_LENGTH: Final = 82
START: Final = ord("$")
CHECKSUM_MARK: Final = ord("*")
CR: Final = 0x0D
LF: Final = 0x0A

#: Characters NMEA 0183 reserves; a field carries them as ``^`` + two hex digits.
RESERVED: Final = frozenset("$*,!\\^~\r\n")
ESCAPE: Final = "^"


class Talker(StrEnum):
    """Who speaks a sentence: the first two letters after ``$``."""

    SHOE = "SH"
    PANEL = "PN"
    HOST = "HC"


class FrameErrorKind(StrEnum):
    """Why bytes that began with ``$`` are not a sentence."""

    #: The checksum does not match the characters it covers.
    CHECKSUM = "checksum"
    #: No ``*`` and two uppercase hex digits followed by CR LF.
    MALFORMED = "malformed"
    #: More than 82 characters without the closing CR LF.
    TOO_LONG = "too_long"
    #: A ``$`` arrived before the sentence in progress was closed.
    TRUNCATED = "truncated"
    #: A byte outside printable ASCII inside the sentence.
    BAD_BYTE = "bad_byte"
    #: The address is not two talker letters and three type letters.
    BAD_ADDRESS = "bad_address"


@dataclass(frozen=True, slots=True)
class Frame:
    """One well-formed sentence: its talker, its type and its (unescaped) fields."""

    talker: str
    kind: str
    fields: tuple[str, ...]
    raw: bytes = field(default=b"", compare=False, repr=False)

    @property
    def address(self) -> str:
        """Talker and type as written after ``$`` (``SHCRD``)."""
        return self.talker + self.kind


@dataclass(frozen=True, slots=True)
class FrameError:
    """Bytes that began with ``$`` but are not a sentence; ``raw`` is what was dropped."""

    kind: FrameErrorKind
    detail: str
    raw: bytes

    def __str__(self) -> str:
        return f"{self.kind}: {self.detail} in {self.raw!r}"


class EncodeError(ValueError):
    """A sentence that cannot be put on the wire; the message names the field."""


def checksum(body: bytes) -> int:
    """XOR of every byte of ``body`` (the characters between ``$`` and ``*``)."""
    # reduce loops in C: a Python loop over the bytes took twice as long, on every sentence.
    return functools.reduce(operator.xor, body, 0)


def escape(text: str) -> str:
    """Field text with reserved characters as ``^hh``; raises EncodeError on non-ASCII."""
    out = []
    for char in text:
        if not " " <= char <= "~":
            raise EncodeError(f"field text {text!r} has {char!r}; expected printable ASCII")
        out.append(f"^{ord(char):02X}" if char in RESERVED else char)
    return "".join(out)


def unescape(text: str) -> str:
    """Undo ``escape``; raises ValueError naming a ``^`` not followed by two hex digits."""
    if ESCAPE not in text:
        return text
    out = []
    i = 0
    while i < len(text):
        if text[i] == ESCAPE:
            code = text[i + 1 : i + 3]
            if len(code) != 2 or not all(c in "0123456789ABCDEF" for c in code):
                raise ValueError(f"escape {text[i : i + 3]!r} is not '^' and two uppercase hex")
            out.append(chr(int(code, 16)))
            i += 3
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def encode_frame(talker: str, kind: str, fields: tuple[str, ...] = ()) -> bytes:
    """The wire bytes of one sentence; fields are escaped here.

    Raises EncodeError if the address is not 2 + 3 uppercase letters or the
    sentence would exceed 82 characters.
    """
    address = talker + kind
    if len(talker) != 2 or len(kind) != 3 or not address.isalpha() or not address.isupper():
        raise EncodeError(f"address {address!r}: expected 2 talker and 3 type capital letters")
    body = ",".join((address, *(escape(f) for f in fields))).encode("ascii")
    sentence = b"$%s*%02X\r\n" % (body, checksum(body))
    if len(sentence) > MAX_SENTENCE_LENGTH:
        raise EncodeError(
            f"{address} sentence is {len(sentence)} characters; at most "
            f"{MAX_SENTENCE_LENGTH} fit (fields {fields!r})"
        )
    return sentence


@dataclass(slots=True)
class FrameCounters:
    """What a decoder has seen, for the log and the health page."""

    frames: int = 0
    errors: dict[FrameErrorKind, int] = field(default_factory=dict)
    #: Bytes outside any sentence (line noise before a ``$``), dropped silently but counted.
    noise_bytes: int = 0

    @property
    def error_total(self) -> int:
        """Every frame error of every kind."""
        return sum(self.errors.values())


_HEX_UPPER: Final = frozenset(b"0123456789ABCDEF")
#: Inside a sentence: printable ASCII but the ``*`` that closes it.
_BAD_BYTE: Final = re.compile(rb"[^\x20-\x29\x2B-\x7E]")


class FrameDecoder:
    """Streaming decoder: ``feed`` bytes, get back frames and frame errors in order.

    Partial input is kept between calls. Bytes before a ``$`` are noise. A
    ``$`` inside a sentence ends that sentence as truncated and starts the next
    one, so the decoder resynchronises on the next ``$`` after any garbage.
    """

    def __init__(self) -> None:
        self._buffer = bytearray()
        # True once a sentence has run past 82 characters: drop until the next ``$``.
        self._discarding = False
        self.counters = FrameCounters()

    def feed(self, data: bytes) -> list[Frame | FrameError]:
        """Decode as much of the input as is complete.

        Works a run of bytes at a time (up to the next ``$`` or LF, found by ``bytes.find``),
        not a byte at a time: the same frames and errors for any cut of the input
        (tests/drivers/test_nmea_framing.py holds it to the byte-by-byte reading).
        """
        out: list[Frame | FrameError] = []
        buffer = self._buffer
        i, n = 0, len(data)
        while i < n:
            dollar = data.find(b"$", i)
            end = n if dollar < 0 else dollar
            if buffer and not self._discarding and end > i:
                i = self._take(data, i, end, out)
                continue
            if not buffer:
                self.counters.noise_bytes += end - i
            # While discarding an overlong sentence, bytes up to the next "$" are dropped.
            if dollar < 0:
                break
            error = self._start()
            if error is not None:
                out.append(error)
            i = dollar + 1
        return out

    def _take(self, data: bytes, i: int, end: int, out: list[Frame | FrameError]) -> int:
        """Add ``data[i:end]`` (no "$" in it) to the sentence in progress, up to its LF or its
        82nd character; returns where the sentence's bytes stopped."""
        buffer = self._buffer
        lf = data.find(b"\n", i, end)
        stop = end if lf < 0 else lf + 1
        room = MAX_SENTENCE_LENGTH - len(buffer)  # at least 1: a full buffer is discarding
        plain = stop - i - (lf >= 0)  # the bytes before the closing LF
        if plain >= room:
            # The 82nd character is not the LF: the sentence is too long.
            buffer += data[i : i + room]
            self._discarding = True
            out.append(
                self._error(
                    FrameErrorKind.TOO_LONG,
                    f"no CR LF within {MAX_SENTENCE_LENGTH} characters",
                    bytes(buffer),
                )
            )
            return i + room
        buffer += data[i:stop]
        if lf >= 0:
            raw = bytes(buffer)
            buffer.clear()
            out.append(self._parse(raw))
        return stop

    def _start(self) -> FrameError | None:
        truncated = bool(self._buffer) and not self._discarding
        raw = bytes(self._buffer)
        self._buffer[:] = b"$"
        self._discarding = False
        if truncated:
            return self._error(FrameErrorKind.TRUNCATED, "a '$' before CR LF", raw)
        return None

    def _error(self, kind: FrameErrorKind, detail: str, raw: bytes) -> FrameError:
        self.counters.errors[kind] = self.counters.errors.get(kind, 0) + 1
        return FrameError(kind, detail, raw)

    def _parse(self, raw: bytes) -> Frame | FrameError:
        problem = _frame_problem(raw)
        if problem is not None:
            return self._error(*problem, raw)
        text = raw[1:-5].decode("ascii")
        parts = text.split(",")
        if ESCAPE not in text:  # most sentences: no field to unescape
            fields = tuple(parts[1:])
        else:
            try:
                fields = tuple(unescape(p) for p in parts[1:])
            except ValueError as exc:
                return self._error(FrameErrorKind.MALFORMED, str(exc), raw)
        self.counters.frames += 1
        return Frame(parts[0][:2], parts[0][2:], fields, raw)


def _frame_problem(raw: bytes) -> tuple[FrameErrorKind, str] | None:
    """What is wrong with a complete ``$`` ... LF frame, or None."""
    # raw is b"$" body b"*" hh b"\r\n"
    if len(raw) < 6 or raw[-2] != CR or raw[-5] != CHECKSUM_MARK:
        return FrameErrorKind.MALFORMED, "expected '*', two hex digits and CR LF at the end"
    body = raw[1:-5]
    digits = raw[-4:-2]
    if digits[0] not in _HEX_UPPER or digits[1] not in _HEX_UPPER:
        return FrameErrorKind.MALFORMED, f"checksum {digits!r} is not two uppercase hex digits"
    bad = _BAD_BYTE.search(body)
    if bad is not None:
        return FrameErrorKind.BAD_BYTE, f"byte 0x{bad.group()[0]:02X} in the sentence"
    expected = checksum(body)
    if int(digits, 16) != expected:
        return (
            FrameErrorKind.CHECKSUM,
            f"checksum {digits.decode()} but the sentence sums to {expected:02X}",
        )
    address = body.split(b",", 1)[0]
    if len(address) != 5 or not address.isalpha() or not address.isupper():
        return (
            FrameErrorKind.BAD_ADDRESS,
            f"address {address!r}: expected 2 talker and 3 type capital letters",
        )
    return None
