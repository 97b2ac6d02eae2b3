"""The fast tier's guard (tests/conftest.py): a test marked fast that starts a thread, a
subprocess or a pty fails, and in a run of the fast tier so does one that takes more than the
tier's CPU a test, so a wrongly marked test cannot slow `make test-fast` unseen. A run of the
fast tier imports no module that marks nothing fast, and sizes its property tests down
(tests/tierhelp.py).

Each test runs pytest in this process (pytester) on a generated test file, under a copy of
the suite's conftest.py and its markers."""

from __future__ import annotations

from pathlib import Path

import pytest
import tierhelp

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


@pytest.mark.parametrize(
    ("expression", "fast_only"),
    [
        ("fast and not slow", True),  # make test-fast
        ("fast", True),
        ("not slow and (fast)", True),
        ("fast and not slow and not reliability", True),
        ("not slow", False),  # make test
        ("fast or slow", False),
        ("slow", False),
        ("not fast", False),
        ("", False),
    ],
)
def test_a_run_is_the_fast_tiers_when_its_mark_expression_selects_only_fast_tests(
    expression: str, fast_only: bool
) -> None:
    assert tierhelp.selects_only_fast(expression) is fast_only


#: A fast test that spends CPU until this process has used ``seconds`` more of it.
_SPEND = (
    "import time\n\nimport pytest\n\n\n"
    "@pytest.mark.fast\n"
    "def test_heavy():\n"
    "    until = time.process_time() + 0.2\n"
    "    while time.process_time() < until:\n"
    "        pass\n"
)


def test_a_fast_test_past_the_tiers_cpu_a_test_fails_in_the_fast_tier_only(
    pytester: pytest.Pytester,
) -> None:
    limit = "_FAST_CPU_SECONDS = 2.0\n"
    conftest = CONFTEST.read_text()
    assert limit in conftest
    pytester.makeconftest(conftest.replace(limit, "_FAST_CPU_SECONDS = 0.1\n"))
    pytester.makeini(INI)
    pytester.makepyfile(test_heavy=_SPEND)
    tier = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-m", "fast and not slow")
    tier.assert_outcomes(passed=1, errors=1)
    said = "is marked fast but took 0.2 s of CPU, past the fast tier's 0.1 s a test"
    tier.stdout.fnmatch_lines([f"*test_heavy.py::test_heavy {said}*"])
    # The whole suite runs it with the rest: only the fast tier's runs are held to the limit.
    pytester.runpytest_inprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_the_fast_tier_imports_no_module_that_marks_nothing_fast_and_sizes_examples_down(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest(CONFTEST.read_text())
    pytester.makeini(INI)
    pytester.makepyfile(
        test_unmarked="raise RuntimeError('imported')\n",
        test_sized="import pytest\n"
        "import tierhelp\n\n\n"
        "@pytest.mark.fast\n"
        "def test_sized():\n"
        "    assert (tierhelp.examples(300), tierhelp.examples(15)) == (60, 10)\n",
    )
    tier = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-m", "fast and not slow")
    tier.assert_outcomes(passed=1)
    assert tierhelp.FAST_ONLY is False  # as this run, which is not the fast tier's, set it
    # Any other run sizes every property test in full, and imports every module (here the
    # one that cannot be imported).
    whole = pytester.runpytest_inprocess("-p", "no:cacheprovider", "test_sized.py")
    whole.assert_outcomes(failed=1)
    whole.stdout.fnmatch_lines(["*assert (300, 15) == (60, 10)*"])
    everything = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    everything.assert_outcomes(errors=1)
    everything.stdout.fnmatch_lines(["*RuntimeError: imported*"])
