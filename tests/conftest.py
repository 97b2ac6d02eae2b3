"""Suite-wide fixtures: every test must leave no thread, file descriptor or pty behind, and a
test marked ``fast`` must start none and, in a run of the fast tier, stay cheap
(docs/testing.md)."""

from __future__ import annotations

import _thread
import os
import pty
import subprocess
import threading
import time
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any

import pytest
import tierhelp
from hypothesis import HealthCheck, settings

#: pytester runs pytest on generated test files: the tests of the fast guard (test_fast_guard.py).
pytest_plugins = ["pytester"]

settings.register_profile(
    "ci", deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")

#: How long a test's threads and descriptors may take to end after it: a wall-clock allowance
#: that costs nothing when they end at once, long enough that a loaded machine cannot fail a
#: test here.
_SETTLE_SECONDS = 10.0

#: The marker of the fast tier (``make test-fast``): the test needs no thread, pty or subprocess.
FAST = "fast"

#: What a fast test may not call: (owner, attribute, what it starts, its name in the message).
_NOT_IN_FAST: list[tuple[object, str, str, str]] = [
    (threading.Thread, "start", "a thread", "threading.Thread.start"),
    (_thread, "start_new_thread", "a thread", "_thread.start_new_thread"),
    (subprocess.Popen, "_execute_child", "a subprocess", "subprocess.Popen"),
    (os, "fork", "a subprocess", "os.fork"),
    (os, "forkpty", "a subprocess and a pty", "os.forkpty"),
    (os, "posix_spawn", "a subprocess", "os.posix_spawn"),
    (os, "posix_spawnp", "a subprocess", "os.posix_spawnp"),
    (os, "system", "a subprocess", "os.system"),
    (os, "openpty", "a pty", "os.openpty"),
    (pty, "openpty", "a pty", "pty.openpty"),
    (pty, "fork", "a subprocess and a pty", "pty.fork"),
]


#: The CPU a test marked fast may take in a run of the fast tier (its setup, call and teardown,
#: this process's CPU time: the machine's load barely moves it, unlike the wall clock). The
#: tier's heaviest test takes a third of it here (docs/testing.md, The fast tier).
_FAST_CPU_SECONDS = 2.0

#: Whether the run's ``-m`` selects only tests marked fast (pytest_configure).
_FAST_ONLY = pytest.StashKey[bool]()


def pytest_configure(config: pytest.Config) -> None:
    """Note whether this run is the fast tier's, for the tests that size themselves to it
    (tests/tierhelp.py), before any test module is collected."""
    fast_only = tierhelp.selects_only_fast(config.option.markexpr)
    config.stash[_FAST_ONLY] = fast_only
    config.add_cleanup(lambda was=tierhelp.FAST_ONLY: setattr(tierhelp, "FAST_ONLY", was))
    tierhelp.FAST_ONLY = fast_only


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """In a run of the fast tier, a test module that marks nothing fast is not even imported
    (half the modules: 3 s of each worker's collection). A test joins the tier only by the
    marker written in its module, ``pytest.mark.fast`` (docs/testing.md), so the text tells."""
    if not config.stash.get(_FAST_ONLY, False):
        return None
    name = collection_path.name
    if not (name.startswith("test_") and name.endswith(".py")) or not collection_path.is_file():
        return None
    return "mark.fast" not in collection_path.read_text(encoding="utf-8", errors="replace") or None


class FastTestStartedWork(RuntimeError):
    """A test marked fast started a thread, a subprocess or a pty."""


def _refused(what: str, call: str, nodeid: str, seen: list[str]) -> Callable[..., Any]:
    def refuse(*args: object, **kwargs: object) -> Any:
        message = (
            f"{nodeid} is marked {FAST} (needs no thread, pty or subprocess) but started "
            f"{what} ({call}): take the mark off the test or its module, or keep {what} "
            "out of the test"
        )
        seen.append(message)
        raise FastTestStartedWork(message)

    return refuse


#: Set on a fast test whose setup or call already failed with FastTestStartedWork.
_REFUSAL_REPORTED = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Note a fast test whose own report already shows the refusal (no second report)."""
    report = yield
    if report.failed and FastTestStartedWork.__name__ in report.longreprtext:
        item.stash[_REFUSAL_REPORTED] = True
    return report


@pytest.fixture(autouse=True)
def _fast_means_no_thread_pty_or_subprocess(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """Fail a test marked fast that starts a thread, a subprocess or a pty, or that takes more
    than _FAST_CPU_SECONDS of CPU in a run of the fast tier.

    The call raises FastTestStartedWork; and should the test catch that, the test fails
    here all the same, so a wrongly marked test fails instead of slowing the fast tier."""
    if request.node.get_closest_marker(FAST) is None:
        yield
        return
    seen: list[str] = []
    for owner, attribute, what, call in _NOT_IN_FAST:
        if hasattr(owner, attribute):
            monkeypatch.setattr(owner, attribute, _refused(what, call, request.node.nodeid, seen))
    started = time.process_time()
    yield
    spent = time.process_time() - started
    monkeypatch.undo()
    if seen and not request.node.stash.get(_REFUSAL_REPORTED, False):
        pytest.fail("; ".join(dict.fromkeys(seen)), pytrace=False)
    if spent > _FAST_CPU_SECONDS and request.config.stash.get(_FAST_ONLY, False):
        pytest.fail(
            f"{request.node.nodeid} is marked {FAST} but took {spent:.1f} s of CPU, past the "
            f"fast tier's {_FAST_CPU_SECONDS} s a test: make it cheaper in the tier (fewer "
            "examples: tests/tierhelp.py) or take the mark off (docs/testing.md, The fast tier)",
            pytrace=False,
        )


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
