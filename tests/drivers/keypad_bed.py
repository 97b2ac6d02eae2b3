"""A USB keypad emulated by umockdev's testbed, for tests run under ``umockdev-run``.

The testbed is the simulator's (simulator/keypad_testbed.py, which ``tablectl sim`` hosts for a
keypad panel): the keypad's device description added, its ioctl file loaded for its event
node, and events written to the node's other end (``get_dev_fd``) while the test runs, as
the kernel would queue them. Only importable inside ``umockdev-run``
(test_keypad_umockdev.py starts it).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
from umockdev_bed import _fds

from drivers.keypad.keymap import key_code
from simulator.keypad_testbed import KeypadTestbed
from simulator.keypad_umockdev import KeypadSpec, key_frame

#: The emulated nodes' other ends (ptys): the testbed holds them until it is freed, which
#: PyGObject leaves to the end of the process; the leak check below lets these alone.
TESTBED_FDS: set[int] = set()


class KeypadBed(KeypadTestbed):
    """A testbed with keypads plugged and unplugged at will."""

    def plug(self, spec: KeypadSpec | None = None) -> KeypadSpec:
        spec = super().plug(spec)
        TESTBED_FDS.add(self.testbed.get_dev_fd(spec.node))
        return spec

    def down(self, spec: KeypadSpec, name: str, value: int = 1, when: float = 1.0) -> None:
        """Key ``name`` goes down (1), auto-repeats (2) or comes up (0)."""
        code = key_code(name)
        assert code is not None, name
        self.write(spec, key_frame(code, value, when, scan=0x70000 + code))


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
