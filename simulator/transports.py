"""How a program reaches a virtual device: a real pseudo-terminal, or ``sim://`` in-process.

An ``Endpoint`` is the device's USB connector. It carries the device's bytes
to whoever has the port open, hands the host's bytes to ``receive`` (the
simulator, which feeds the device core), and can be pulled out and plugged
back in.

- ``PtyEndpoint``: a pseudo-terminal in raw mode whose slave is linked from a
  stable path (``<directory>/shoe``); any program opens that path as it
  would open ``/dev/ttyACM0``. Unplugging closes the pty (the host's reads
  fail as on a real unplug) and removes the link; replugging makes a new pty
  and points the link at it.
- ``MemoryEndpoint``: the device behind the pyserial URL ``sim://shoe`` (or
  ``sim://<table>/shoe``), served by ``simulator.protocol_sim.Serial``.
"""

from __future__ import annotations

import contextlib
import errno
import os
import threading
import time
import tty
from abc import ABC, abstractmethod
from collections.abc import Callable
from pathlib import Path
from typing import Final

import serial

#: The pyserial URL scheme of the in-process devices.
SCHEME: Final = "sim"
#: The table name a ``sim://shoe`` URL (no table named) refers to.
DEFAULT_TABLE: Final = "default"

Receive = Callable[[bytes], None]


def register_url_handler() -> None:
    """Let ``serial.serial_for_url('sim://shoe')`` find ``simulator.protocol_sim``."""
    if "simulator" not in serial.protocol_handler_packages:
        serial.protocol_handler_packages.append("simulator")


class Endpoint(ABC):
    """A virtual device's connector: bytes both ways, unplug and replug."""

    def __init__(self, device: str, receive: Receive) -> None:
        self.device = device
        self.receive = receive
        self.plugged = False
        #: Bytes the device wrote that no host took (nobody connected, or a full buffer).
        self.lost_bytes = 0
        #: Changes on every replug, so a reader can tell a new port from the old one.
        self.generation = 0

    @property
    @abstractmethod
    def address(self) -> str:
        """What a program opens: a path or a URL."""

    @abstractmethod
    def send(self, data: bytes) -> None:
        """Put the device's bytes on the line."""

    @abstractmethod
    def plug(self) -> None:
        """Connect (at start, and to replug after an unplug)."""

    @abstractmethod
    def unplug(self) -> None:
        """Pull the cable: the host's port fails; the device keeps its state."""

    def close(self) -> None:
        """Release everything (the simulator is shutting down)."""
        if self.plugged:
            self.unplug()


# --- A pseudo-terminal with a stable path -------------------------------------------------


class PtyEndpoint(Endpoint):
    """A raw-mode pseudo-terminal whose slave is linked from ``directory/<device>``."""

    def __init__(self, device: str, receive: Receive, directory: Path) -> None:
        super().__init__(device, receive)
        self.link = directory / device
        self.master: int | None = None
        self._slave: int | None = None
        self.slave_name = ""

    @property
    def address(self) -> str:
        return str(self.link)

    def plug(self) -> None:
        if self.plugged:
            raise RuntimeError(f"{self.device} is plugged in already")
        master, slave = os.openpty()
        # Raw: no echo, no line editing, no CR/LF translation; bytes pass as they are.
        tty.setraw(slave)
        os.set_blocking(master, False)
        self.master, self._slave = master, slave
        self.slave_name = os.ttyname(slave)
        # The simulator keeps the slave open too, so the pty lives while no host has it
        # open (no EIO on the master between a host's close and its next open).
        partial = self.link.with_name(self.link.name + ".partial")
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()
        partial.symlink_to(self.slave_name)
        partial.replace(self.link)  # atomic: the stable path is never missing while plugged
        self.generation += 1
        self.plugged = True

    def unplug(self) -> None:
        if not self.plugged:
            raise RuntimeError(f"{self.device} is unplugged already")
        self.plugged = False
        self._remove_link()
        for fd in (self.master, self._slave):
            if fd is not None:
                os.close(fd)
        self.master = self._slave = None

    def _remove_link(self) -> None:
        """Remove the link, only if it still points at this pty: one pointed elsewhere since
        (by hand, at a real device) is someone else's, and stays."""
        try:
            target = os.readlink(self.link)
        except OSError:  # gone already, or no longer a link
            return
        if target == self.slave_name:
            with contextlib.suppress(FileNotFoundError):
                self.link.unlink()

    def send(self, data: bytes) -> None:
        if self.master is None:
            self.lost_bytes += len(data)
            return
        try:
            written = os.write(self.master, data)
        except OSError:  # nobody reads the port and its buffer is full: lost, as with hardware
            written = 0
        self.lost_bytes += len(data) - written

    def read_available(self) -> None:
        """Read what the host wrote and hand it on (the serving loop calls this)."""
        if self.master is None:
            return
        try:
            data = os.read(self.master, 4096)
        except BlockingIOError:
            return
        except OSError as exc:  # pragma: no cover - the slave is held open, so no EIO
            if exc.errno != errno.EIO:
                raise
            return
        if data:
            self.receive(data)


# --- In-process, through pyserial ---------------------------------------------------------


class Connection:
    """One open ``sim://`` port: the bytes waiting for the host to read them."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._ready = threading.Condition()
        self._buffer = bytearray()
        self._failure: str | None = None
        self._cancelled = False
        self.closed = False

    def push(self, data: bytes) -> None:
        """The device wrote ``data``."""
        with self._ready:
            self._buffer += data
            self._ready.notify_all()

    def fail(self, reason: str) -> None:
        """The port is gone (unplugged): reads and writes fail from now on."""
        with self._ready:
            self._failure = reason
            self._ready.notify_all()

    def check(self) -> None:
        """Raise SerialException if the port has failed."""
        if self._failure is not None:
            raise serial.SerialException(f"{self.url}: {self._failure}")

    @property
    def waiting(self) -> int:
        """Bytes the host can read now."""
        with self._ready:
            return len(self._buffer)

    def clear(self) -> None:
        """Forget what the host has not read (``reset_input_buffer``)."""
        with self._ready:
            self._buffer.clear()

    def cancel(self) -> None:
        """Make a blocked ``take`` return at once (``cancel_read``)."""
        with self._ready:
            self._cancelled = True
            self._ready.notify_all()

    def take(self, size: int, timeout: float | None) -> bytes:
        """Up to ``size`` bytes: wait until there are ``size``, or ``timeout`` passes.

        pyserial's contract: ``timeout`` None blocks until ``size`` bytes arrive,
        0 returns at once, a number waits at most that long.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._ready:
            while len(self._buffer) < size and not self._cancelled and not self.closed:
                if self._failure is not None and not self._buffer:
                    self.check()
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    break
                self._ready.wait(remaining)
            self._cancelled = False
            data = bytes(self._buffer[:size])
            del self._buffer[:size]
        if not data:
            self.check()
        return data


_registry: dict[tuple[str, str], MemoryEndpoint] = {}
_registry_lock = threading.Lock()


def url_for(table: str, device: str) -> str:
    """The ``sim://`` URL of a device of an in-process table."""
    return f"{SCHEME}://{device}" if table == DEFAULT_TABLE else f"{SCHEME}://{table}/{device}"


class MemoryEndpoint(Endpoint):
    """A device reachable in this process as ``sim://<device>`` (pyserial URL)."""

    def __init__(self, device: str, receive: Receive, table: str = DEFAULT_TABLE) -> None:
        super().__init__(device, receive)
        self.table = table
        self.connection: Connection | None = None
        with _registry_lock:
            if (table, device) in _registry:
                raise ValueError(f"{url_for(table, device)} is served already in this process")
            _registry[(table, device)] = self
        register_url_handler()

    @property
    def address(self) -> str:
        return url_for(self.table, self.device)

    def connect(self) -> Connection:
        """Open the port (pyserial's ``open``); SerialException if it cannot be opened."""
        if not self.plugged:
            raise serial.SerialException(f"could not open {self.address}: the device is unplugged")
        if self.connection is not None and not self.connection.closed:
            raise serial.SerialException(f"could not open {self.address}: it is open already")
        self.connection = Connection(self.address)
        return self.connection

    def send(self, data: bytes) -> None:
        connection = self.connection
        if connection is None or connection.closed:
            self.lost_bytes += len(data)
            return
        connection.push(data)

    def plug(self) -> None:
        if self.plugged:
            raise RuntimeError(f"{self.device} is plugged in already")
        self.generation += 1
        self.plugged = True

    def unplug(self) -> None:
        if not self.plugged:
            raise RuntimeError(f"{self.device} is unplugged already")
        self.plugged = False
        if self.connection is not None:
            self.connection.fail("the device was unplugged (port disconnected)")
            self.connection = None

    def close(self) -> None:
        super().close()
        with _registry_lock:
            _registry.pop((self.table, self.device), None)


def lookup(table: str, device: str) -> MemoryEndpoint:
    """The in-process device a ``sim://`` URL names; SerialException says what is served."""
    with _registry_lock:
        endpoint = _registry.get((table, device))
        served = sorted(url_for(t, d) for t, d in _registry)
    if endpoint is None:
        listing = ", ".join(served) or "none: start a simulator.Simulator(transport='memory')"
        raise serial.SerialException(
            f"no simulated device at {url_for(table, device)}; served in this process: {listing}"
        )
    return endpoint
