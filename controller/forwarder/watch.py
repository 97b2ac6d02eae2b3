"""Waking the forwarder when the journal grows (docs/floor.md, The forwarder): an inotify watch
on the journal's folder, through asyncinotify.

The writer appends each record with one ``write`` and begins a file at rotation: the kernel
reports both on the folder's watch (a file modified, created or moved in) the moment they
happen, so the forwarder reads a record as soon as it is written instead of at its next poll.
The poll stays as the fallback: a folder inotify cannot watch (a network file system, the
user's limit of watches reached) is read every ``poll`` seconds as before, and so is a watched
one that stays quiet (an event the kernel dropped on a queue overflow costs at most one poll).

Only wake-ups come from here, never records: the follower reads the files whatever the events
said, so an event too many costs one empty read and an event too few one poll.

One inotify instance serves every watch of an event loop (``_Hub``): the kernel allows a user
128 instances by default, fewer than the forwarders a benchmark or a test runs in one process.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Final

import structlog
from asyncinotify import Inotify, Mask, Watch

from controller.forwarder import LOGGER

_log = structlog.get_logger(LOGGER)

#: A line appended (MODIFY), a file begun (CREATE) or put in place (MOVED_TO).
CHANGES: Final = Mask.MODIFY | Mask.CREATE | Mask.MOVED_TO | Mask.CLOSE_WRITE


class _Hub:
    """An event loop's inotify instance: its watches, and who waits on each."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.inotify = Inotify(sync_timeout=0.0)
        self.watches: dict[int, tuple[Watch, set[asyncio.Event]]] = {}
        loop.add_reader(self.inotify.fd, self._read)

    def add(self, directory: Path, flag: asyncio.Event) -> int:
        watch = self.inotify.add_watch(directory, CHANGES)  # the same folder: the same wd
        _watch, flags = self.watches.setdefault(watch.wd, (watch, set()))
        flags.add(flag)
        return watch.wd

    def remove(self, wd: int, flag: asyncio.Event) -> None:
        found = self.watches.get(wd)
        if found is None:
            return
        watch, flags = found
        flags.discard(flag)
        if not flags:
            del self.watches[wd]
            with contextlib.suppress(OSError):  # the folder gone: the kernel dropped it
                self.inotify.rm_watch(watch)

    def _read(self) -> None:
        with contextlib.suppress(BlockingIOError):
            while (event := self.inotify.sync_get()) is not None:
                watch = event.watch
                found = self.watches.get(watch.wd) if watch is not None else None
                if found is not None:
                    for flag in found[1]:
                        flag.set()

    def close(self) -> None:
        with contextlib.suppress(ValueError, OSError):  # the loop already closed
            self.loop.remove_reader(self.inotify.fd)
        self.inotify.close()


#: The hub of each running event loop (global state, here only).
_hubs: dict[asyncio.AbstractEventLoop, _Hub] = {}


class JournalWatch:
    """The journal folder's changes since the last ``drain``, or none (polling only)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._flag = asyncio.Event()
        self._hub: _Hub | None = None
        self._wd = -1

    @property
    def watching(self) -> bool:
        return self._hub is not None

    def start(self) -> bool:
        """Watch the folder (in the running loop); False, logged, when inotify cannot, and the
        caller polls."""
        if self._hub is not None:
            return True
        loop = asyncio.get_running_loop()
        try:
            hub = _hubs.get(loop) or _hubs.setdefault(loop, _Hub(loop))
            self._wd = hub.add(self.directory, self._flag)
        except OSError as error:
            _log.warning("forward_polling", journal=str(self.directory), reason=str(error))
            self._release(_hubs.get(loop))
            return False
        self._hub = hub
        return True

    def drain(self) -> None:
        """Forget the changes seen so far: called before the journal is read, so that a write
        after it (read or not) wakes the next ``changed``."""
        self._flag.clear()

    async def changed(self, timeout: float) -> None:
        """Return when the folder changed since the last ``drain``, or after ``timeout``."""
        if self._hub is None:
            await asyncio.sleep(timeout)
            return
        # asyncio.timeout, not wait_for: Python 3.11's wait_for returns the result when the
        # flag is set in the very turn the task is cancelled, and the cancel (a SIGTERM) is lost.
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await self._flag.wait()

    def close(self) -> None:
        hub, self._hub = self._hub, None
        if hub is not None:
            hub.remove(self._wd, self._flag)
            self._release(hub)

    @staticmethod
    def _release(hub: _Hub | None) -> None:
        """Close the loop's inotify instance once nothing watches through it."""
        if hub is not None and not hub.watches:
            _hubs.pop(hub.loop, None)
            hub.close()
