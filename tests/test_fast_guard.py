"""The fast tier's guard (tests/conftest.py): a test marked fast that starts a thread, a
subprocess or a pty fails, so a wrongly marked test cannot slow `make test-fast` unseen.

Each test runs pytest in this process (pytester) on a generated test file, under a copy of
the suite's conftest.py and its markers."""

from __future__ import annotations

from pathlib import Path

import pytest

CONFTEST = Path(__file__).with_name("conftest.py")

INI = """
[pytest]
markers =
    fast: needs no thread, pty or subprocess
    slow: long runs
"""


def run_marked_fast(pytester: pytest.Pytester, body: str) -> pytest.RunResult:
    """Run one test, marked fast, whose body is ``body``, under the suite's conftest."""
    pytester.makeconftest(CONFTEST.read_text())
    pytester.makeini(INI)
    pytester.makepyfile(
        test_marked="import os, pty, subprocess, sys, threading\n\n"
        "import pytest\n\n\n"
        "@pytest.mark.fast\n"
        "def test_marked():\n" + "".join(f"    {line}\n" for line in body.splitlines())
    )
    return pytester.runpytest_inprocess("-p", "no:cacheprovider")


@pytest.mark.parametrize(
    ("body", "started", "call"),
    [
        ("t = threading.Thread(target=print)\nt.start()\nt.join()", "a thread", "Thread.start"),
        ("threading.Timer(0, print).start()", "a thread", "threading.Thread.start"),
        ("subprocess.run([sys.executable, '-c', 'pass'], check=True)", "a subprocess", "Popen"),
        ("os.waitpid(os.fork(), 0)", "a subprocess", "os.fork"),
        ("for fd in os.openpty():\n    os.close(fd)", "a pty", "os.openpty"),
        ("for fd in pty.openpty():\n    os.close(fd)", "a pty", "pty.openpty"),
    ],
    ids=["thread", "timer", "subprocess", "fork", "os.openpty", "pty.openpty"],
)
def test_a_fast_test_that_starts_a_thread_a_subprocess_or_a_pty_fails(
    pytester: pytest.Pytester, body: str, started: str, call: str
) -> None:
    result = run_marked_fast(pytester, body)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [f"*test_marked.py::test_marked is marked fast*but started {started} (*{call}*"]
    )


def test_a_fast_test_that_catches_the_refusal_fails_all_the_same(
    pytester: pytest.Pytester,
) -> None:
    result = run_marked_fast(
        pytester, "try:\n    threading.Thread(target=print).start()\nexcept Exception:\n    pass"
    )
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*is marked fast*but started a thread*"])


def test_a_fast_test_that_starts_nothing_passes_and_an_unmarked_one_may_start_a_thread(
    pytester: pytest.Pytester,
) -> None:
    result = run_marked_fast(pytester, "assert sorted([3, 1, 2]) == [1, 2, 3]")
    result.assert_outcomes(passed=1)
    pytester.makepyfile(
        test_unmarked="import threading\n\n\n"
        "def test_unmarked():\n"
        "    t = threading.Thread(target=print)\n"
        "    t.start()\n"
        "    t.join()\n"
    )
    pytester.runpytest_inprocess("-p", "no:cacheprovider", "test_unmarked.py").assert_outcomes(
        passed=1
    )
