"""One device link's terms and its port: the settings, the events every driver yields,
where it puts them, and opening, reading and closing the port.

``LinkSettings`` says how to reach a device and how patient to be with it;
``DeviceReady``, ``CommLost`` and ``DeviceRefused`` are what every driver reports of
its link, into an ``EventSink``. The port is always opened with
``serial.serial_for_url`` (so a pty, ``socket://`` or the simulator's URL stand in for
hardware). ``drivers.transport.DeviceDriver`` runs a link on its reading thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Protocol, TypeVar

import serial

from drivers.sentences import Hello, RejectReason
from drivers.session import HelloOutcome, LostRange

E_contra = TypeVar("E_contra", contravariant=True)


class EventSink(Protocol[E_contra]):
    """Where a driver puts its events: ``queue.Queue`` and ``queue.SimpleQueue`` both are."""

    def put(self, item: E_contra, block: bool = True, timeout: float | None = None) -> None:
        """Hand over one event; a driver's queue is unbounded, so this never waits."""


#: How long one read waits: bounds how late a stop or a timer is noticed.
READ_SLICE: Final = 0.02
#: A device that stops draining its input must not hang the reading thread on a write.
WRITE_TIMEOUT: Final = 0.5


@dataclass(frozen=True, slots=True)
class LinkSettings:
    """How to reach one device and how patient to be with it (docs/protocol.md, 10)."""

    url: str
    baudrate: int = 115_200
    #: The serial number the table's configuration names; None accepts any.
    expected_serial: str | None = None
    #: Silence longer than this is a communication loss.
    heartbeat_timeout: float = 3.0
    #: How often to repeat QRY until the device says hello.
    query_interval: float = 1.0
    #: Reopen the port after this long, doubling up to ``backoff_max``.
    backoff_initial: float = 0.1
    backoff_max: float = 2.0
    #: Line noise is warned of when it starts after this long without any; a burst ends
    #: (and its size is logged) after this long without any.
    noise_quiet: float = 10.0

    def __post_init__(self) -> None:
        for name in (
            "heartbeat_timeout",
            "query_interval",
            "backoff_initial",
            "backoff_max",
            "noise_quiet",
        ):
            if getattr(self, name) <= 0:
                raise ValueError(f"link setting {name} = {getattr(self, name)}: expected > 0")
        if self.backoff_max < self.backoff_initial:
            raise ValueError(
                f"link setting backoff_max = {self.backoff_max}: expected at least "
                f"backoff_initial ({self.backoff_initial})"
            )


@dataclass(frozen=True, slots=True)
class DeviceReady:
    """The device said hello and was welcomed: communication is (re)established."""

    device: str
    hello: Hello
    #: new_session on first contact, resumed after a reconnect, restarted after a power
    #: cycle, lost when sentences the device no longer holds never arrived (``lost``).
    outcome: HelloOutcome
    #: With outcome lost: the sequence numbers lost (docs/protocol.md 5, Lost sentences).
    lost: LostRange | None = None


@dataclass(frozen=True, slots=True)
class CommLost:
    """Communication with the device is lost (silence or a failed port); the driver retries."""

    device: str
    reason: str


@dataclass(frozen=True, slots=True)
class DeviceRefused:
    """The device was refused (protocol version or identity); the driver has stopped."""

    device: str
    reason: str
    #: What the host's ``REJ`` said (docs/protocol.md 3.3): the protocol, or the identity.
    rejected: RejectReason


LinkEvent = DeviceReady | CommLost | DeviceRefused


def open_port(settings: LinkSettings) -> serial.SerialBase:
    """Open the device's port at ``settings.url``: reads wait a read slice at most, writes
    half a second. Raises serial.SerialException, OSError or ValueError (a bad URL)."""
    return serial.serial_for_url(
        settings.url,
        baudrate=settings.baudrate,
        timeout=READ_SLICE,
        write_timeout=WRITE_TIMEOUT,
    )


def read_what_came(port: serial.SerialBase) -> bytes:
    """Wait up to a read slice for input, then take all that has come, in one turn.

    pyserial's ``read(n)`` with a timeout waits for all ``n`` bytes: the first byte is read
    alone, and the rest of its sentence (already there: a device writes it whole) at once.
    """
    data = port.read(1)
    if data:
        # in_waiting is on every concrete port, not on SerialBase's stub.
        waiting = int(getattr(port, "in_waiting", 0))
        if waiting:
            data += port.read(waiting)
    return data


def close_port(port: serial.SerialBase) -> None:
    """Close a port, socket included.

    pyserial's ``socket://`` close skips ``socket.close()`` when ``shutdown``
    fails, as it does once the peer has gone: the descriptor would leak.
    """
    sock = getattr(port, "_socket", None)
    port.close()
    if sock is not None:
        sock.close()  # closing twice is harmless
