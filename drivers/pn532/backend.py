"""The PN532 shoe: ``[devices.shoe] kind = "pn532"``, one PN532 reader per read point.

A shoe built from parts (docs/hardware.md): a PN532 under the dealing slot and, optionally,
one at the discard reader, each on its own USB-serial adapter. It is a ``drivers.seam``
``Shoe``: it yields the seam's neutral events, so nothing above drivers/ knows which shoe is
fitted (docs/drivers.md, The seam).

A PN532 has no clock, no sequence numbers and no store: the host numbers the reads (``seq``
from 0 each session), stamps each on the caller's clock (``read_ms``), and makes a boot id
for each session (docs/drivers.md, Devices without sequence numbers). The shoe is up when
every reader is; one reader lost is the shoe lost (a card could pass it unread). It has no
lid or feed sensor: it reports the lid closed and the feed ok, and a reader fault when a
reader keeps failing its answers while still talking.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Final

import structlog

from controller.poker.inputs import ReadPoint
from drivers.pn532 import commands as cmd
from drivers.pn532.reader import Pn532Reader, ReaderTiming
from drivers.seam.device import DeviceHeld, OpenOptions, Shoe, ShoeBackend
from drivers.seam.events import (
    SEQ_MODULUS,
    SHOE,
    DeviceDown,
    DeviceRefused,
    DeviceUp,
    EventSink,
    Feed,
    HelloOutcome,
    Lid,
    LinkEvent,
    Reader,
    RejectReason,
    ShoeEvent,
    ShoeState,
    TagRead,
)
from drivers.seam.settings import DeviceSettings, Port
from drivers.seam.tags import DEVICE_CLOCK_MODULUS, RepeatFilter

if TYPE_CHECKING:
    from controller.tomlcheck import Section

KIND: Final = "pn532"
#: The repeat filter's clock: every read of a PN532 is stamped on the host's monotonic clock,
#: one clock across the sessions a reconnection or a restart begins (a new boot each), so a
#: card lingering in the field over a reconnection is one read (docs/hardware.md), where the
#: reads of a protocol shoe's two boots are not comparable (docs/protocol.md 7).
HOST_CLOCK: Final = "host"
#: The keys of ``[devices.shoe]`` a PN532 shoe reads besides ``kind`` (docs/deploy.md).
KEYS: Final = ("port", "discard_port", "baudrate")
PORT_WHAT: Final = "a PN532 reader's serial port: a device path (/dev/tablectl/...) or a URL"


def uid_text(uid: bytes) -> str:
    """An ISO/IEC 14443-A UID as it travels: uppercase hex, UID0 first (as NFCID1 is sent).

    Its 8, 14 or 20 digits never equal an ISO/IEC 15693 UID's 16, so two families never
    compare equal, and the length says the family (docs/hardware.md, Tags)."""
    return uid.hex().upper()


@dataclass(frozen=True, slots=True)
class Pn532Settings(DeviceSettings):
    """``[devices.shoe]`` with ``kind = "pn532"``."""

    role: str
    kind: str
    #: The dealing slot's reader.
    port: str
    #: The discard reader's, if one is fitted.
    discard_port: str | None = None
    baud: int = cmd.POWER_UP_BAUD

    def ports(self) -> tuple[Port, ...]:
        slot = Port(self.role, self.port, None)
        if self.discard_port is None:
            return (slot,)
        return (slot, Port(f"{self.role}.discard", self.discard_port, None))

    def describe(self) -> str:
        discard = f", discard reader at {self.discard_port}" if self.discard_port else ""
        return f"PN532 shoe: dealing slot reader at {self.port}{discard}; {self.baud} baud"


class Pn532ShoeBackend(ShoeBackend):
    """Registered as ``drivers.seam.registry.BACKENDS["shoe"]["pn532"]``."""

    role: ClassVar[str] = SHOE
    kind: ClassVar[str] = KIND
    summary: ClassVar[str] = "PN532 readers (ISO/IEC 14443-A tags) at the slot and discard"
    keys: ClassVar[tuple[str, ...]] = KEYS

    @classmethod
    def read_settings(cls, section: Section) -> Pn532Settings | None:
        before = len(section.problems)
        port = section.string("port", what=PORT_WHAT, required=True)
        discard = section.string("discard_port", what=PORT_WHAT, required=False)
        rates = ", ".join(str(b) for b in cmd.BAUD_CODES)
        baud = section.integer(
            "baudrate", cmd.POWER_UP_BAUD, minimum=1, what=f"the PN532's HSU baud rate ({rates})"
        )
        if baud is not None and baud not in cmd.BAUD_CODES:
            section.fail("baudrate", f"expected a rate the PN532's HSU runs at: {rates}")
        if port is not None and port == discard:
            section.fail("discard_port", "expected another port than port: one PN532 a point")
        if len(section.problems) > before or port is None or baud is None:
            return None
        return Pn532Settings(SHOE, KIND, port, discard, baud)

    @classmethod
    def section_for_port(
        cls, port: str, baudrate: int | None, serial: str | None
    ) -> dict[str, object]:
        """``tablectl enroll --port``: the reader at ``port``. A PN532 has no serial number:
        a ``--serial`` is passed on as the key it is, which ``read_settings`` refuses."""
        section: dict[str, object] = {"port": port}
        if baudrate is not None:
            section["baudrate"] = baudrate
        if serial is not None:
            section["serial"] = serial
        return section

    @classmethod
    def open(
        cls,
        settings: DeviceSettings,
        events: EventSink[ShoeEvent | LinkEvent],
        options: OpenOptions,
    ) -> Pn532Shoe:
        if not isinstance(settings, Pn532Settings):
            raise TypeError(f"a PN532 shoe needs Pn532Settings, not {type(settings).__name__}")
        return Pn532Shoe(settings, events, options)


class Pn532Shoe(Shoe):
    """The shoe's readers and what they read, as the seam's events."""

    device = SHOE

    def __init__(
        self,
        settings: Pn532Settings,
        events: EventSink[ShoeEvent | LinkEvent],
        options: OpenOptions | None = None,
        timing: ReaderTiming | None = None,
    ) -> None:
        options = options or OpenOptions()
        timing = timing or ReaderTiming()
        self.settings = settings
        self.events = events
        self.options = options
        self.repeats = RepeatFilter(options.repeat_window)
        self._lock = threading.Lock()
        self._log = structlog.get_logger("drivers.pn532").bind(device=SHOE)
        ports = settings.ports()
        points = (ReadPoint.DEALING_SLOT, ReadPoint.DISCARD_READER)
        self.readers = {
            point: Pn532Reader(
                point,
                p.name,
                p.url or "",
                baud=settings.baud,
                clock=options.clock,
                owner=self,
                timing=timing,
            )
            for point, p in zip(points, ports, strict=False)
        }
        self._up: set[ReadPoint] = set()
        self._faulty: set[ReadPoint] = set()
        self._session = False
        self._sessions = 0
        self._down_told = False
        self._boot: str | None = None
        self._seq = 0
        #: Reads dropped by the repeat window, by point (a lingering card).
        self._repeats: dict[ReadPoint, int] = {}

    # --- Device ---------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return any(r.running for r in self.readers.values())

    @property
    def boot(self) -> str | None:
        return self._boot

    @property
    def points(self) -> frozenset[ReadPoint]:
        return frozenset(self.readers)

    @property
    def acknowledges(self) -> bool:
        return False

    def claim(self) -> None:
        for reader in self.readers.values():
            try:
                reader.claim()
            except Exception as exc:
                for other in self.readers.values():
                    other.stop()
                held = DeviceHeld(f"{reader.url} ({reader.point.value} reader): {exc}")
                held.device = SHOE
                raise held from None

    def start(self) -> None:
        for reader in self.readers.values():
            reader.start()

    def stop(self) -> None:
        for reader in self.readers.values():
            reader.stop()

    def replugged(self, port: str, node: str | None) -> None:
        for reader in self.readers.values():
            if reader.port_name == port:
                reader.replugged(node)

    def restore(self, boot: str, last_seq: int) -> None:
        """Nothing is resent by a PN532: nothing to drop."""

    def commit(self, seq: int) -> None:
        """A PN532 takes no acknowledgement (docs/hardware.md, What a PN532 shoe loses)."""

    def restore_reads(self, boot: str, reads: Iterable[tuple[str, ReadPoint, int]]) -> None:
        # The journal's reads of the last session were stamped on the host's clock too, as
        # this session's are: a card still in the field after a restart is the same read.
        del boot
        self.repeats.restore(HOST_CLOCK, reads)

    def line_totals(self) -> dict[str, object]:
        return {
            p.value: {**r.counters.as_dict(), "repeats_dropped": self._repeats.get(p, 0)}
            for p, r in self.readers.items()
        }

    # --- what the readers say (their threads) -----------------------------------------------

    def reader_up(self, reader: Pn532Reader, firmware: cmd.Firmware) -> None:
        with self._lock:
            self._up.add(reader.point)
            self._faulty.discard(reader.point)
            if self._session or self._up != set(self.readers):
                return
            self._session, self._down_told = True, False
            self._boot = "H" + secrets.token_hex(4).upper()[:7]
            self._seq = 0
            outcome = HelloOutcome.RESTARTED if self._sessions else HelloOutcome.NEW_SESSION
            self._sessions += 1
            self.events.put(
                DeviceUp(
                    SHOE,
                    self._boot,
                    "",
                    outcome,
                    model=f"PN5{firmware.ic:02x}",
                    firmware=f"{firmware.version}.{firmware.revision}",
                )
            )
            self.events.put(ShoeState(Lid.CLOSED, Reader.OK, Feed.OK))

    def reader_down(self, reader: Pn532Reader, reason: str) -> None:
        with self._lock:
            self._up.discard(reader.point)
            self._log.warning("pn532_reader_lost", point=reader.point.value, reason=reason)
            if self._session or not self._down_told:
                self._session, self._down_told = False, True
                self.events.put(DeviceDown(SHOE, f"{reader.point.value} reader: {reason}"))

    def reader_refused(self, reader: Pn532Reader, reason: str) -> None:
        self._log.error("pn532_refused", point=reader.point.value, reason=reason)
        for other in self.readers.values():
            other.stopping.set()
        with self._lock:
            self._session = False
            self.events.put(
                DeviceRefused(SHOE, f"{reader.point.value} reader: {reason}", RejectReason.PROTOCOL)
            )

    def reader_fault(self, reader: Pn532Reader, reason: str | None) -> None:
        """``reason``: the reader keeps failing; None: it answers again."""
        with self._lock:
            before = bool(self._faulty)
            if reason is None:
                self._faulty.discard(reader.point)
            else:
                self._faulty.add(reader.point)
                self._log.warning("pn532_reader_fault", point=reader.point.value, reason=reason)
            if bool(self._faulty) != before:
                state = Reader.FAULT if self._faulty else Reader.OK
                self.events.put(ShoeState(Lid.CLOSED, state, Feed.OK))

    def tags_seen(
        self, reader: Pn532Reader, targets: tuple[cmd.TypeATarget, ...], now: float
    ) -> None:
        read_ms = int(now * 1000) % DEVICE_CLOCK_MODULUS
        point = reader.point
        with self._lock:
            if self._boot is None:
                self._log.warning("pn532_read_before_up", point=point.value, count=len(targets))
                return
            if len(targets) > 1:
                # Two cards pitched together: the first is read as a card, every other one is
                # reported as read together with it, which the table alarms as it alarms a
                # card read twice (rules-interpretation.md, Integrity; docs/hardware.md).
                self._log.warning(
                    "pn532_two_tags", point=point.value, uids=[uid_text(t.uid) for t in targets]
                )
            for index, target in enumerate(targets):
                self._read(uid_text(target.uid), point, read_ms, together=index > 0)

    def _read(self, uid: str, point: ReadPoint, read_ms: int, *, together: bool = False) -> None:
        assert self._boot is not None
        if self.repeats.repeats(HOST_CLOCK, uid, point, read_ms) is not None:
            # A lingering card is listed at every poll (50 a second): counted, not sent. A
            # RepeatDropped exists for a device that is acknowledged in order; a PN532 is not.
            self._repeats[point] = self._repeats.get(point, 0) + 1
            return
        self.events.put(TagRead(uid, point, self._seq, read_ms, together))
        self._seq = (self._seq + 1) % SEQ_MODULUS
