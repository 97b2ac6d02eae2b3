"""The journal folder's watch (controller/forwarder/watch.py) on real inotify: a line appended or a
file begun wakes the waiter at once; a drained watch waits for the next change; one inotify
instance serves every watch of a loop; a folder that cannot be watched falls back to polling."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from controller.forwarder import watch as watch_module
from controller.forwarder.watch import JournalWatch

HOUR = 3600.0


def _inotify_fds() -> int:
    return sum(
        os.readlink(f"/proc/self/fd/{fd}") == "anon_inode:inotify"
        for fd in os.listdir("/proc/self/fd")
        if os.path.exists(f"/proc/self/fd/{fd}")
    )


def test_an_appended_line_and_a_new_file_wake_the_waiter(tmp_path: Path) -> None:
    (tmp_path / "journal-000001.jsonl").write_bytes(b"")

    async def run() -> None:
        watch = JournalWatch(tmp_path)
        assert watch.start()
        try:
            watch.drain()
            with (tmp_path / "journal-000001.jsonl").open("ab") as stream:
                stream.write(b"{}\n")
            await asyncio.wait_for(watch.changed(HOUR), 60)  # an hour's poll: inotify woke it
            watch.drain()
            (tmp_path / "journal-000002.jsonl").write_bytes(b"{}\n")  # rotation
            await asyncio.wait_for(watch.changed(HOUR), 60)
        finally:
            watch.close()

    asyncio.run(run())


def test_a_drained_watch_waits_for_the_next_change(tmp_path: Path) -> None:
    async def run() -> None:
        watch = JournalWatch(tmp_path)
        assert watch.start()
        try:
            (tmp_path / "a").write_bytes(b"x")
            await asyncio.wait_for(watch.changed(HOUR), 60)
            watch.drain()
            # Nothing written since the drain: the wait ends by its timeout, not by a change.
            waiting = asyncio.ensure_future(watch.changed(HOUR))
            await asyncio.sleep(0)
            for _ in range(5):  # let the loop run the watch's reader, had it anything to read
                await asyncio.sleep(0)
            assert not waiting.done()
            (tmp_path / "b").write_bytes(b"y")
            await asyncio.wait_for(waiting, 60)
        finally:
            watch.close()

    asyncio.run(run())


def test_a_cancel_in_the_turn_the_flag_is_set_is_not_lost(tmp_path: Path) -> None:
    """The forwarder's SIGTERM cancels its task; a record written in the same turn must not
    swallow that cancel (Python 3.11's wait_for did: the forwarder ran on after SIGTERM)."""

    async def run() -> None:
        watch = JournalWatch(tmp_path)
        assert watch.start()
        try:
            task = asyncio.ensure_future(watch.changed(HOUR))
            for _ in range(3):
                await asyncio.sleep(0)  # the task waits on the change
            watch._flag.set()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
        finally:
            watch.close()

    asyncio.run(run())


def test_one_inotify_instance_serves_every_watch_of_a_loop(tmp_path: Path) -> None:
    """200 forwarders in one process (the floor benchmark) stay within the kernel's default
    128 instances a user."""
    folders = [tmp_path / f"t{n}" for n in range(200)]
    for folder in folders:
        folder.mkdir()

    async def run() -> None:
        before = _inotify_fds()
        watches = [JournalWatch(folder) for folder in folders]
        assert all(w.start() for w in watches)
        assert _inotify_fds() == before + 1
        try:
            for w in watches:
                w.drain()
            (folders[7] / "journal-000001.jsonl").write_bytes(b"{}\n")
            await asyncio.wait_for(watches[7].changed(HOUR), 60)
            # Only that folder's waiter was woken.
            assert not any(w._flag.is_set() for n, w in enumerate(watches) if n != 7)
        finally:
            for w in watches:
                w.close()
        assert _inotify_fds() == before  # the last close closes the instance
        assert not watch_module._hubs

    asyncio.run(run())


def test_two_watches_of_one_folder_are_both_woken_and_closed_apart(tmp_path: Path) -> None:
    async def run() -> None:
        first, second = JournalWatch(tmp_path), JournalWatch(tmp_path)
        assert first.start()
        assert second.start()
        first.close()  # the other still watches the folder
        second.drain()
        (tmp_path / "a").write_bytes(b"x")
        await asyncio.wait_for(second.changed(HOUR), 60)
        second.close()

    asyncio.run(run())


def test_a_folder_that_cannot_be_watched_is_polled(tmp_path: Path) -> None:
    async def run() -> None:
        watch = JournalWatch(tmp_path / "absent")
        assert not watch.start()
        assert not watch.watching
        await watch.changed(0.0)  # a plain sleep of the poll
        watch.close()
        assert not watch_module._hubs

    asyncio.run(run())
