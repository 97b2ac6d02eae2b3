"""The device seam's two protocols, a ``Shoe`` and a ``Panel``, and the backend classes that
make them (docs/drivers.md, The seam).

In python-can's shape: the application holds a ``Shoe`` and a ``Panel`` and never a concrete
driver; each backend is a class registered by name (``drivers.seam.registry``) that reads its
own table.toml keys and opens its device. A device runs its own thread (or threads) and
hands what happened to an ``EventSink`` as the events of ``drivers.seam.events``; nothing it
does blocks the caller.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Final, Protocol

from controller.poker.inputs import ReadPoint
from drivers.seam.events import EventSink, LinkEvent, PanelEvent, ShoeEvent
from drivers.seam.settings import DeviceSettings

if TYPE_CHECKING:
    from controller.tomlcheck import Section

#: The dealer's line as the controller writes it (controller/table/paneltext.py): a panel with a
#: line of text shows this many characters (docs/protocol.md 3.4 ``TXT``).
LINE_WIDTH: Final = 40


class DeviceHeld(Exception):
    """Another program holds the device (its port's lock, a grab): refused, never shared
    (docs/drivers.md, One controller per device). ``device`` is its role once known."""

    device: str | None = None


class Device(Protocol):
    """What the application does with any device: life cycle, restore, acknowledge."""

    #: Its role, "shoe" or "panel": names it in events and the log.
    device: str

    @property
    def running(self) -> bool:
        """Its thread is alive: False before ``start``, after ``stop``, after a refusal."""

    @property
    def boot(self) -> str | None:
        """The boot of the device's session in progress (None before it first came up)."""

    def claim(self) -> None:
        """Before ``start``: take its ports now, on the caller's thread; one another program
        holds raises ``DeviceHeld`` (docs/drivers.md, One controller per device)."""

    def start(self) -> None:
        """Start reading (claiming first if ``claim`` was not called)."""

    def stop(self) -> None:
        """Stop reading and release the ports; returns when done."""

    def replugged(self, port: str, node: str | None) -> None:
        """udev says ``port`` (a ``Port.name``) came back, at ``node`` if it is found by its
        identity: reopen it now, not at the end of the backoff. Any thread."""

    def restore(self, boot: str, last_seq: int) -> None:
        """Before ``start``: the journal holds this boot's messages up to ``last_seq``, so a
        resent one is a duplicate (docs/protocol.md, 4-5). A backend whose device does not
        number its messages has none to drop: it ignores this."""

    def commit(self, seq: int) -> None:
        """The controller has journaled message ``seq`` (docs/journal.md, Durability): tell
        the device, if it takes acknowledgements (``acknowledges``). Any thread."""

    @property
    def acknowledges(self) -> bool:
        """The device holds what it sent until ``commit`` (store and forward): False for a
        device that cannot be told (docs/drivers.md, Devices without sequence numbers)."""

    def line_totals(self) -> dict[str, object]:
        """The line's health over the device's life, as a log field."""


class Shoe(Device, Protocol):
    """A card source: tags read at one or more read points (``points``)."""

    @property
    def points(self) -> frozenset[ReadPoint]:
        """The read points it has (the dealing slot; the discard reader if fitted)."""

    def restore_reads(self, boot: str, reads: Iterable[tuple[str, ReadPoint, int]]) -> None:
        """Before the first read: the journal's reads of ``boot`` (uid, point, read_ms) in
        order, so that a repeat of one arriving after a restart is still a repeat
        (docs/protocol.md 7)."""


@dataclass(frozen=True, slots=True)
class PanelFeatures:
    """What a panel has besides its buttons: the seat lights and a line of text."""

    #: A light per seat: the seat to act is lit.
    lights: bool
    #: Characters of its line of text; 0: none (the dealer's display carries the line).
    text_width: int

    @property
    def shows(self) -> bool:
        """It has a light or a line to set at all."""
        return self.lights or self.text_width > 0


class Panel(Device, Protocol):
    """The dealer's buttons; lights and text where ``features`` says it has them."""

    @property
    def features(self) -> PanelFeatures:
        """What it has besides its buttons."""

    def light_and_show(self, seat: int, text: str) -> None:
        """Light ``seat`` (0: none) and show ``text`` (at most ``LINE_WIDTH``) as one change;
        never blocks. A panel skips what it has not (``features``)."""


# --- Backends -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OpenOptions:
    """How the application opens a device, whatever its backend."""

    #: The backend's only clock: a test or the simulator passes one it controls.
    clock: Callable[[], float] = field(default=time.monotonic)
    #: The controller acknowledges each message itself, with ``commit``, once journaled.
    ack_after_commit: bool = False
    #: A shoe's RFID repeat window in seconds (docs/protocol.md 7).
    repeat_window: float = 0.5


class Backend(ABC):
    """A kind of device: registered by ``kind`` for a ``role`` (``drivers.seam.registry``),
    it owns its ``[devices.<role>]`` keys and opens its device."""

    role: ClassVar[str]
    kind: ClassVar[str]
    #: One line for ``tablectl status`` and docs/drivers.md: what it is.
    summary: ClassVar[str]
    #: The keys of ``[devices.<role>]`` it reads, besides ``kind`` (subsections included).
    keys: ClassVar[tuple[str, ...]]

    @classmethod
    @abstractmethod
    def read_settings(cls, section: Section) -> DeviceSettings | None:
        """Read its section (its keys already checked against ``keys``): every problem
        recorded in ``section`` naming the key (controller/tomlcheck.py), None if any."""

    @classmethod
    def section_for_port(
        cls, port: str, baudrate: int | None, serial: str | None
    ) -> dict[str, object]:
        """The section a command line's ``--port``, ``--baudrate`` and ``--serial`` stand for
        (``tablectl enroll``), for ``read_settings``: by default ``path`` (or ``url`` for a
        URL), ``baudrate`` and ``serial``. A backend whose keys differ says its own."""
        section: dict[str, object] = {"url" if "://" in port else "path": port}
        if baudrate is not None:
            section["baudrate"] = baudrate
        if serial is not None:
            section["serial"] = serial
        return section


class ShoeBackend(Backend):
    """A kind of shoe."""

    @classmethod
    @abstractmethod
    def open(
        cls,
        settings: DeviceSettings,
        events: EventSink[ShoeEvent | LinkEvent],
        options: OpenOptions,
    ) -> Shoe:
        """The shoe of ``settings`` (its own type), not started."""


class PanelBackend(Backend):
    """A kind of panel."""

    @classmethod
    @abstractmethod
    def open(
        cls,
        settings: DeviceSettings,
        events: EventSink[PanelEvent | LinkEvent],
        options: OpenOptions,
    ) -> Panel:
        """The panel of ``settings`` (its own type), not started."""
