"""What the controller knows of its devices (the shoe, the panel) from the journal's ``device``
records: connected or not, why, their boot and last sentence, and what pauses the table
(docs/app.md, Devices lost and found). Pure: ``TableCore`` (controller/table/core.py) keeps one
``DeviceStatus`` per device and feeds it the records.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from controller.journal import JsonObject
from controller.journal.schema import DeviceData, RecordFormatError
from drivers.seam.events import LostRange, RejectReason


@dataclass
class DeviceStatus:
    """A device as the journal last described it."""

    connected: bool = False
    #: Why it is not connected (lost, refused), or a restart's warning.
    message: str = ""
    #: The boot and last sequenced sentence journaled, to restore the driver.
    boot: str | None = None
    last_seq: int | None = None
    restarted: bool = False
    #: Why the host refused its hello, if it did (docs/protocol.md 4: serial or protocol
    #: version). Its driver has stopped for good: only a restart of the controller, after the
    #: fix, hears it again.
    refused: Cause | None = None
    #: The sequence numbers the device lost, as "12..23" (docs/protocol.md 5, Lost sentences);
    #: empty if none since it was last welcomed.
    lost: str = ""


class Cause(StrEnum):
    """Why a device holds the table, in the panel's few words."""

    LOST = "lost"
    #: Refused: its serial is not the configured one (docs/protocol.md 3.3 ``REJ`` identity).
    WRONG_SERIAL = "wrong serial"
    #: Refused: it speaks another protocol version (docs/protocol.md 3.3 ``REJ`` protocol).
    WRONG_PROTOCOL = "wrong version"
    #: Refused for a reason this controller does not tell apart.
    REFUSED = "refused"
    #: The shoe's RFID reader failed: a card dealt now leaves the shoe unread (3.1 ``STA``).
    READER_FAULT = "reader fault"
    #: A card is stuck in the shoe's slot (3.1 ``STA``).
    JAMMED = "jammed"


class ShoeWarning(StrEnum):
    """A state of the shoe the dealer must see to, that does not stop its reads (docs/app.md,
    The shoe's state)."""

    #: A hand is in play and the lid is open: a card taken through it is not read.
    LID_OPEN = "lid open"
    #: A card is due and the shoe has none left.
    EMPTY = "empty"


#: The causes only a restart of the controller clears (the driver has stopped).
REFUSALS = frozenset({Cause.WRONG_SERIAL, Cause.WRONG_PROTOCOL, Cause.REFUSED})


@dataclass(frozen=True, slots=True)
class Pause:
    """A device that holds the table, why, and the driver's words for it."""

    device: str
    cause: Cause
    detail: str = ""

    @property
    def refused(self) -> bool:
        """Only a restart of the controller, after the device or the configuration is
        fixed, ends this pause."""
        return self.cause in REFUSALS


#: The refusal each of the host's ``REJ`` reasons (docs/protocol.md 3.3) stands for; a
#: reason this controller does not know is a plain refusal.
REJECTED: Final[dict[str, Cause]] = {
    RejectReason.IDENTITY: Cause.WRONG_SERIAL,
    RejectReason.PROTOCOL: Cause.WRONG_PROTOCOL,
}


def take_device_event(devices: dict[str, DeviceStatus], record: DeviceData) -> None:
    """What a ``device`` record says of its device: ready (with its hello's outcome and any
    sentences it lost), lost or refused (docs/app.md, Devices lost and found)."""
    name = record.device
    device = devices.setdefault(name, DeviceStatus())
    event = record.event
    device.refused = (
        REJECTED.get(str(record.rejected), Cause.REFUSED) if event == "refused" else None
    )
    if event == "ready":
        device.connected = True
        device.restarted = record.outcome == "restarted"
        lost = _lost_of(record)
        device.lost = "" if lost is None else str(lost)
        if device.restarted:
            device.message = (
                f"{name} restarted: reads it had not sent before the power cycle are lost; "
                "check every card on the table against the display, press misdeal if one "
                "is missing"
            )
        elif lost is not None:
            device.message = _lost_message(name, device.lost)
        else:
            device.message = ""
        if record.boot is not None and record.boot != device.boot:
            device.boot, device.last_seq = record.boot, None
        if lost is not None:
            # The driver's place moved past them: a restarted controller resumes there.
            device.last_seq = lost.last
    else:
        device.connected = False
        device.message = record.reason or ""


def _lost_of(record: DeviceData) -> LostRange | None:
    """A device record's lost sequence numbers, or None: not a loss."""
    if record.outcome != "lost":
        return None
    if record.lost is None:
        detail: JsonObject = {"device": record.device, "outcome": "lost"}
        raise RecordFormatError("device", detail, "expected lost as [first, last] sequence numbers")
    return LostRange(*record.lost)


def _lost_message(name: str, numbers: str) -> str:
    """What the dealer must do when a device's sentences were lost (docs/app.md)."""
    if name == "panel":
        return (
            f"panel button presses {numbers} never arrived; check the seat to act on the "
            "display and press again any button it does not show"
        )
    return (
        f"{name} sentences {numbers} never arrived (card reads or shoe states); check every "
        "card on the table against the display, press misdeal if one is missing"
    )
