"""The sentences both devices share, field checks, and the per-device codec.

Every sentence is a frozen dataclass with its three-letter ``KIND``, its
fields as text (``to_fields``) and a ``from_fields`` that raises FieldError
naming the field, the text and what was expected (docs/protocol.md lists
them all). A ``Codec`` is one side of one device's link: it decodes what the
other side says and encodes what this side says, so the host and the
simulator use the same code in opposite directions.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import ClassVar, Final, Protocol, Self, TypeVar

from drivers.seam.events import SEQ_MODULUS, RejectReason
from drivers.tablectl.nmea import (
    EncodeError,
    Frame,
    FrameDecoder,
    FrameError,
    Talker,
    encode_frame,
)

#: The protocol versions this code speaks; a device saying another is refused.
PROTOCOL_VERSION: Final = 1

_TOKEN = re.compile(r"[A-Za-z0-9._-]{1,16}")
_BOOT = re.compile(r"[0-9A-F]{8}")
_SEQ = re.compile(r"[0-9]{1,4}")

_E = TypeVar("_E", bound=StrEnum)


class FieldError(ValueError):
    """A field that does not hold what the sentence expects; the message says which."""

    def __init__(self, kind: str, name: str, text: str, expected: str) -> None:
        self.name = name
        super().__init__(f"{kind} field {name} = {text!r}: expected {expected}")


class Sentence(Protocol):
    """What every sentence type provides."""

    KIND: ClassVar[str]

    def to_fields(self) -> tuple[str, ...]: ...

    @classmethod
    def from_fields(cls, fields: tuple[str, ...]) -> Self: ...


def expect_count(kind: str, fields: tuple[str, ...], names: tuple[str, ...]) -> None:
    """Raise FieldError unless there is exactly one field per name."""
    if len(fields) != len(names):
        raise FieldError(
            kind, "count", ",".join(fields), f"{len(names)} fields ({', '.join(names)})"
        )


def parse_seq(kind: str, text: str) -> int:
    """A sequence number: 1 to 4 decimal digits, 0..9999."""
    if not _SEQ.fullmatch(text):
        raise FieldError(kind, "seq", text, "a sequence number, 0 to 9999")
    return int(text)


def check_seq(seq: int) -> None:
    """Raise EncodeError unless ``seq`` is a sequence number the wire can carry."""
    if not 0 <= seq < SEQ_MODULUS:
        raise EncodeError(f"seq {seq}: expected 0 to {SEQ_MODULUS - 1}")


def parse_token(kind: str, name: str, text: str) -> str:
    """A name-like field: 1 to 16 of letters, digits, '.', '_' and '-'."""
    if not _TOKEN.fullmatch(text):
        raise FieldError(kind, name, text, "1 to 16 letters, digits, '.', '_' or '-'")
    return text


def parse_choice(kind: str, name: str, text: str, enum: type[_E]) -> _E:
    """One of an enumeration's values, as written on the wire."""
    try:
        return enum(text)
    except ValueError:
        choices = " ".join(member.value for member in enum)
        raise FieldError(kind, name, text, f"one of: {choices}") from None


def parse_int(kind: str, name: str, text: str, low: int, high: int) -> int:
    """A decimal integer within ``low..high``."""
    if not text.isdigit() or len(text) > 4 or not low <= int(text) <= high:
        raise FieldError(kind, name, text, f"a whole number from {low} to {high}")
    return int(text)


# --- Device to host, both devices ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hello:
    """The device introduces itself; sent on power-up and whenever the host queries.

    ``seq`` is the number of the oldest sentence the device has not had
    acknowledged (or of its next sentence): a host that does not know this
    boot starts accepting there. ``boot`` changes each time the device
    powers up and loses what it had not sent.
    """

    KIND: ClassVar[str] = "HEL"
    seq: int
    model: str
    serial: str
    firmware: str
    protocol: int
    boot: str

    def to_fields(self) -> tuple[str, ...]:
        check_seq(self.seq)
        for name in ("model", "serial", "firmware"):
            value = getattr(self, name)
            if not _TOKEN.fullmatch(value):
                raise EncodeError(f"HEL {name} {value!r}: expected 1 to 16 of A-Z a-z 0-9 . _ -")
        if not _BOOT.fullmatch(self.boot):
            raise EncodeError(f"HEL boot {self.boot!r}: expected 8 uppercase hex digits")
        return (
            str(self.seq),
            self.model,
            self.serial,
            self.firmware,
            str(self.protocol),
            self.boot,
        )

    @classmethod
    def from_fields(cls, fields: tuple[str, ...]) -> Self:
        names = ("seq", "model", "serial", "firmware", "protocol", "boot")
        expect_count(cls.KIND, fields, names)
        seq, model, serial, firmware, protocol, boot = fields
        if not _BOOT.fullmatch(boot):
            raise FieldError(cls.KIND, "boot", boot, "8 uppercase hex digits")
        return cls(
            parse_seq(cls.KIND, seq),
            parse_token(cls.KIND, "model", model),
            parse_token(cls.KIND, "serial", serial),
            parse_token(cls.KIND, "firmware", firmware),
            parse_int(cls.KIND, "protocol", protocol, 1, 999),
            boot,
        )


@dataclass(frozen=True, slots=True)
class _SequenceOnly:
    """A sentence whose one field is a sequence number (Heartbeat, Ack)."""

    KIND: ClassVar[str]
    seq: int

    def to_fields(self) -> tuple[str, ...]:
        check_seq(self.seq)
        return (str(self.seq),)

    @classmethod
    def from_fields(cls, fields: tuple[str, ...]) -> Self:
        expect_count(cls.KIND, fields, ("seq",))
        return cls(parse_seq(cls.KIND, fields[0]))


@dataclass(frozen=True, slots=True)
class Heartbeat(_SequenceOnly):
    """Once a second: the device is alive. ``seq`` as in Hello (oldest unacknowledged)."""

    KIND: ClassVar[str] = "HBT"


# --- Host to device, both devices ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Query:
    """The host opened the port: say hello. ``protocol`` is the version the host speaks."""

    KIND: ClassVar[str] = "QRY"
    protocol: int = PROTOCOL_VERSION

    def to_fields(self) -> tuple[str, ...]:
        return (str(self.protocol),)

    @classmethod
    def from_fields(cls, fields: tuple[str, ...]) -> Self:
        expect_count(cls.KIND, fields, ("protocol",))
        return cls(parse_int(cls.KIND, "protocol", fields[0], 1, 999))


@dataclass(frozen=True, slots=True)
class Welcome:
    """The host accepts the hello: the device may now send (and resend) its sentences."""

    KIND: ClassVar[str] = "WEL"
    protocol: int = PROTOCOL_VERSION

    def to_fields(self) -> tuple[str, ...]:
        return (str(self.protocol),)

    @classmethod
    def from_fields(cls, fields: tuple[str, ...]) -> Self:
        expect_count(cls.KIND, fields, ("protocol",))
        return cls(parse_int(cls.KIND, "protocol", fields[0], 1, 999))


#: The shoe's state, in its own words (docs/protocol.md 3.1 ``STA``): pure, so the
#: controller's core reads its records with them.
@dataclass(frozen=True, slots=True)
class Reject:
    """The host refuses the device; ``expected`` is what it wanted (version or serial)."""

    KIND: ClassVar[str] = "REJ"
    reason: RejectReason
    expected: str

    def to_fields(self) -> tuple[str, ...]:
        return (self.reason.value, self.expected)

    @classmethod
    def from_fields(cls, fields: tuple[str, ...]) -> Self:
        expect_count(cls.KIND, fields, ("reason", "expected"))
        return cls(
            parse_choice(cls.KIND, "reason", fields[0], RejectReason),
            parse_token(cls.KIND, "expected", fields[1]),
        )


@dataclass(frozen=True, slots=True)
class Ack(_SequenceOnly):
    """The host has every sequenced sentence up to and including ``seq`` (cumulative)."""

    KIND: ClassVar[str] = "ACK"


# --- The codec ----------------------------------------------------------------------------


class DecodeErrorKind(StrEnum):
    """Why bytes were not a sentence of the expected device (frame errors included)."""

    CHECKSUM = "checksum"
    MALFORMED = "malformed"
    TOO_LONG = "too_long"
    TRUNCATED = "truncated"
    BAD_BYTE = "bad_byte"
    BAD_ADDRESS = "bad_address"
    #: A well-formed sentence from a talker this side does not listen to.
    WRONG_TALKER = "wrong_talker"
    #: A well-formed sentence of a type this device's protocol has not got.
    UNKNOWN_SENTENCE = "unknown_sentence"
    #: A sentence whose field does not hold what the type expects.
    BAD_FIELD = "bad_field"


@dataclass(frozen=True, slots=True)
class DecodeError:
    """Input that was dropped, why, and the bytes (or sentence) it was."""

    kind: DecodeErrorKind
    detail: str
    raw: bytes

    def __str__(self) -> str:
        return f"{self.kind}: {self.detail}"


@dataclass(slots=True)
class CodecCounters:
    """Sentences decoded and input dropped, by reason."""

    sentences: int = 0
    errors: dict[DecodeErrorKind, int] = field(default_factory=dict)
    noise_bytes: int = 0

    @property
    def error_total(self) -> int:
        """Every decode error of every kind."""
        return sum(self.errors.values())


class Codec:
    """One end of a device link: decodes the other end's sentences, encodes its own.

    ``listen_to`` is the talker this end accepts; ``speak_as`` the talker it
    writes; ``catalogue`` maps type letters to the sentence classes it decodes.
    """

    def __init__(
        self, listen_to: Talker, speak_as: Talker, catalogue: Mapping[str, type[Sentence]]
    ) -> None:
        self.listen_to = listen_to
        self.speak_as = speak_as
        self._catalogue = dict(catalogue)
        self._frames = FrameDecoder()
        self.counters = CodecCounters()

    def encode(self, sentence: Sentence) -> bytes:
        """The wire bytes of a sentence this end sends."""
        return encode_frame(self.speak_as.value, sentence.KIND, sentence.to_fields())

    def feed(self, data: bytes) -> list[Sentence | DecodeError]:
        """Decode whatever sentences ``data`` completes; keeps the partial rest."""
        out: list[Sentence | DecodeError] = []
        noise_before = self._frames.counters.noise_bytes
        for item in self._frames.feed(data):
            decoded = self._decode(item)
            if isinstance(decoded, DecodeError):
                self.counters.errors[decoded.kind] = self.counters.errors.get(decoded.kind, 0) + 1
            else:
                self.counters.sentences += 1
            out.append(decoded)
        # Added, not copied: a driver's counters outlive the codec (a fresh one per reconnect).
        self.counters.noise_bytes += self._frames.counters.noise_bytes - noise_before
        return out

    def _decode(self, item: Frame | FrameError) -> Sentence | DecodeError:
        if isinstance(item, FrameError):
            return DecodeError(DecodeErrorKind(item.kind.value), item.detail, item.raw)
        raw = item.raw
        if item.talker != self.listen_to:
            return DecodeError(
                DecodeErrorKind.WRONG_TALKER,
                f"{item.address} from talker {item.talker!r}; expected {self.listen_to.value!r}",
                raw,
            )
        sentence_type = self._catalogue.get(item.kind)
        if sentence_type is None:
            known = " ".join(sorted(self._catalogue))
            return DecodeError(
                DecodeErrorKind.UNKNOWN_SENTENCE,
                f"type {item.kind!r} from {item.talker}; expected one of: {known}",
                raw,
            )
        try:
            return sentence_type.from_fields(item.fields)
        except FieldError as exc:
            return DecodeError(DecodeErrorKind.BAD_FIELD, str(exc), raw)
