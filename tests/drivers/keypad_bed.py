"""A USB keypad emulated by umockdev's testbed, for tests run under ``umockdev-run``.

The keypad is simulator/keypad_umockdev.py's: its device description added to the testbed, its
ioctl file loaded for its event node, and events written to the node's other end
(``get_dev_fd``) while the test runs, as the kernel would queue them. Only importable
inside ``umockdev-run`` (test_keypad_umockdev.py starts it).
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gi
import pytest
from umockdev_bed import _fds

from drivers.keypad.keymap import key_code
from simulator.keypad_umockdev import KeypadSpec, key_frame, tap

gi.require_version("UMockdev", "1.0")
from gi.repository import UMockdev  # noqa: E402 -- gi.require_version must come first

#: The emulated nodes' other ends (ptys): the testbed holds them until it is freed, which
#: PyGObject leaves to the end of the process; the leak check below lets these alone.
TESTBED_FDS: set[int] = set()


class KeypadBed:
    """A testbed with keypads plugged and unplugged at will."""

    def __init__(self) -> None:
        self.testbed: Any = UMockdev.Testbed.new()
        self._files = tempfile.TemporaryDirectory(prefix="tablectl-keypad-")

    def plug(self, spec: KeypadSpec | None = None) -> KeypadSpec:
        """Add the keypad (its uevent 'add' is sent) and its ioctls; returns its spec."""
        spec = spec or KeypadSpec()
        assert self.testbed.add_from_string(spec.description())
        ioctl = Path(self._files.name) / f"{spec.event}.ioctl"
        ioctl.write_text(spec.ioctls(), encoding="ascii")
        assert self.testbed.load_ioctl(spec.node, str(ioctl))
        TESTBED_FDS.add(self.testbed.get_dev_fd(spec.node))
        return spec

    def unplug(self, spec: KeypadSpec) -> None:
        """Send 'remove' for the event node and take the keypad out of sysfs.

        umockdev keeps the node's other end: a reader that holds it open sees no more
        events, where the kernel would fail its reads with ENODEV (docs/testing.md); and
        the node's name cannot be plugged again in this testbed (plug another event node)."""
        # The kernel takes the device out of sysfs before udev hears of its removal: a
        # reader that looks again on the 'remove' must not find it. umockdev sends a uevent
        # only for a device still there, so the node stops being a device with keys first.
        self.testbed.set_property(spec.event_path, "ID_INPUT_KEY", "0")
        self.testbed.uevent(spec.event_path, "remove")
        # Child first: umockdev removes one device's sysfs entries and class links at a time.
        for path in (spec.event_path, spec.input_path, spec.usb_path):
            self.testbed.remove_device(path)

    def write(self, spec: KeypadSpec, data: bytes) -> None:
        fd = self.testbed.get_dev_fd(spec.node)
        assert fd >= 0, f"{spec.node} has no emulated other end"
        os.write(fd, data)

    def tap(self, spec: KeypadSpec, name: str, when: float = 1.0) -> None:
        """Press and release key ``name`` as the kernel reports it."""
        self.write(spec, tap(name, when))

    def down(self, spec: KeypadSpec, name: str, value: int = 1, when: float = 1.0) -> None:
        """Key ``name`` goes down (1), auto-repeats (2) or comes up (0)."""
        code = key_code(name)
        assert code is not None, name
        self.write(spec, key_frame(code, value, when, scan=0x70000 + code))

    def close(self) -> None:
        self.testbed.clear()
        self._files.cleanup()


@pytest.fixture(autouse=True)
def _no_leaked_threads_fds_or_ptys() -> Iterator[None]:
    """umockdev_bed's leak check, less the testbed's own pty masters (``TESTBED_FDS``) and
    umockdev's sockets and eventfds: the keypad's driver opens no pty, so a leaked pty is
    still not possible to miss on the driver's side, and its event node's descriptor is
    checked (it is not a pty)."""
    threads_before = set(threading.enumerate())
    fds_before = _fds()
    yield
    deadline = time.monotonic() + 10.0
    while True:
        threads = [t for t in threading.enumerate() if t not in threads_before and t.is_alive()]
        fds = {
            fd: target
            for fd, target in _fds().items()
            if fds_before.get(fd) != target
            and fd not in TESTBED_FDS
            and not target.startswith(("socket:", "anon_inode:[eventfd]"))
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
