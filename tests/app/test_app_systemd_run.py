"""A real ``tablectl run`` on the simulator tells systemd's notification socket what it does.

The test binds its own AF_UNIX datagram socket, as systemd does for a ``Type=notify``
unit (docs/examples/tablectl.service), and gives the controller its address in
NOTIFY_SOCKET, with WATCHDOG_USEC for the watchdog: it must read READY=1 once the table
is open, STATUS= where the hand stands (naming no card dealt), WATCHDOG=1 from the
controller's loop, and STOPPING=1 on SIGTERM (controller/table/systemd.py).
"""

from __future__ import annotations

import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from apphelp import AS_ROOT, PATIENCE, json_log, sim_table, table_toml
from test_app_commands import ROOT, wait_for_log

from controller.journal import verify
from controller.poker.engine.events import Event, HandStarted
from controller.poker.inputs import Button
from controller.table.loop import Controller, wait_until
from controller.table.systemd import Notifier, Watchdog
from simulator.table import Simulator

#: 0.2 s: the loop is asked for a ping every 0.1 s, so the test sees several quickly.
WATCHDOG_USEC = "200000"


class NotifySocket:
    """The service manager's end: every datagram the controller sent, in order."""

    def __init__(self, server: socket.socket) -> None:
        self.server = server
        self.messages: list[dict[str, str]] = []

    def wait_for(
        self, predicate: Callable[[dict[str, str]], bool], after: int = 0
    ) -> dict[str, str]:
        """The first message from the ``after``-th on (read so far, or arriving within
        PATIENCE) that satisfies ``predicate``."""
        deadline = time.monotonic() + PATIENCE
        seen = after
        while True:
            for message in self.messages[seen:]:
                if predicate(message):
                    return message
            seen = len(self.messages)
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no such notification within {PATIENCE} s: {self.messages}")
            if select.select([self.server], [], [], left)[0]:
                self._receive()

    def drain(self) -> None:
        """Read what is left (the sender has exited: every datagram it sent is queued)."""
        while select.select([self.server], [], [], 0)[0]:
            self._receive()

    def _receive(self) -> None:
        data = self.server.recv(4096).decode()
        self.messages.append(dict(line.split("=", 1) for line in data.splitlines()))


@pytest.fixture(params=["path", "abstract"])
def notify_socket(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[tuple[str, NotifySocket]]:
    """NOTIFY_SOCKET's value and the bound socket: a file's path, or an @abstract name."""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    if request.param == "path":
        path = tmp_path / "notify"
        server.bind(str(path))
        value = str(path)
    else:
        name = f"tablectl-test-{os.getpid()}-{tmp_path.name}"
        server.bind(b"\0" + name.encode())
        value = f"@{name}"
    try:
        yield value, NotifySocket(server)
    finally:
        server.close()


def test_run_says_ready_status_watchdog_and_stopping(
    tmp_path: Path, notify_socket: tuple[str, NotifySocket]
) -> None:
    """READY=1 with the status once the journal is open and the drivers started; a STATUS= per
    change of where the hand stands; WATCHDOG=1 while the loop turns; STOPPING=1 on SIGTERM;
    exit 0 and an intact journal."""
    address, notified = notify_socket
    with Simulator(transport="pty", directory=tmp_path / "sim", seed=4) as sim:
        config = table_toml(tmp_path, sim)
        log = tmp_path / "tablectl.log"
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "NOTIFY_SOCKET": address,
            "WATCHDOG_USEC": WATCHDOG_USEC,
        }
        env.pop("WATCHDOG_PID", None)
        process = subprocess.Popen(
            [sys.executable, "-m", "controller", "run", "--config", str(config), *AS_ROOT],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        dealt: list[str] = []
        try:
            ready = notified.wait_for(lambda m: "READY" in m)
            # The drivers are started, the devices' hellos not yet heard (docs/app.md).
            assert ready == {"READY": "1", "STATUS": "paused: shoe and panel lost"}
            assert notified.messages[0] is ready  # nothing before it
            notified.wait_for(
                lambda m: m.get("STATUS") == "waiting for hand 1: shuffle, then NEW HAND"
            )
            assert wait_for_log(log, "table_opened")  # the journal was open before READY
            notified.wait_for(lambda m: m.get("WATCHDOG") == "1")
            sim.shuffle(3)
            sim.press(Button.NEW_HAND)
            notified.wait_for(
                lambda m: m.get("STATUS") == "hand 1 · first round · card to seat 1, face down"
            )
            # 14.13A(c): two cards face down to each seat, no burn before the first round.
            dealt.append(sim.deal().code)
            dealt.append(sim.deal().code)
            notified.wait_for(
                lambda m: m.get("STATUS") == "hand 1 · first round · card to seat 3, face down"
            )
            # The loop pings on while the hand is dealt.
            notified.wait_for(lambda m: m.get("WATCHDOG") == "1", after=len(notified.messages))
        finally:
            process.send_signal(signal.SIGTERM)
            _out, err = process.communicate(timeout=PATIENCE)
        assert process.returncode == 0, err.decode()
        stopping = notified.wait_for(lambda m: "STOPPING" in m)
        notified.drain()
    assert stopping["STOPPING"] == "1"
    assert "READY" not in str(notified.messages[1:])
    after = notified.messages[notified.messages.index(stopping) + 1 :]
    assert not any("WATCHDOG" in m for m in after), after
    for message in notified.messages:
        for code in dealt:
            assert code not in message.get("STATUS", ""), (code, message)
    assert verify(tmp_path / "journal").intact
    assert wait_for_log(log, "table_closed")["phase"] == "dealing"


def test_the_watchdog_goes_quiet_while_an_input_holds_the_table(tmp_path: Path) -> None:
    """WATCHDOG=1 only while the loop makes progress: an input stuck under the table's turn
    (here a listener that does not return, as a hung journal write would not) leaves the
    loop's probe unanswered, so no ping, and the stall is logged once; when the input ends,
    the loop answers and pings again. The watchdog's timer is driven by hand (tick)."""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(str(tmp_path / "notify"))
    notified = NotifySocket(server)
    notifier = Notifier(str(tmp_path / "notify"))
    entered, release = threading.Event(), threading.Event()

    def stuck(_controller: Controller, events: list[Event]) -> None:
        if any(isinstance(event, HandStarted) for event in events):
            entered.set()
            release.wait(PATIENCE)

    try:
        with json_log(tmp_path) as lines, sim_table(tmp_path) as table:
            controller = table.controller
            watchdog = Watchdog(notifier, controller.events, interval=10.0)
            watchdog.tick()
            notified.wait_for(lambda m: m == {"WATCHDOG": "1"})  # the loop turns: a ping
            assert wait_until(lambda: not controller.core.paused_by, PATIENCE)
            controller.listeners.append(stuck)
            table.sim.press(Button.NEW_HAND)
            assert entered.wait(PATIENCE), "the new hand's input holds the table's turn"
            watchdog.tick()
            # The loop has taken the probe and waits for the turn the input holds.
            assert wait_until(lambda: controller.events.qsize() == 0, PATIENCE)
            notified.drain()
            assert notified.messages == [{"WATCHDOG": "1"}], "no ping while the input holds"
            watchdog.tick()  # the probe still unanswered: no second one, the stall logged
            assert controller.events.qsize() == 0
            release.set()
            notified.wait_for(lambda m: m == {"WATCHDOG": "1"}, after=1)
    finally:
        release.set()
        notifier.close()
        server.close()
    stalled = [line for line in lines if line["event"] == "loop_stalled"]
    assert len(stalled) == 1
