"""Ways to connect a test-side device to the host's driver, for the driver contract suite.

Each backend gives the host a URL for ``serial.serial_for_url`` that stays the
same across an unplug and a replug (like the stable name udev gives the real
shoe), and gives the device its end of the line as a ``DeviceWire``. To run
the whole contract suite over another transport (the simulator's pty, its
``sim://`` URL), add a factory to ``BACKENDS``.
"""

from __future__ import annotations

import contextlib
import os
import select
import socket
import tty
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from simulator.backends import SimPtyBackend, SimUrlBackend


class DeviceWire(Protocol):
    """The device's end of the line."""

    def read(self, timeout: float) -> bytes:
        """Bytes from the host, or b"" after ``timeout`` seconds of nothing."""

    def write(self, data: bytes) -> None:
        """Bytes to the host; silently lost if the host is not there."""

    def close(self) -> None:
        """Hang up this end."""


class Backend(Protocol):
    """A line the tests can plug and unplug."""

    name: str
    #: What the host opens; the same before and after a replug.
    url: str

    def plug(self) -> DeviceWire:
        """Connect (or reconnect) the device; returns its end of the line."""

    def unplug(self) -> None:
        """Pull the cable: the host's port fails until the next plug."""

    def close(self) -> None:
        """Release everything the backend holds."""


class _PtyWire:
    def __init__(self, master: int) -> None:
        self.master = master

    def read(self, timeout: float) -> bytes:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return b""
        try:
            return os.read(self.master, 4096)
        except OSError:  # EIO: the host has not opened (or has closed) its end yet
            return b""

    def write(self, data: bytes) -> None:
        # Nobody on the other end, or the line is full: the bytes are lost, as on a real line.
        with contextlib.suppress(OSError):
            os.write(self.master, data)

    def close(self) -> None:
        os.close(self.master)


class PtyBackend:
    """A real pty pair; the host opens a symlink to its slave, as it opens /dev/tablectl/shoe."""

    name = "pty"

    def __init__(self, directory: Path) -> None:
        self.link = directory / "shoe"
        self.url = str(self.link)
        self._wire: _PtyWire | None = None
        self._slave: int | None = None

    def plug(self) -> DeviceWire:
        self.unplug()
        master, slave = os.openpty()
        tty.setraw(slave)
        tty.setraw(master)
        # A device must never stall on a host that is not reading: a full line loses bytes.
        os.set_blocking(master, False)
        # Holding the slave open keeps the master readable before the host opens it.
        self._slave = slave
        self._wire = _PtyWire(master)
        self.link.symlink_to(os.ttyname(slave))
        return self._wire

    def unplug(self) -> None:
        if self._wire is not None:
            self._wire.close()
            self._wire = None
        if self._slave is not None:
            os.close(self._slave)
            self._slave = None
        self.link.unlink(missing_ok=True)

    def close(self) -> None:
        self.unplug()


class _SocketWire:
    def __init__(self, listener: socket.socket) -> None:
        self._listener = listener
        self._conn: socket.socket | None = None

    def _connection(self, timeout: float) -> socket.socket | None:
        if self._conn is None:
            ready, _, _ = select.select([self._listener], [], [], timeout)
            if ready:
                self._conn, _ = self._listener.accept()
        return self._conn

    def read(self, timeout: float) -> bytes:
        conn = self._connection(timeout)
        if conn is None:
            return b""
        ready, _, _ = select.select([conn], [], [], timeout)
        if not ready:
            return b""
        try:
            data = conn.recv(4096)
        except OSError:
            data = b""
        if not data:  # the host closed its end: wait for it to connect again
            conn.close()
            self._conn = None
        return data

    def write(self, data: bytes) -> None:
        if self._conn is not None:
            with contextlib.suppress(OSError):
                self._conn.sendall(data)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


class SocketBackend:
    """A TCP connection: ``socket://`` is one of pyserial's URL handlers."""

    name = "socket"

    def __init__(self, directory: Path) -> None:
        del directory
        probe = socket.create_server(("127.0.0.1", 0))
        self.port = probe.getsockname()[1]
        probe.close()
        self.url = f"socket://127.0.0.1:{self.port}"
        self._listener: socket.socket | None = None
        self._wire: _SocketWire | None = None

    def plug(self) -> DeviceWire:
        self.unplug()
        self._listener = socket.create_server(("127.0.0.1", self.port), reuse_port=False)
        self._wire = _SocketWire(self._listener)
        return self._wire

    def unplug(self) -> None:
        if self._wire is not None:
            self._wire.close()
            self._wire = None
        if self._listener is not None:
            self._listener.close()
            self._listener = None

    def close(self) -> None:
        self.unplug()


#: The contract suite runs once per entry: name -> factory(temporary directory).
BACKENDS: dict[str, Callable[[Path], Backend]] = {
    "pty": PtyBackend,
    "socket": SocketBackend,
    # The simulator's own ports (simulator/backends.py): its raw pty behind a link, and sim://.
    "sim-pty": SimPtyBackend,
    "sim-url": SimUrlBackend,
}
