"""``tablectl run --display`` stops cleanly on SIGTERM and SIGINT: a real process on a pty.

With the display, the Textual app holds the main thread and the table runs
beside it; a signal must still close the table (drivers stopped, journal
closed, where the hand stands logged) and then the display, and exit 0.
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import sys
import termios
import time
from pathlib import Path

import pytest
from apphelp import AS_ROOT, PATIENCE, table_toml
from test_app_commands import on_terminal, wait_for_log

from controller.inputs import Button
from controller.journal import verify
from simulator.table import Simulator

RUN = [sys.executable, "-m", "controller", "run"]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_run_with_the_display_closes_the_table_and_the_display_on_a_signal(
    tmp_path: Path, signum: signal.Signals
) -> None:
    """Issue 7, tablectl run: with --display, SIGTERM (or SIGINT) finishes the table: the log
    says where the hand stands (table_closed), the journal verifies, the display leaves the
    terminal, and the exit status is 0."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    with Simulator(transport="pty", directory=tmp_path / "sim", seed=4) as sim:
        config = table_toml(tmp_path, sim)
        log = tmp_path / "tablectl.log"
        process = on_terminal([*RUN, "--display", "--config", str(config), *AS_ROOT], slave)
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

        try:
            wait_for_log(log, "table_opened")
            sim.shuffle(3)
            sim.press(Button.NEW_HAND)
            deadline = time.monotonic() + PATIENCE
            while b"SEAT" not in screen.upper() and time.monotonic() < deadline:
                drain(0.1)
            assert b"SEAT" in screen.upper(), "the display is up and drawing"
            sim.deal()  # seat 1, face down: no burn before the first round (14.13A(c))
            sim.deal()  # seat 2, face down
            wait_for_log(log, "card_dealt")
            drain(0.3)
            process.send_signal(signum)
            deadline = time.monotonic() + PATIENCE
            while process.poll() is None and time.monotonic() < deadline:
                drain(0.1)
            status = process.wait(timeout=5)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            os.close(master)
    assert status == 0, screen[-2000:].decode("utf-8", "replace")
    closed = wait_for_log(log, "table_closed", timeout=1)
    assert closed["phase"] == "dealing"
    assert "face down" in str(closed["where"])
    assert verify(tmp_path / "journal").intact


def test_run_with_the_display_refuses_a_log_to_the_same_terminal(tmp_path: Path) -> None:
    """Issue 7, the dealer's display: with --display and no [log] file, the log would go to the
    terminal the display draws on and write over it; run refuses at start, says what to do,
    and exits 1 (nothing opened: no journal)."""
    master, slave = pty.openpty()
    with Simulator(transport="pty", directory=tmp_path / "sim", seed=4) as sim:
        config = table_toml(tmp_path, sim, log_file=False)
        process = on_terminal([*RUN, "--display", "--config", str(config), *AS_ROOT], slave)
        os.close(slave)
        said = bytearray()
        try:
            while select.select([master], [], [], PATIENCE)[0]:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # the child closed the terminal
                    break
                if not chunk:
                    break
                said.extend(chunk)
            status = process.wait(timeout=PATIENCE)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            os.close(master)
    text = said.decode("utf-8", "replace")
    assert status == 1, text
    assert "the log would be written over the display" in text
    assert "[log] file" in text
    assert not (tmp_path / "journal").exists()
