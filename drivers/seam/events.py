"""What every backend tells the controller, whatever its wire: the neutral events of the
device seam (docs/drivers.md, The seam).

A shoe yields ``TagRead``, ``ShoeState`` and ``RepeatDropped``; a panel yields
``ButtonPressed``; both yield ``DeviceUp``, ``DeviceDown`` and ``DeviceRefused`` of their
link. The controller journals each with its origin, ``(device, boot, seq)``
(controller/journal/tablerecords.py ``Origin``): a backend whose device numbers its own messages
passes the device's boot and numbers, one that does not numbers them itself on the host
(docs/drivers.md, Devices without sequence numbers). Pure: data and the enums of the
shoe's and panel's state; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final, Protocol, TypeVar

from controller.poker.inputs import Button, ButtonPress, ReadPoint

#: The table's devices, by role: the card shoe and the dealer's panel. One tuple for the
#: configuration's sections, the journal's ``device`` records, the device state and udev.
SHOE: Final = "shoe"
PANEL: Final = "panel"
ROLES: Final = (SHOE, PANEL)

#: Sequence numbers wrap here (docs/protocol.md 2, ``seq``): what a ``seq`` of any event
#: is, whether the device numbered it or the host did.
SEQ_MODULUS: Final = 10_000

E_contra = TypeVar("E_contra", contravariant=True)


class EventSink(Protocol[E_contra]):
    """Where a backend puts its events: ``queue.Queue`` and ``queue.SimpleQueue`` both are,
    and so is the controller's ``DriverEvents`` (controller/table/dispatch.py)."""

    def put(self, item: E_contra, block: bool = True, timeout: float | None = None) -> None:
        """Hand over one event; a backend's sink is unbounded, so this never waits."""


# --- The shoe's state --------------------------------------------------------------------


class Lid(StrEnum):
    """The shoe's lid."""

    OPEN = "open"
    CLOSED = "closed"


class Reader(StrEnum):
    """The RFID reader's self-test: ``fault`` is the seam's reader fault (docs/drivers.md)."""

    OK = "ok"
    FAULT = "fault"


class Feed(StrEnum):
    """The card path: cards can leave, a card is stuck, or no card is left."""

    OK = "ok"
    JAM = "jam"
    EMPTY = "empty"


# --- A device's link ---------------------------------------------------------------------


class HelloOutcome(StrEnum):
    """What a device's coming up (its hello) meant to the host."""

    #: First contact with this boot of the device: the host starts accepting at its ``seq``.
    NEW_SESSION = "new_session"
    #: The device rebooted: whatever it had not sent before is lost.
    RESTARTED = "restarted"
    #: Same boot as before (a reconnect, or a repeated hello): carry on.
    RESUMED = "resumed"
    #: Same boot, but the device no longer holds messages the host never received: they are
    #: lost, and the host has resynchronised (docs/protocol.md 5, Lost sentences).
    LOST = "lost"
    #: Refused: the protocol or the identity is wrong.
    REFUSED = "refused"


class RejectReason(StrEnum):
    """Why the host refused a device (the tokens of docs/protocol.md 3.3 ``REJ``)."""

    #: The device speaks a protocol (or is a part) the host does not.
    PROTOCOL = "protocol"
    #: The device is not the one the table's configuration names (serial number).
    IDENTITY = "identity"


def seq_distance(earlier: int, later: int) -> int:
    """How many places ``later`` is after ``earlier`` (0..9999, wrapping)."""
    return (later - earlier) % SEQ_MODULUS


@dataclass(frozen=True, slots=True)
class LostRange:
    """Sequence numbers ``first`` to ``last`` (inclusive, wrapping) the host will never get."""

    first: int
    last: int

    @property
    def count(self) -> int:
        """How many messages were lost."""
        return seq_distance(self.first, self.last) + 1

    def __str__(self) -> str:
        return str(self.first) if self.first == self.last else f"{self.first}..{self.last}"


@dataclass(frozen=True, slots=True)
class DeviceUp:
    """The device is (again) talking to the host and was accepted."""

    device: str
    #: The device's boot id (a backend whose device has none makes one per session on the
    #: host: docs/drivers.md, Devices without sequence numbers).
    boot: str
    #: The serial number the device announced, or the one its port is known by ("" if none).
    serial: str
    outcome: HelloOutcome
    #: With outcome lost: the sequence numbers lost (docs/protocol.md 5, Lost sentences).
    lost: LostRange | None = None
    #: What the device says it is, for the log.
    model: str = ""
    firmware: str = ""


@dataclass(frozen=True, slots=True)
class DeviceDown:
    """Communication with the device is lost (silence or a failed port); the backend retries."""

    device: str
    reason: str


@dataclass(frozen=True, slots=True)
class DeviceRefused:
    """The device was refused (protocol or identity); its backend has stopped for good."""

    device: str
    reason: str
    rejected: RejectReason


LinkEvent = DeviceUp | DeviceDown | DeviceRefused


# --- What a shoe reads --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TagRead:
    """The shoe read a tag at a read point (repeats within the window already dropped).

    ``seq`` numbers it within the device's ``boot`` (the origin it is journaled with);
    ``read_ms`` is the reader's clock at the read in milliseconds, wrapping at 2**32: the
    device's own where it has one (docs/protocol.md 3.1 ``CRD``), else the host's.
    """

    uid: str
    point: ReadPoint
    seq: int
    read_ms: int
    #: The reader listed this tag in the same answer as another one before it: two cards in
    #: its field at once (two cards pitched together, docs/hardware.md). A shoe that cannot
    #: tell (a protocol shoe: one tag a sentence) never sets it.
    together: bool = False


@dataclass(frozen=True, slots=True)
class ShoeState:
    """The shoe's lid, reader and feed changed (or were reported after it came up).

    ``reader`` fault is the seam's reader fault: it pauses the table until the shoe reports
    it cleared (docs/app.md, The shoe's state)."""

    lid: Lid
    reader: Reader
    feed: Feed
    #: Its number, for ``commit`` when the controller acknowledges (None: not numbered).
    seq: int | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class RepeatDropped:
    """A tag read again within the repeat window, dropped; sent only when the controller
    acknowledges (``ack_after_commit``), so that it can journal and acknowledge it in order."""

    uid: str
    point: ReadPoint
    seq: int
    #: The reader's clock at the repeat: it slides the window, so the journal keeps it.
    read_ms: int | None = None


ShoeEvent = TagRead | ShoeState | RepeatDropped


# --- What a panel reads -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ButtonPressed:
    """The dealer pressed a button (accepted once, in order)."""

    button: Button
    seq: int

    def to_input(self) -> ButtonPress:
        """The engine's input for this press."""
        return ButtonPress(self.button)


PanelEvent = ButtonPressed
