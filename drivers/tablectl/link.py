"""One device link's terms and its port: the settings, and opening, reading and closing
the port.

``LinkSettings`` says how to reach a device and how patient to be with it (the
seam's ``DeviceUp``, ``DeviceDown`` and ``DeviceRefused`` are what a driver reports of
its link). The port is always opened with
``serial.serial_for_url`` (so a pty, ``socket://`` or the simulator's URL stand in for
hardware); a device path is opened exclusively, and one another program holds is refused
with ``PortBusy``, naming its holder where the system shows it (docs/drivers.md, One
controller per device). ``drivers.tablectl.transport.DeviceDriver`` runs a link on its
reading thread.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import termios
from dataclasses import dataclass
from typing import Final

import serial

from drivers.seam.device import DeviceHeld
from drivers.seam.holders import PortHolder, held_message, port_holders

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


#: What opening a device path meets when another program holds it: its flock (pyserial's
#: ``exclusive=True``: EWOULDBLOCK), or its TIOCEXCL (EBUSY, at the open itself).
_HELD_ERRNOS: Final = frozenset({errno.EWOULDBLOCK, errno.EAGAIN, errno.EBUSY})
#: Linux's Unix98 pseudo-terminal slaves (the kernel's devices.txt: char majors 136-143).
_PTY_SLAVE_MAJORS: Final = range(136, 144)


class PortBusy(serial.SerialException, DeviceHeld):
    """Another program holds the port (its lock, or its TIOCEXCL): refused, never shared.

    A second controller on a table's devices would take and acknowledge the live table's
    sentences (docs/drivers.md, One controller per device)."""

    def __init__(
        self, url: str, holders: tuple[PortHolder, ...], device: str | None = None
    ) -> None:
        self.url = url
        self.holders = holders
        #: "shoe" or "panel" once a driver has said whose port it is; None from ``open_port``.
        self.device = device
        super().__init__(held_message(url, holders, device))


def is_device_path(url: str) -> bool:
    """A device path (``/dev/tablectl/shoe``, a pty), not a URL: what ``serial_for_url``
    opens as a file, and the only kind another program can hold."""
    return "://" not in url


def open_port(settings: LinkSettings) -> serial.SerialBase:
    """Open the device's port at ``settings.url``: reads wait a read slice at most, writes
    half a second. Raises serial.SerialException, OSError or ValueError (a bad URL), and
    ``PortBusy`` (a SerialException) if another program holds the port.

    A device path is opened exclusively: pyserial's ``exclusive=True`` (flock LOCK_EX |
    LOCK_NB, which refuses every other opener that asks for it, root included), and
    TIOCEXCL on a real tty (the kernel refuses any other open of it, lock or not, but
    root's). Not on a pseudo-terminal: its exclusive mode outlives the holder while the
    other end is open, so a controller killed on the simulator's pty would lock out its
    own restart. A URL (``socket://``, ``sim://``) has nothing to lock.
    """
    url = settings.url
    if not is_device_path(url):
        return serial.serial_for_url(
            url, baudrate=settings.baudrate, timeout=READ_SLICE, write_timeout=WRITE_TIMEOUT
        )
    try:
        port = serial.serial_for_url(
            url,
            baudrate=settings.baudrate,
            timeout=READ_SLICE,
            write_timeout=WRITE_TIMEOUT,
            exclusive=True,
        )
    except serial.SerialException as error:
        if error.errno in _HELD_ERRNOS:
            raise PortBusy(url, port_holders(url)) from None
        raise
    descriptor = _tty_descriptor(port)
    if descriptor is not None:
        # Not a tty after all (ENOTTY): its lock is what there is.
        with contextlib.suppress(OSError):
            fcntl.ioctl(descriptor, termios.TIOCEXCL)
    return port


def _tty_descriptor(port: serial.SerialBase) -> int | None:
    """The port's descriptor if it is a real tty (not a pty's slave), else None."""
    descriptor = getattr(port, "fd", None)
    if not isinstance(descriptor, int):
        return None
    try:
        rdev = os.fstat(descriptor).st_rdev
    except OSError:
        return None
    return None if os.major(rdev) in _PTY_SLAVE_MAJORS else descriptor


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
    descriptor = _tty_descriptor(port)
    if descriptor is not None:
        # A tty that another program still has open keeps TIOCEXCL past this close.
        with contextlib.suppress(OSError):
            fcntl.ioctl(descriptor, termios.TIOCNXCL)
    port.close()
    if sock is not None:
        sock.close()  # closing twice is harmless
