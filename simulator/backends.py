"""The simulator's two transports as lines a test drives by hand (the drivers' contract backends).

The drivers' contract suite (tests/drivers/backends.py) runs a test-side
device over any "backend": a line with a stable address the host opens, a
``DeviceWire`` for the device's end, and unplug/replug. These two backends
are the simulator's own connectors, ``PtyEndpoint`` (a raw pty behind a
symlink) and ``MemoryEndpoint`` (``sim://<table>/shoe``), so the whole driver
suite also runs over exactly the ports the simulator serves.

The device's end is driven from the caller's thread alone (no serving
thread): ``read`` reads the pty or takes what the host wrote to the URL.
"""

from __future__ import annotations

import itertools
import queue
import select
from pathlib import Path
from typing import Final

from simulator.transports import Endpoint, MemoryEndpoint, PtyEndpoint

_tables: Final = itertools.count(1)


class EndpointWire:
    """The device's end of an endpoint: bytes from the host, bytes to the host."""

    def __init__(self, endpoint: Endpoint, inbox: queue.Queue[bytes]) -> None:
        self._endpoint = endpoint
        self._inbox = inbox

    def read(self, timeout: float) -> bytes:
        """What the host wrote, or b"" after ``timeout`` seconds of nothing."""
        endpoint = self._endpoint
        if isinstance(endpoint, PtyEndpoint) and endpoint.master is not None:
            ready, _, _ = select.select([endpoint.master], [], [], timeout)
            if ready:
                endpoint.read_available()  # hands the bytes to the inbox
            timeout = 0
        chunks = []
        try:
            chunks.append(self._inbox.get(timeout=timeout) if timeout else self._inbox.get_nowait())
            while True:
                chunks.append(self._inbox.get_nowait())
        except queue.Empty:
            pass
        return b"".join(chunks)

    def write(self, data: bytes) -> None:
        """Bytes to the host; lost if no host has the port open, as on a real line."""
        self._endpoint.send(data)

    def close(self) -> None:
        """Nothing to release: the backend's unplug closes the endpoint."""


class _EndpointBackend:
    """A backend over one simulator endpoint; ``plug`` after ``unplug`` is a replug."""

    name = "sim"

    def __init__(self, endpoint: Endpoint, inbox: queue.Queue[bytes]) -> None:
        self._endpoint = endpoint
        self._inbox = inbox
        self.url = endpoint.address

    def plug(self) -> EndpointWire:
        """Connect (or reconnect) the device; its end of the line."""
        if self._endpoint.plugged:
            self._endpoint.unplug()
        self._endpoint.plug()
        return EndpointWire(self._endpoint, self._inbox)

    def unplug(self) -> None:
        """Pull the cable: the host's port fails until the next plug."""
        if self._endpoint.plugged:
            self._endpoint.unplug()

    def close(self) -> None:
        """Release the endpoint (and its ``sim://`` name)."""
        self._endpoint.close()


class SimPtyBackend(_EndpointBackend):
    """The simulator's raw pty behind ``<directory>/shoe``."""

    name = "sim-pty"

    def __init__(self, directory: Path) -> None:
        inbox: queue.Queue[bytes] = queue.Queue()
        directory.mkdir(parents=True, exist_ok=True)
        super().__init__(PtyEndpoint("shoe", inbox.put, directory), inbox)


class SimUrlBackend(_EndpointBackend):
    """The simulator's in-process port, ``sim://<a table of its own>/shoe``."""

    name = "sim-url"

    def __init__(self, directory: Path) -> None:
        del directory  # nothing on disk
        inbox: queue.Queue[bytes] = queue.Queue()
        table = f"contract{next(_tables)}"
        super().__init__(MemoryEndpoint("shoe", inbox.put, table), inbox)
