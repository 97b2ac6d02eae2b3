"""One thread serving a simulator's endpoints: what the protocol table and the PN532 readers share.

``ServedEndpoints`` owns what serves a set of ``simulator.transports`` endpoints on one
thread: the lock every action and every byte from the host runs under, the wake pipe, the
select loop over the plugged ptys' masters (a replugged pty is a new master, perhaps with the
old one's number), and the watch on a ``simulator.clock.ManualClock`` that writes what falls
due before the new time can be read. A subclass says which endpoints it serves, what a host's
bytes do (``_heard``), what falls due (``_pump``) and when (``_deadline``):
``simulator.table.Simulator`` (the protocol shoe and panel) and
``simulator.pn532.serve.Pn532Readers`` (one PN532 a read point).
"""

from __future__ import annotations

import contextlib
import os
import selectors
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Self

from simulator.clock import ManualClock
from simulator.transports import Endpoint, PtyEndpoint

#: What the select loop watches: an endpoint's name -> its pty master and that pty's generation.
_Watched = dict[str, tuple[int, int]]


class ServedEndpoints(ABC):
    """Endpoints served by one thread, every action under one lock, on the caller's clock.

    A subclass makes its endpoints with ``_receiver(name)`` as their receiver, then calls
    this constructor last: the clock's watch must not outlive a constructor that failed.
    """

    def __init__(
        self,
        clock: Callable[[], float],
        directory: Path | None,
        *,
        thread_name: str,
        max_wait: float,
    ) -> None:
        self.clock = clock
        self.directory = directory
        self._thread_name = thread_name
        #: The serving thread wakes at least this often (a timer not yet due, a stop request).
        self._max_wait = max_wait
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._wake_r, self._wake_w = -1, -1
        self._unwatch = clock.watch(self._advanced) if isinstance(clock, ManualClock) else None

    # --- what differs -----------------------------------------------------------------------

    @abstractmethod
    def _endpoints(self) -> Mapping[str, Endpoint]:
        """The endpoints served, by name."""

    @abstractmethod
    def _heard(self, name: str, data: bytes, now: float) -> None:
        """The host wrote ``data`` to the endpoint ``name`` (under the lock)."""

    @abstractmethod
    def _pump(self, now: float) -> None:
        """Write whatever is due by ``now`` (under the lock)."""

    @abstractmethod
    def _deadline(self, now: float) -> float:
        """When ``_pump`` next has work (under the lock)."""

    # --- life -------------------------------------------------------------------------------

    def start(self) -> Self:
        """Plug every endpoint in and start serving them."""
        if self._thread is not None:
            raise RuntimeError(f"{self._thread_name} is running already")
        if self.directory is not None:
            self.directory.mkdir(parents=True, exist_ok=True)
        for endpoint in self._endpoints().values():
            endpoint.plug()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        self._thread = threading.Thread(target=self._serve, name=self._thread_name, daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving and unplug everything; the links and ports are gone afterwards."""
        if self._thread is not None:
            self._stop.set()
            self._wake()
            self._thread.join()
            self._thread = None
            os.close(self._wake_r)
            os.close(self._wake_w)
            # A closed descriptor's number is soon another file's: a late wake writes nothing.
            self._wake_r, self._wake_w = -1, -1
        for endpoint in self._endpoints().values():
            endpoint.close()
        if self._unwatch is not None:
            self._unwatch()
            self._unwatch = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the devices still (arm a fault, read a consistent state); write what is due
        after, and wake the serving thread (a port came or went, a timer moved)."""
        with self._lock:
            yield
            self._pump(self.clock())
        self._wake()

    # --- serving ----------------------------------------------------------------------------

    def _receiver(self, name: str) -> Callable[[bytes], None]:
        """The receiver of the endpoint ``name``: the host's bytes, heard now."""

        def receive(data: bytes) -> None:
            with self._lock:
                now = self.clock()
                self._heard(name, data, now)
                self._pump(now)

        return receive

    def _advanced(self, now: float) -> None:
        """A manual clock moves on to ``now``: what the host wrote before is heard at the old
        time (the clock reads it still), then what falls due by ``now`` is written."""
        with self._lock:
            for endpoint in self._endpoints().values():
                if isinstance(endpoint, PtyEndpoint):
                    endpoint.read_available()
            self._pump(now)

    def _wake(self) -> None:
        # A full pipe means a wake is pending already; a closed one, that the loop has stopped.
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"!")

    def _serve(self) -> None:
        with selectors.DefaultSelector() as selector:
            selector.register(self._wake_r, selectors.EVENT_READ, None)
            watched: _Watched = {}
            while not self._stop.is_set():
                with self._lock:
                    self._watch(selector, watched)
                    now = self.clock()
                    self._pump(now)
                    deadline = self._deadline(now)
                wait = min(max(deadline - now, 0.0), self._max_wait)
                for key, _ in selector.select(wait):
                    if key.data is None:
                        with contextlib.suppress(BlockingIOError):
                            while os.read(self._wake_r, 64):
                                pass
                    else:
                        self._read(key.data, key.fd)

    def _watch(self, selector: selectors.BaseSelector, watched: _Watched) -> None:
        """Select on every plugged pty's current master; forget old ones (after a replug)."""
        for name, endpoint in self._endpoints().items():
            current = None
            if isinstance(endpoint, PtyEndpoint) and endpoint.master is not None:
                current = (endpoint.master, endpoint.generation)
            if watched.get(name) == current:
                continue
            if name in watched:
                # Closed by an unplug: the kernel has dropped it already.
                with contextlib.suppress(KeyError, ValueError, OSError):
                    selector.unregister(watched.pop(name)[0])
            if current is not None:
                # The new pty may have reused the old master's number.
                with contextlib.suppress(KeyError, ValueError, OSError):
                    selector.unregister(current[0])
                selector.register(current[0], selectors.EVENT_READ, name)
                watched[name] = current

    def _read(self, name: str, fd: int) -> None:
        """Read what the host wrote to ``fd``, if it is still ``name``'s master."""
        with self._lock:
            endpoint = self._endpoints()[name]
            if isinstance(endpoint, PtyEndpoint) and endpoint.master == fd:
                endpoint.read_available()
