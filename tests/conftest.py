"""Suite-wide fixtures: every test must leave no thread, file descriptor or pty behind."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")

_SETTLE_SECONDS = 2.0


def _open_fds() -> dict[int, str]:
    fds: dict[int, str] = {}
    for name in os.listdir("/proc/self/fd"):
        try:
            fds[int(name)] = os.readlink(f"/proc/self/fd/{name}")
        except OSError:  # the descriptor listdir itself used is gone by now
            continue
    return fds


def _leaks(
    threads_before: set[threading.Thread], fds_before: dict[int, str]
) -> tuple[list[threading.Thread], dict[int, str]]:
    threads = [t for t in threading.enumerate() if t not in threads_before and t.is_alive()]
    fds = {fd: target for fd, target in _open_fds().items() if fds_before.get(fd) != target}
    return threads, fds


@pytest.fixture(autouse=True)
def _no_leaked_threads_fds_or_ptys() -> Iterator[None]:
    """Fail the test that leaves a thread, a file descriptor or a pty open."""
    threads_before = set(threading.enumerate())
    fds_before = _open_fds()
    yield
    deadline = time.monotonic() + _SETTLE_SECONDS
    threads, fds = _leaks(threads_before, fds_before)
    while (threads or fds) and time.monotonic() < deadline:
        time.sleep(0.02)
        threads, fds = _leaks(threads_before, fds_before)
    problems = []
    if threads:
        problems.append("threads left running: " + ", ".join(t.name for t in threads))
    ptys = {fd: t for fd, t in fds.items() if t == "/dev/ptmx" or t.startswith("/dev/pts/")}
    if ptys:
        problems.append(f"ptys left open: {ptys}")
    others = {fd: t for fd, t in fds.items() if fd not in ptys}
    if others:
        problems.append(f"file descriptors left open: {others}")
    if problems:
        pytest.fail("; ".join(problems), pytrace=False)
