"""Tags as every shoe backend gives them: the UID's written form and the repeat filter.

A tag's UID travels as 16 uppercase hex digits, most significant byte first (ISO/IEC 15693:
docs/protocol.md 2, ``uid``), or, from a PN532 shoe, as 8, 14 or 20 uppercase hex digits,
UID0 first (ISO/IEC 14443-A: docs/hardware.md, Tags); a deck's enrollment file holds the same
(drivers/deck.py), one family a deck. A
reader sees a tag over and over while it lingers in its field: ``RepeatFilter`` makes that
one read, timed on the reader's clock. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from enum import StrEnum
from typing import Final

from controller.poker.inputs import ReadPoint

_UID = re.compile(r"E0[0-9A-F]{14}")
#: A UID written least significant byte first: its E0 comes last.
_UID_REVERSED = re.compile(r"[0-9A-F]{14}E0")
#: What a UID field must hold (docs/protocol.md 2, ``uid``).
UID_EXPECTED: Final = "16 uppercase hex digits, MSB first, beginning E0"
#: The shoe's clock counts milliseconds since power-up and wraps to 0 here (a 32-bit
#: millisecond tick, about 49.7 days: docs/protocol.md 2, ``read_ms``).
DEVICE_CLOCK_MODULUS: Final = 2**32


def uid_expected(text: str) -> str:
    """What a UID must be, for an error about ``text``; with the byte-order hint exactly
    when ``text`` is a valid UID written least significant byte first (docs/protocol.md 2).
    """
    if _UID_REVERSED.fullmatch(text) and not _UID.fullmatch(text):
        msb_first = "".join(text[i : i + 2] for i in range(14, -1, -2))
        return f"{UID_EXPECTED}; this is {msb_first} sent least significant byte first"
    return UID_EXPECTED


class UidError(ValueError):
    """Text that is not an ISO 15693 tag UID as the protocol writes it."""

    def __init__(self, text: str) -> None:
        self.text = text
        super().__init__(f"tag UID {text!r} (ISO/IEC 15693): expected {uid_expected(text)}")


def is_uid(text: str) -> bool:
    """``text`` is a tag UID as written here (16 uppercase hex digits, MSB first, E0 first)."""
    return _UID.fullmatch(text) is not None


def parse_uid(text: str) -> str:
    """Check a tag UID: 8 bytes as 16 uppercase hex digits, MSB (always E0) first."""
    if not _UID.fullmatch(text):
        raise UidError(text)
    return text


# --- The two tag families a deck may hold (docs/hardware.md, Tags) -------------------------


class TagFamily(StrEnum):
    """Which standard a tag is: a protocol shoe reads ISO/IEC 15693 (docs/protocol.md 2), a
    PN532 shoe ISO/IEC 14443-A (docs/hardware.md)."""

    ISO15693 = "ISO/IEC 15693"
    ISO14443A = "ISO/IEC 14443-A"


#: An ISO/IEC 14443-A UID of 4, 7 or 10 bytes as uppercase hex, UID0 first (as the tag sends
#: it): 8, 14 or 20 digits, never the 16 of an ISO/IEC 15693 UID, so the two never compare
#: equal and the length says the family.
_TYPE_A = re.compile(r"[0-9A-F]{8}|[0-9A-F]{14}|[0-9A-F]{20}")
TAG_EXPECTED: Final = (
    f"{UID_EXPECTED} (ISO/IEC 15693), or 8, 14 or 20 uppercase hex digits, UID0 first "
    "(ISO/IEC 14443-A: a 4-, 7- or 10-byte UID)"
)


class TagUidError(UidError):
    """Text that is a tag UID of neither family."""

    def __init__(self, text: str) -> None:
        expected = TAG_EXPECTED
        hint = uid_expected(text)
        if hint != UID_EXPECTED:  # a 15693 UID written least significant byte first
            expected += hint.removeprefix(UID_EXPECTED)
        ValueError.__init__(self, f"tag UID {text!r}: expected {expected}")
        self.text = text


def tag_family(text: str) -> TagFamily | None:
    """The family of the tag UID ``text``; None if it is a UID of neither."""
    if _UID.fullmatch(text):
        return TagFamily.ISO15693
    if _TYPE_A.fullmatch(text):
        return TagFamily.ISO14443A
    return None


def parse_tag_uid(text: str) -> str:
    """Check a tag UID of either family (a deck file's, an enrollment's): ``TagUidError``."""
    if tag_family(text) is None:
        raise TagUidError(text)
    return text


class RepeatFilter:
    """Drops a tag read again at the same read point within ``window`` seconds of the last,
    timed on the shoe's own clock (docs/protocol.md 7).

    An RFID reader reads a tag over and over while it lingers in the field.
    Whether a read repeats another is decided by the shoe's times of the two
    reads, never by when their sentences arrived: a resend or an outage
    delays a sentence but not its ``read_ms``. The window slides: a tag that
    stays in the field stays filtered. Times of different boots are not
    comparable, so a new boot id starts afresh.

    The shoe's clock wraps at 2**32 ms. Reads arrive in the order they were
    made, so each read's time is taken as at or after the previous read's,
    of any tag: the filter keeps the clock unwrapped, which is right as long
    as two consecutive reads of a boot are less than 2**32 ms (49.7 days) apart.
    """

    def __init__(self, window: float) -> None:
        if not window >= 0:
            raise ValueError(f"RFID repeat window {window}: expected 0 or more seconds")
        self.window = window
        self._window_ms = window * 1000
        self._boot: str | None = None
        self._last_read_ms = 0
        #: The shoe's clock unwrapped: milliseconds since the boot's first read.
        self._elapsed = 0
        #: (uid, point) -> (unwrapped time, read_ms) of the last read of that tag there.
        self._last: dict[tuple[str, ReadPoint], tuple[int, int]] = {}

    def restore(self, boot: str, reads: Iterable[tuple[str, ReadPoint, int]]) -> None:
        """Before the first read: remember ``reads`` (uid, point, read_ms) of ``boot``, in the
        order the shoe made them, as a restarted controller finds them in its journal, so
        that a repeat of a journaled read arriving just after the restart is still a repeat.
        """
        for uid, point, read_ms in reads:
            self.repeats(boot, uid, point, read_ms)

    def repeats(self, boot: str, uid: str, point: ReadPoint, read_ms: int) -> int | None:
        """Record a read; the ``read_ms`` of the read it repeats, or None if it is a new read."""
        if boot != self._boot:
            self._boot, self._last, self._elapsed = boot, {}, 0
        else:
            # docs/protocol.md 7: the shoe's clock only goes forward, wrapping at 2**32.
            self._elapsed += (read_ms - self._last_read_ms) % DEVICE_CLOCK_MODULUS
        self._last_read_ms = read_ms
        now = self._elapsed
        last = self._last.get((uid, point))
        self._last[(uid, point)] = (now, read_ms)
        if len(self._last) > 1024:  # two decks at two points is 208: prune the forgotten
            self._last = {k: v for k, v in self._last.items() if now - v[0] < self._window_ms}
        if last is not None and now - last[0] < self._window_ms:
            return last[1]
        return None
