"""An emulated USB-serial shoe and panel in sysfs, for tests run under ``umockdev-run``.

Only importable inside ``umockdev-run`` (it needs the GObject bindings and
the preload library); the main suite starts those tests through
test_umockdev.py.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from typing import Any

import gi
import pytest

gi.require_version("UMockdev", "1.0")
from gi.repository import UMockdev  # noqa: E402 -- gi.require_version must come first

SHOE_IDS = ("1209", "7ab1")
PANEL_IDS = ("1209", "7ab2")


def under_umockdev() -> bool:
    """True inside umockdev-run (its preload library redirects /sys)."""
    return "UMOCKDEV_DIR" in os.environ


class Bed:
    """A umockdev testbed holding USB serial devices: a usb parent with a tty child each."""

    def __init__(self) -> None:
        self.testbed: Any = UMockdev.Testbed.new()
        self._count = 0

    def add_serial(
        self,
        name: str,
        ids: tuple[str, str],
        serial: str,
        links: str = "",
    ) -> tuple[str, str]:
        """Plug a USB-serial device; returns (usb parent, tty) sysfs paths; sends 'add'."""
        self._count += 1
        minor = str(self._count)
        usb = self.testbed.add_device(
            "usb",
            f"usb{self._count}",
            None,
            ["idVendor", ids[0], "idProduct", ids[1], "serial", serial],
            ["ID_VENDOR_ID", ids[0], "ID_MODEL_ID", ids[1], "ID_SERIAL_SHORT", serial],
        )
        properties = [
            "DEVNAME", f"/dev/{name}",
            "MAJOR", "166",
            "MINOR", minor,
            "ID_VENDOR_ID", ids[0],
            "ID_MODEL_ID", ids[1],
            "ID_SERIAL_SHORT", serial,
        ]  # fmt: skip
        if links:
            properties += ["DEVLINKS", links]
        tty = self.testbed.add_device("tty", name, usb, ["dev", f"166:{minor}"], properties)
        return usb, tty

    def replug(self, tty: str, name: str, ids: tuple[str, str], serial: str) -> str:
        """Add the tty again under its old usb parent; sends 'add'."""
        parent = os.path.dirname(tty)
        properties = [
            "DEVNAME", f"/dev/{name}",
            "ID_VENDOR_ID", ids[0],
            "ID_MODEL_ID", ids[1],
            "ID_SERIAL_SHORT", serial,
        ]  # fmt: skip
        return str(self.testbed.add_device("tty", name, parent, [], properties))

    def unplug(self, tty: str) -> None:
        """Send 'remove' for the tty and take it out of sysfs."""
        self.testbed.uevent(tty, "remove")
        self.testbed.remove_device(tty)


def _fds() -> dict[int, str]:
    out: dict[int, str] = {}
    for name in os.listdir("/proc/self/fd"):
        try:
            out[int(name)] = os.readlink(f"/proc/self/fd/{name}")
        except OSError:
            continue
    return out


# umockdev's preload library opens sockets and eventfds of its own, lazily, while
# libudev is used (its emulated netlink and ioctl channels); they are not ours and
# outlive a test. This replaces the suite's leak check in the umockdev modules:
# threads, ptys and every other descriptor are still checked, and the monitor's
# own socket is checked in test_discovery.py, outside umockdev.
_UMOCKDEV_OWN = ("socket:", "anon_inode:[eventfd]")


@pytest.fixture(autouse=True)
def _no_leaked_threads_fds_or_ptys() -> Iterator[None]:
    """Fail the test that leaves a thread, a pty or a file descriptor of its own open."""
    threads_before = set(threading.enumerate())
    fds_before = _fds()
    yield
    # A wall-clock allowance for threads and descriptors to end: it costs nothing when they
    # end at once, and is long enough that a loaded machine cannot fail a test here.
    deadline = time.monotonic() + 10.0
    while True:
        threads = [t for t in threading.enumerate() if t not in threads_before and t.is_alive()]
        fds = {
            fd: target
            for fd, target in _fds().items()
            if fds_before.get(fd) != target and not target.startswith(_UMOCKDEV_OWN)
        }
        if not (threads or fds) or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    problems = []
    if threads:
        problems.append("threads left running: " + ", ".join(t.name for t in threads))
    if fds:
        problems.append(f"file descriptors left open: {fds}")
    if problems:
        pytest.fail("; ".join(problems), pytrace=False)
