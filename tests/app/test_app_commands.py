"""``tablectl run`` and ``tablectl demo`` as a user runs them: real processes, real ptys."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest
from apphelp import AS_ROOT, PATIENCE, table_toml
from logread import whole_lines

from controller.cli.main import main
from controller.journal import verify
from controller.poker.inputs import Button
from simulator.table import Simulator

ROOT = Path(__file__).resolve().parents[2]
DEMO = [sys.executable, "-m", "controller", "demo"]


def on_terminal(argv: list[str], terminal: int) -> subprocess.Popen[bytes]:
    """Start ``argv`` in a session of its own with ``terminal`` (a pty's slave) as its
    standard input, output and error, as at the dealer's screen."""
    return subprocess.Popen(
        argv,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "TERM": "xterm-256color"},
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
        start_new_session=True,
    )


def log_lines(path: Path) -> list[dict[str, object]]:
    """The running table's log lines so far, each whole (logread.whole_lines)."""
    return whole_lines(path)


def wait_for_log(path: Path, event: str, timeout: float = PATIENCE) -> dict[str, object]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for line in log_lines(path):
            if line.get("event") == event:
                return line
        time.sleep(0.05)
    raise AssertionError(f"no {event} in the log within {timeout} s: {log_lines(path)[-5:]}")


def wait_for_devices(path: Path, timeout: float = PATIENCE) -> None:
    """Wait until the log has the shoe and the panel back. The table opens paused, both
    devices lost, and a paused table refuses every press (docs/app.md, Devices lost and
    found): a test that presses before both are back has its press refused, not taken."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        back = {
            line.get("device") for line in log_lines(path) if line.get("event") == "device_back"
        }
        if {"shoe", "panel"} <= back:
            return
        time.sleep(0.05)
    raise AssertionError(
        f"the shoe and the panel not both back within {timeout} s: {log_lines(path)[-5:]}"
    )


def test_run_deals_from_the_configured_devices_and_stops_cleanly_on_sigterm(
    tmp_path: Path,
) -> None:
    """tablectl run: the configured shoe and panel drive the engine; the log is JSON lines
    with the table id and the hand; SIGTERM closes the devices and logs where the hand stands."""
    with Simulator(transport="pty", directory=tmp_path / "sim", seed=4) as sim:
        config = table_toml(tmp_path, sim)
        log = tmp_path / "tablectl.log"
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        process = subprocess.Popen(
            [sys.executable, "-m", "controller", "run", "--config", str(config), *AS_ROOT],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            wait_for_devices(log)
            sim.shuffle(3)
            sim.press(Button.NEW_HAND)
            started = wait_for_log(log, "hand_started")
            assert started["table"] == "TEST-7"
            assert started["hand"] == 1
            sim.deal()  # seat 1, face down: no burn before the first round (14.13A(c))
            sim.deal()  # seat 2, face down
            wait_for_log(log, "card_dealt")
        finally:
            process.send_signal(signal.SIGTERM)
            _out, err = process.communicate(timeout=PATIENCE)
    assert process.returncode == 0, err.decode()
    closed = wait_for_log(log, "table_closed")
    assert "face down" in str(closed["where"])
    assert closed["phase"] == "dealing"


def test_run_refuses_a_bad_configuration_naming_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A configuration is validated on load; the error names the key, the value and
    what is allowed."""
    config = tmp_path / "table.toml"
    config.write_text('[table]\nid = "T"\ngame = "omaha"\n', encoding="utf-8")
    assert main(["run", "--config", str(config), *AS_ROOT]) == 1
    err = capsys.readouterr().err
    assert 'table.game = "omaha": expected one of "five-card-stud"' in err
    assert '"mambo"' in err


def test_run_refuses_root(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table runs as an unprivileged user; as root it refuses before anything else."""
    monkeypatch.setattr(os, "geteuid", lambda: 0)  # root is what cannot be assumed here
    config = tmp_path / "empty.toml"
    config.touch()  # one not there is refused first, as the command line is read
    assert main(["run", "--config", str(config)]) == 1
    assert "refusing to run as root" in capsys.readouterr().err


def test_demo_headless_plays_the_hands_and_prints_a_summary_quietly_in_a_pipe(
    tmp_path: Path,
) -> None:
    """The demo: --headless --game G --hands N plays N hands and prints a summary; in a
    pipe there is no progress bar."""
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "controller",
            "demo",
            "--headless",
            "--game",
            "five-card-stud",
            "--hands",
            "3",
            "--dir",
            str(tmp_path / "demo"),
        ],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "Five-Card Stud: 3 hands" in result.stdout
    assert "intact" in result.stdout
    assert "\r" not in result.stderr  # no progress bar in a pipe
    assert (tmp_path / "demo" / "journal").is_dir()


def test_demo_on_the_display_deals_hands_until_q(tmp_path: Path) -> None:
    """The demo on the dealer's display, in a terminal (a pty): the random bot deals
    hand after hand in lockstep with the controller, the display follows, and ``q`` ends
    it cleanly with the journal intact."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    directory = tmp_path / "demo"
    log = directory / "tablectl.log"
    process = on_terminal([*DEMO, "--pace", "0", "--seed", "3", "--dir", str(directory)], slave)
    os.close(slave)
    screen = bytearray()

    def drain(seconds: float) -> None:
        """Read what the display draws (a full pty would block it) for ``seconds``."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            if select.select([master], [], [], min(left, 0.05))[0]:
                try:
                    screen.extend(os.read(master, 65536))
                except OSError:  # the child closed the terminal
                    return

    def settled() -> int:
        return log.read_text(encoding="utf-8").count("hand_settled") if log.exists() else 0

    try:
        deadline = time.monotonic() + 60
        while settled() < 2 and time.monotonic() < deadline and process.poll() is None:
            drain(0.2)
        assert settled() >= 2, screen[-2000:].decode("utf-8", "replace")
        os.write(master, b"q")
        deadline = time.monotonic() + 30
        while process.poll() is None and time.monotonic() < deadline:
            drain(0.1)
        assert process.wait(timeout=5) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(master)
    assert b"Seat" in screen or b"seat" in screen
    assert verify(directory / "journal").intact
