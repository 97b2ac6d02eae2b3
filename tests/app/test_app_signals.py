"""``tablectl run`` and ``tablectl display`` as two processes: a signal to the table closes it
cleanly, and the display attached to it (a real process on a pty) says the controller is not
reachable, stays, and follows the table again when it is started anew; a signal to the display
closes only the display (docs/display.md, Attaching to the table)."""

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
from collections.abc import Callable
from pathlib import Path

import pytest
from apphelp import AS_ROOT, PATIENCE, table_toml
from test_app_commands import ROOT, log_lines, on_terminal, wait_for_devices, wait_for_log

from controller.journal import verify
from controller.poker.inputs import Button
from simulator.table import Simulator

TABLECTL = [sys.executable, "-m", "controller"]


class Screen:
    """What a process draws on a pty (read as it comes: a full pty would block it)."""

    def __init__(self) -> None:
        self.master, self.slave = pty.openpty()
        fcntl.ioctl(self.slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        self.drawn = bytearray()

    def drain(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            if select.select([self.master], [], [], min(left, 0.05))[0]:
                try:
                    self.drawn.extend(os.read(self.master, 65536))
                except OSError:  # the child closed the terminal
                    return

    def wait_for(self, text: bytes, after: int = 0) -> bool:
        """Read until ``text`` is drawn past offset ``after``, or PATIENCE runs out."""
        return self.wait_until(lambda: text in self.drawn[after:])

    def wait_until(self, holds: Callable[[], bool]) -> bool:
        """Read until what is drawn makes ``holds()`` true, or PATIENCE runs out."""
        deadline = time.monotonic() + PATIENCE
        while not holds() and time.monotonic() < deadline:
            self.drain(0.1)
        return holds()

    def styles(self, text: bytes, after: int = 0) -> list[bytes]:
        """How ``text`` was drawn past offset ``after``, each time: from the escape sequence
        before it (its colours) to its end."""
        drawn, found = bytes(self.drawn), []
        start = drawn.find(text, after)
        while start >= 0:
            found.append(drawn[drawn.rfind(b"\x1b[", 0, start) : start + len(text)])
            start = drawn.find(text, start + 1)
        return found

    def close(self) -> None:
        os.close(self.master)


def start_run(config: Path, tmp_path: Path) -> subprocess.Popen[bytes]:
    errors = (tmp_path / "run.err").open("ab")
    with errors:
        return subprocess.Popen(
            [*TABLECTL, "run", "--config", str(config), *AS_ROOT],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=errors,
            stderr=errors,
        )


def stop(process: subprocess.Popen[bytes], signum: int, screen: Screen | None = None) -> int:
    process.send_signal(signum)
    deadline = time.monotonic() + PATIENCE
    while process.poll() is None and time.monotonic() < deadline:
        if screen is not None:
            screen.drain(0.1)
        else:
            time.sleep(0.05)
    return process.wait(timeout=5)


def events(log: Path, event: str) -> int:
    return sum(line.get("event") == event for line in log_lines(log))


def wait_count(log: Path, event: str, count: int) -> bool:
    deadline = time.monotonic() + PATIENCE
    while events(log, event) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    return events(log, event) >= count


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_closes_the_table_and_the_attached_display_waits_for_it(
    tmp_path: Path, signum: signal.Signals
) -> None:
    """SIGTERM (or SIGINT) to tablectl run finishes the table (table_closed says
    where the hand stands, the journal verifies, exit 0); the display process attached to it
    stays and says "CONTROLLER NOT REACHABLE"; a new run is followed by the same display;
    SIGTERM to the display closes it alone (exit 0, "keeps running")."""
    screen = Screen()
    with Simulator(transport="pty", directory=tmp_path / "sim", seed=4) as sim:
        config = table_toml(tmp_path, sim)
        with config.open("a", encoding="utf-8") as toml:
            toml.write(f'\n[display]\nsocket = "{tmp_path / "d.sock"}"\n')
        log = tmp_path / "tablectl.log"
        table = start_run(config, tmp_path)
        display = on_terminal([*TABLECTL, "display", "--config", str(config)], screen.slave)
        os.close(screen.slave)
        try:
            wait_for_devices(log)
            assert screen.wait_for(b"TEST-7"), screen.drawn[-2000:]
            # The header as the display draws it while it follows the table (not dimmed).
            linked = screen.styles(b"TEST-7")[0]
            sim.shuffle(3)
            sim.press(Button.NEW_HAND)
            # The button and the cards come on two links: deal once the hand has begun.
            wait_for_log(log, "hand_started")
            sim.deal()  # seat 1, face down: no burn before the first round (14.13A(c))
            sim.deal()  # seat 2, face down
            wait_for_log(log, "card_dealt")
            # The display started before the table's feed may have said so already.
            gone = len(screen.drawn)
            assert stop(table, signum, screen) == 0, (tmp_path / "run.err").read_text()
            closed = wait_for_log(log, "table_closed", timeout=1)
            assert closed["phase"] == "dealing"
            assert "face down" in str(closed["where"])
            assert verify(tmp_path / "journal").intact

            assert screen.wait_for(b"NOT REACHABLE", gone), screen.drawn[-2000:]
            # The last table stays under the banner, dimmed (docs/display.md).
            assert screen.wait_until(
                lambda: any(style != linked for style in screen.styles(b"TEST-7", gone))
            ), screen.drawn[-2000:]
            dimmed = len(screen.drawn)
            assert display.poll() is None, "the display stays when the table goes"
            table = start_run(config, tmp_path)
            assert wait_count(log, "display_attached", 2), "the display attached by itself"
            # The table logs the attach as it accepts the display, which follows it only once it
            # has read the feed's hello, and then draws the table undimmed: only then does it
            # know the table keeps running (AttachedDisplay.farewell).
            assert screen.wait_until(lambda: linked in screen.drawn[dimmed:]), screen.drawn[-2000:]
            assert display.poll() is None

            drawn = len(screen.drawn)
            assert stop(display, signal.SIGTERM, screen) == 0
            screen.drain(0.2)
            assert b"keeps running" in screen.drawn[drawn:]
            assert table.poll() is None, "the table runs on without its display"
            assert wait_count(log, "display_detached", 2)
            assert stop(table, signal.SIGTERM) == 0
        finally:
            for process in (table, display):
                if process.poll() is None:
                    process.kill()
                    process.wait()
            screen.close()
    assert events(log, "table_closed") == 2
    assert verify(tmp_path / "journal").intact
