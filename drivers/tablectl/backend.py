"""The ``tablectl`` backend: the protocol's shoe and panel (docs/protocol.md) on the device
seam, the default ``kind`` of ``[devices.shoe]`` and ``[devices.panel]``.

``ProtocolSettings`` holds a section's keys (where the port is, the serial number the device
must announce, the baud rate and the heartbeat timeout); ``ProtocolShoe`` and
``ProtocolPanel`` read them and open a ``ShoeDriver`` or a ``PanelDriver`` on a serial port
(a device path, a pyserial URL, or the tty udev finds for a USB identity).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Final

import structlog

from drivers import discovery
from drivers.seam.device import OpenOptions, Panel, PanelBackend, Shoe, ShoeBackend
from drivers.seam.events import PANEL, SHOE, EventSink, LinkEvent, PanelEvent, ShoeEvent
from drivers.seam.keys import PORT_KEYS, read_port
from drivers.seam.settings import DeviceIdentity, DeviceSettings, Port
from drivers.tablectl.link import LinkSettings
from drivers.tablectl.panel import PanelDriver
from drivers.tablectl.shoe import ShoeDriver

if TYPE_CHECKING:
    from controller.tomlcheck import Section

KIND: Final = "tablectl"
#: docs/protocol.md, 1: the devices MUST support 115200 baud and SHOULD support these.
BAUDRATES: Final = (9600, 19200, 38400, 57600, 115200)
DEFAULT_BAUDRATE: Final = 115_200
#: docs/protocol.md, 6: the host's communication-loss timeout, 3 s by default.
DEFAULT_HEARTBEAT_TIMEOUT: Final = 3.0
#: docs/protocol.md, 6: the device sends a heartbeat every second, so a shorter
#: timeout would declare a loss between two healthy heartbeats.
HEARTBEAT_INTERVAL: Final = 1.0
#: A longer silence than this leaves a dealing table blind for too long to be a setting.
MAX_HEARTBEAT_TIMEOUT: Final = 60.0
#: The section's keys besides ``kind`` (docs/deploy.md, Configuration reference).
KEYS: Final = (*PORT_KEYS, "baudrate", "heartbeat_timeout")


@dataclass(frozen=True, slots=True)
class ProtocolSettings(DeviceSettings):
    """How to reach a protocol shoe or panel and how patient to be with it.

    Exactly one of ``url`` (a pyserial URL or a device path) and ``match`` is set.
    ``serial`` is the serial number the device must announce in its hello
    (docs/protocol.md, 4); None accepts any. ``link`` holds the link's other timings, which
    table.toml does not set (the simulator and the tests shorten them).
    """

    role: str
    url: str | None
    match: DeviceIdentity | None
    serial: str | None
    baudrate: int = DEFAULT_BAUDRATE
    heartbeat_timeout: float = DEFAULT_HEARTBEAT_TIMEOUT
    link: dict[str, float] = field(default_factory=dict, compare=False)
    kind: str = KIND

    def ports(self) -> tuple[Port, ...]:
        return (Port(self.role, self.url, self.match, "tty"),)

    def serial_number(self) -> str | None:
        return self.serial

    def describe(self) -> str:
        match = self.match
        if match is not None:
            where = f"USB {match.vendor_id}:{match.model_id} serial {match.serial}"
        else:
            where = f"{self.url}" + (f", serial {self.serial}" if self.serial else "")
        return f"{where}, {self.baudrate} baud, heartbeat timeout {self.heartbeat_timeout:g} s"

    def link_settings(self, url: str) -> LinkSettings:
        """The driver's settings, its port at ``url``."""
        return LinkSettings(
            url,
            baudrate=self.baudrate,
            expected_serial=self.serial,
            heartbeat_timeout=self.heartbeat_timeout,
            **self.link,
        )


def read_protocol_settings(section: Section, role: str) -> ProtocolSettings | None:
    """A ``[devices.<role>]`` section of kind ``tablectl``; None after recording a problem."""
    before = len(section.problems)
    port = read_port(section, role)
    baudrate = section.integer("baudrate", DEFAULT_BAUDRATE)
    if baudrate is not None and baudrate not in BAUDRATES:
        section.fail(
            "baudrate", f"expected one of {', '.join(map(str, BAUDRATES))} (docs/protocol.md, 1)"
        )
    timeout = section.seconds(
        "heartbeat_timeout",
        DEFAULT_HEARTBEAT_TIMEOUT,
        above=HEARTBEAT_INTERVAL,
        maximum=MAX_HEARTBEAT_TIMEOUT,
        above_why="the devices' heartbeat interval, docs/protocol.md 6",
    )
    if len(section.problems) > before or port is None or baudrate is None or timeout is None:
        return None
    return ProtocolSettings(role, port.url, port.identity, port.serial, baudrate, timeout)


def port_url(settings: ProtocolSettings) -> str:
    """The port to open: the configured path or URL, or the tty udev finds for the match.

    A matched device that is not plugged in does not keep the table shut, as a pulled cable
    mid-hand does not close it: the driver is given the udev rules' stable name, the table
    opens paused ("cannot open"), and the hotplug monitor points the driver at the device's
    node when it is plugged in (``replugged``).
    """
    if settings.url is not None:
        return settings.url
    wanted = settings.match
    assert wanted is not None  # read_port sets exactly one of url and match
    found = discovery.find_port(wanted)
    if found is None:
        structlog.get_logger("controller.table").warning(
            "device_not_connected",
            device=settings.role,
            match=wanted.text,
            todo=f"plug the {settings.role} in (tablectl devices lists what is connected); "
            "the table stays paused until it says hello",
        )
        return wanted.stable_name
    return found.node


def _settings(settings: DeviceSettings) -> ProtocolSettings:
    if not isinstance(settings, ProtocolSettings):
        raise TypeError(f"{settings.role} of kind {settings.kind}: not a tablectl device")
    return settings


class ProtocolShoe(ShoeBackend):
    """The protocol's shoe (docs/protocol.md 3.1) on a serial port."""

    role: ClassVar[str] = SHOE
    kind: ClassVar[str] = KIND
    summary: ClassVar[str] = "a shoe speaking docs/protocol.md on a serial port"
    keys: ClassVar[tuple[str, ...]] = KEYS

    @classmethod
    def read_settings(cls, section: Section) -> ProtocolSettings | None:
        return read_protocol_settings(section, cls.role)

    @classmethod
    def open(
        cls,
        settings: DeviceSettings,
        events: EventSink[ShoeEvent | LinkEvent],
        options: OpenOptions,
    ) -> Shoe:
        mine = _settings(settings)
        return ShoeDriver(
            mine.link_settings(port_url(mine)),
            events,
            repeat_window=options.repeat_window,
            clock=options.clock,
            ack_after_commit=options.ack_after_commit,
        )


class ProtocolPanel(PanelBackend):
    """The protocol's panel (docs/protocol.md 3.2, 3.4) on a serial port."""

    role: ClassVar[str] = PANEL
    kind: ClassVar[str] = KIND
    summary: ClassVar[str] = "a panel speaking docs/protocol.md on a serial port"
    keys: ClassVar[tuple[str, ...]] = KEYS

    @classmethod
    def read_settings(cls, section: Section) -> ProtocolSettings | None:
        return read_protocol_settings(section, cls.role)

    @classmethod
    def open(
        cls,
        settings: DeviceSettings,
        events: EventSink[PanelEvent | LinkEvent],
        options: OpenOptions,
    ) -> Panel:
        mine = _settings(settings)
        return PanelDriver(
            mine.link_settings(port_url(mine)),
            events,
            clock=options.clock,
            ack_after_commit=options.ack_after_commit,
        )
