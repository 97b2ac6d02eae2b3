"""``tablectl demo``'s errors (one line each, never a traceback): Ctrl-C stops it cleanly, a
missing --dir is made, a used one refused, and the summary names only a journal it keeps."""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.cli.main import main
from controller.journal import verify

ROOT = Path(__file__).resolve().parents[1]
DEMO = [sys.executable, "-m", "controller", "demo"]
#: How long the test allows the demo's first hand to start: a wall-clock allowance that costs
#: nothing when the line comes, and that a loaded machine does not run out of.
PATIENCE = 60.0


def _wait_for_line(path: Path, text: str, process: subprocess.Popen[str]) -> None:
    """Wait until ``path`` (the demo's log) holds a line with ``text``; fail if the process ends
    first or the line never comes within PATIENCE."""
    deadline = time.monotonic() + PATIENCE
    while time.monotonic() < deadline:
        if path.exists() and text in path.read_text(encoding="utf-8"):
            return
        if process.poll() is not None:
            raise AssertionError(f"the demo ended ({process.returncode}) before {text!r}")
        time.sleep(0.05)
    raise AssertionError(f"no {text!r} in {path} within {PATIENCE} s")


def test_ctrl_c_stops_the_headless_demo_with_one_line_and_status_130(tmp_path: Path) -> None:
    """SIGINT mid-run (it printed a KeyboardInterrupt traceback): one line on standard error
    saying it stopped and where the journal is, nothing on standard output, exit 130 (128 +
    SIGINT, as a shell reports Ctrl-C); the journal it kept is intact."""
    folder = tmp_path / "demo"
    options = ["--headless", "--hands", "100000", "--dir", str(folder)]
    # Python keeps SIGINT ignored if it starts ignored (a shell's background job, as CI may
    # run the suite): the child takes Ctrl-C as a terminal's user would give it.
    ctrl_c = (
        "import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
        f"sys.argv = ['tablectl', 'demo', *{options!r}]; "
        "runpy.run_module('controller', run_name='__main__')"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", ctrl_c],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_for_line(folder / "tablectl.log", '"hand_started"', process)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=PATIENCE)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert "Traceback" not in err
    assert err.strip() == f"tablectl demo: stopped (Ctrl-C); the journal is in {folder / 'journal'}"
    assert out == ""
    assert process.returncode == 130
    assert verify(folder / "journal").intact


def test_demo_makes_a_missing_dir_and_refuses_one_holding_a_journal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--dir a/b (missing) is made and keeps the journal; run again on it, the demo refuses at
    once, saying the folder holds a journal (it hung, then raised TimeoutError), exit 2."""
    folder = tmp_path / "a" / "b"
    assert main(["demo", "--headless", "--hands", "1", "--dir", str(folder)]) == 0
    out = capsys.readouterr().out
    assert f"journal {folder / 'journal'}: " in out
    assert main(["demo", "--headless", "--hands", "1", "--dir", str(folder)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"tablectl demo: --dir {folder}: it already holds a journal ({folder / 'journal'}); "
        "the demo starts a new table: give a new or empty folder\n"
    )


def test_demo_refuses_a_dir_that_is_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--dir naming a file: refused, naming it, exit 2."""
    path = tmp_path / "notes.txt"
    path.write_text("", encoding="utf-8")
    with pytest.raises(SystemExit) as refused:  # as the command line is read
        main(["demo", "--headless", "--hands", "1", "--dir", str(path)])
    assert refused.value.code == 2
    assert f"--dir: {path}: expected a folder to write to (made if missing): it is a file" in (
        capsys.readouterr().err
    )


def test_the_summary_of_a_temporary_journal_does_not_name_its_removed_folder(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Without --dir the journal's temporary folder is removed at the end: the summary gives
    the journal's verdict without a path that no longer exists."""
    assert main(["demo", "--headless", "--hands", "1"]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith("journal (removed with its temporary folder): ")
    # The verdict in the one vocabulary of every verify (controller/journal/verdict.py).
    assert "; links intact; signatures NOT CHECKED" in last
    assert "tablectl-demo-" not in last


def test_the_display_demo_into_a_pipe_suggests_headless(tmp_path: Path) -> None:
    """``tablectl demo | less``: the display needs a terminal (it wrote its escape codes into
    the pipe and ran on): it says so at once, suggests --headless, and exits 2, writing nothing
    on standard output and leaving no temporary folder."""
    result = subprocess.run(
        [*DEMO, "--game", "mambo"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp_path)},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=PATIENCE,
        check=False,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == (
        "tablectl demo: standard input is not a terminal, and the dealer's display needs one; "
        "for a pipe or a file use --headless (e.g. tablectl demo --headless --hands 10)\n"
    )
    assert list(tmp_path.iterdir()) == []


def _temporary_log(tmp: Path) -> Path:
    """The log of the demo's temporary folder in ``tmp`` (its TMPDIR), once there is one."""
    deadline = time.monotonic() + PATIENCE
    while time.monotonic() < deadline:
        folders = list(tmp.glob("tablectl-demo-*"))
        if folders:
            return folders[0] / "tablectl.log"
        time.sleep(0.05)
    raise AssertionError(f"no tablectl-demo-* folder in {tmp} within {PATIENCE} s")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_stops_the_headless_demo_and_removes_its_temporary_folder(
    tmp_path: Path, signum: int
) -> None:
    """SIGTERM (a service manager, kill) and SIGHUP (the terminal closed) ended the demo at
    once and left its temporary folder, journal and log behind: it now stops as at Ctrl-C,
    closes the table, removes the folder, says why on standard error, exits 128 + signal."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    process = subprocess.Popen(
        [*DEMO, "--headless", "--hands", "100000"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp)},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_for_line(_temporary_log(tmp), '"hand_started"', process)
        process.send_signal(signum)
        _out, err = process.communicate(timeout=PATIENCE)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert "Traceback" not in err
    assert (
        err.strip().splitlines()[-1] == f"tablectl demo: stopped by {signal.Signals(signum).name}"
    )
    assert process.returncode == 128 + signum
    assert list(tmp.iterdir()) == []


def test_the_display_demo_with_its_output_in_a_pipe_suggests_headless(tmp_path: Path) -> None:
    """At a terminal, ``tablectl demo | cat``: standard output is a pipe; the demo names it."""
    with _terminal() as (terminal, screen):
        process = subprocess.Popen(
            [*DEMO],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp_path), "TERM": "xterm"},
            stdin=terminal,
            stdout=subprocess.PIPE,
            stderr=terminal,
        )
        out, _err = process.communicate(timeout=PATIENCE)
    assert process.returncode == 2
    assert out == b""
    assert b"tablectl demo: standard output is not a terminal" in screen.read()
    assert list(tmp_path.iterdir()) == []


class _Screen:
    """What was written on a pty's terminal side, read off its master so no write blocks."""

    def __init__(self, master: int) -> None:
        self.master = master
        self._data = bytearray()
        self._lock = threading.Lock()
        self.thread = threading.Thread(target=self._drain)
        self.thread.start()

    def _drain(self) -> None:
        with contextlib.suppress(OSError):  # EIO once no process holds the terminal side
            while chunk := os.read(self.master, 65536):
                with self._lock:
                    self._data += chunk

    def read(self) -> bytes:
        with self._lock:
            return bytes(self._data)


@contextlib.contextmanager
def _terminal() -> Iterator[tuple[int, _Screen]]:
    """A 120x40 pty: its terminal side for a child's streams, and what is written on it."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    screen = _Screen(master)
    try:
        yield slave, screen
    finally:
        os.close(slave)
        screen.thread.join(PATIENCE)
        os.close(master)


def test_sighup_closes_the_display_demo_and_removes_its_temporary_folder(tmp_path: Path) -> None:
    """The demo on the dealer's display in a terminal (a real pty) that hangs up: SIGHUP closes
    the table, then the display, and the temporary folder goes (it was left); exit 129."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    with _terminal() as (terminal, screen):
        process = subprocess.Popen(
            [*DEMO, "--game", "five-card-stud", "--pace", "0.01"],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp), "TERM": "xterm"},
            stdin=terminal,
            stdout=terminal,
            stderr=terminal,
        )
        try:
            _wait_for_line(_temporary_log(tmp), '"hand_started"', process)
            process.send_signal(signal.SIGHUP)
            process.wait(timeout=PATIENCE)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    shown = screen.read()
    assert b"Traceback" not in shown
    assert b"tablectl demo: stopped by SIGHUP" in shown
    assert process.returncode == 128 + signal.SIGHUP
    assert list(tmp.iterdir()) == []
