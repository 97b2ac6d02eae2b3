"""controller/table/systemd.py: the sd_notify(3) datagrams, the watchdog's probe, the status.

Real AF_UNIX datagram sockets, bound here as systemd binds its own; no thread is started
(the watchdog's timer is driven by calling ``tick``), so the module is in the fast tier.
A datagram sent is in the receiver's queue when ``sendto`` returns, so "nothing was sent"
is read at once, without waiting.
"""

from __future__ import annotations

import os
import queue
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from apphelp import json_log

from controller.journal import tablerecords as rec
from controller.poker.cards import DECK
from controller.poker.engine.events import ActionRequired, CardExpected, Event, NewHandExpected
from controller.poker.games import GAMES
from controller.poker.inputs import Button, ButtonPress, CardRead
from controller.table.control import SeatRequest
from controller.table.core import TableCore
from controller.table.systemd import (
    Notifier,
    NotifyError,
    ServiceNotifier,
    Watchdog,
    socket_address,
    status_line,
    watchdog_interval,
)
from simulator.simtable import demo_config


@pytest.fixture
def listener(tmp_path: Path) -> Iterator[tuple[socket.socket, str]]:
    """A datagram socket bound where NOTIFY_SOCKET will point, as systemd's is."""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    path = tmp_path / "notify"
    server.bind(str(path))
    server.setblocking(False)
    try:
        yield server, str(path)
    finally:
        server.close()


def received(server: socket.socket) -> list[str]:
    """Every datagram waiting on ``server``, in order."""
    messages = []
    while True:
        try:
            messages.append(server.recv(4096).decode())
        except BlockingIOError:
            return messages


@pytest.mark.fast
def test_without_notify_socket_nothing_is_made() -> None:
    """sd_notify(3): no NOTIFY_SOCKET, no notification (a bench, a terminal, a test)."""
    assert ServiceNotifier.from_environment({}) is None
    assert ServiceNotifier.from_environment({"NOTIFY_SOCKET": "", "WATCHDOG_USEC": "1"}) is None


@pytest.mark.fast
def test_the_address_is_a_path_or_an_abstract_name() -> None:
    """sd_notify(3): a leading @ names the abstract namespace (a NUL byte on the wire)."""
    assert socket_address("/run/systemd/notify") == "/run/systemd/notify"
    assert socket_address("@tablectl/notify") == b"\0tablectl/notify"
    with pytest.raises(NotifyError, match=r"NOTIFY_SOCKET='run/notify': expected an absolute"):
        socket_address("run/notify")


@pytest.mark.fast
def test_the_watchdog_interval_is_watchdog_usec_for_this_process_only() -> None:
    """sd_watchdog_enabled(3): WATCHDOG_USEC in microseconds; WATCHDOG_PID, if set, must be
    this process."""
    assert watchdog_interval({}) is None
    assert watchdog_interval({"WATCHDOG_USEC": "10000000"}) == 10.0
    mine = {"WATCHDOG_USEC": "500000", "WATCHDOG_PID": str(os.getpid())}
    assert watchdog_interval(mine) == 0.5
    assert watchdog_interval({"WATCHDOG_USEC": "500000", "WATCHDOG_PID": "1"}) is None
    for bad in ("ten", "0", "-5", "1.5"):
        with pytest.raises(NotifyError, match=rf"WATCHDOG_USEC='{bad}': expected a whole"):
            watchdog_interval({"WATCHDOG_USEC": bad})


@pytest.mark.fast
def test_a_notification_is_one_datagram_of_key_value_lines(
    listener: tuple[socket.socket, str],
) -> None:
    server, path = listener
    notify = ServiceNotifier.from_environment({"NOTIFY_SOCKET": path})
    assert notify is not None
    try:
        assert notify.notifier.send({"READY": "1", "STATUS": "hand 1"})
    finally:
        notify.close()
    assert received(server) == ["READY=1\nSTATUS=hand 1"]


@pytest.mark.fast
def test_an_abstract_socket_is_reached(tmp_path: Path) -> None:
    """NOTIFY_SOCKET=@name: the abstract namespace, as systemd uses in a container."""
    name = f"tablectl-test-{os.getpid()}-{tmp_path.name}"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(b"\0" + name.encode())
    server.setblocking(False)
    notifier = Notifier(socket_address(f"@{name}"))
    try:
        assert notifier.send({"WATCHDOG": "1"})
        assert received(server) == ["WATCHDOG=1"]
    finally:
        notifier.close()
        server.close()


@pytest.mark.fast
def test_a_failed_send_is_logged_once_and_never_raised(tmp_path: Path) -> None:
    """The table must not stop because no one listens: False, one warning naming the socket."""
    missing = str(tmp_path / "gone")
    with json_log(tmp_path) as lines:
        notifier = Notifier(missing)
        try:
            assert notifier.send({"STATUS": "a"}) is False
            assert notifier.send({"STATUS": "b"}) is False
        finally:
            notifier.close()
    failed = [line for line in lines if line["event"] == "systemd_notify_failed"]
    assert len(failed) == 1
    assert failed[0]["socket"] == missing
    assert failed[0]["level"] == "warning"


def answer_probe(events: queue.SimpleQueue[Any]) -> None:
    """What the controller's loop does with the probe: take it, and answer it."""
    request = events.get_nowait()
    assert isinstance(request, SeatRequest)
    assert request.change is None  # show the seats: nothing journaled, nothing changed
    request.answer.put({"ok": True, "text": "seats 1 2 3"})


@pytest.mark.fast
def test_the_watchdog_pings_only_when_the_loop_answers(
    tmp_path: Path, listener: tuple[socket.socket, str]
) -> None:
    """A probe goes to the loop's queue; WATCHDOG=1 is sent when the loop answers it, and
    not while it does not: a second tick puts no second probe and logs the stall once."""
    server, path = listener
    events: queue.SimpleQueue[Any] = queue.SimpleQueue()
    notifier = Notifier(path)
    watchdog = Watchdog(notifier, events, interval=10.0)
    try:
        with json_log(tmp_path) as lines:
            watchdog.tick()
            assert events.qsize() == 1
            assert received(server) == []  # the timer never pings on its own
            watchdog.tick()
            watchdog.tick()
            assert events.qsize() == 1  # a hung loop gets no pile of probes
            assert received(server) == []
            answer_probe(events)
            assert received(server) == ["WATCHDOG=1"]
            watchdog.tick()
            answer_probe(events)
            assert received(server) == ["WATCHDOG=1"]
    finally:
        notifier.close()
    stalled = [line for line in lines if line["event"] == "loop_stalled"]
    assert len(stalled) == 1
    assert stalled[0]["level"] == "warning"


@pytest.mark.fast
def test_a_probe_answered_after_stopping_does_not_ping(listener: tuple[socket.socket, str]) -> None:
    """The close's drain may take a probe left in the queue: STOPPING=1 was the last word."""
    server, path = listener
    events: queue.SimpleQueue[Any] = queue.SimpleQueue()
    notifier = Notifier(path)
    watchdog = Watchdog(notifier, events, interval=10.0)
    try:
        watchdog.tick()
        watchdog.stop()
        answer_probe(events)
    finally:
        notifier.close()
    assert received(server) == []


def mambo_core() -> TableCore:
    """A three-seat Mambo table (14.13A) with both devices welcomed."""
    spec = GAMES["mambo"]
    core = TableCore(spec, demo_config(spec))
    for device in ("shoe", "panel"):
        ready = {"device": device, "event": "ready", "outcome": "new_session", "boot": "B"}
        core.take(rec.DEVICE, ready)
    return core


def take(core: TableCore, seq: int, inp: ButtonPress | CardRead) -> list[Event]:
    """Apply one input as the controller's loop does; the events it caused."""
    device = "panel" if isinstance(inp, ButtonPress) else "shoe"
    return core.take(*rec.input_data(inp, rec.Origin(device, "B", seq)))


def status(core: TableCore) -> str:
    """The status of the table as it stands, its street read from the table's snapshot."""
    return status_line(core, core.table.state.street)


@pytest.mark.fast
def test_the_status_says_where_the_hand_stands_and_names_no_card() -> None:
    """STATUS= is read by anyone with systemctl status: the hand, its street, what the table
    waits for, and never a card dealt (controller/poker/announce.py, hidden_cards; 14.13A(c): the
    first round's two cards down and one up)."""
    core = mambo_core()
    assert status(core) == "waiting for hand 1: shuffle, then NEW HAND"
    take(core, 1, ButtonPress(Button.NEW_HAND))
    assert status(core) == "hand 1 · first round · card to seat 1, face down"
    dealt: list[str] = []
    seq = 2
    while isinstance(core.table.pending, CardExpected):
        card = DECK[seq]
        take(core, seq, CardRead(card))
        dealt.append(card.code)
        seq += 1
        line = status(core)
        for code in dealt:
            assert code not in line, (code, line)
    pending = core.table.pending
    assert isinstance(pending, ActionRequired)  # the bring-in (14.13A(d))
    assert status(core) == f"hand 1 · first round · seat {pending.seat} to act"


@pytest.mark.fast
def test_the_status_of_a_paused_table_names_the_device() -> None:
    """docs/app.md, Devices lost and found: a lost shoe holds the table."""
    core = mambo_core()
    core.take(rec.DEVICE, {"device": "shoe", "event": "lost", "reason": "no heartbeat"})
    assert status(core) == "paused: shoe lost"


@pytest.mark.fast
def test_the_status_follows_a_whole_hand_street_by_street(
    listener: tuple[socket.socket, str],
) -> None:
    """ServiceNotifier looks the street up again only after an event that may change it
    (SAME_STREET): over a whole Mambo hand (14.13A: three rounds, a burn before each later
    one) every STATUS it sends is the table's own, and it names every round."""
    server, path = listener
    core = mambo_core()
    notify = ServiceNotifier(Notifier(path), None)
    messages: list[str] = []
    try:
        notify.ready(core, queue.SimpleQueue())
        seq = 1
        sent = [status(core)]
        events = take(core, seq, ButtonPress(Button.NEW_HAND))
        cards = iter(DECK)
        while True:
            notify.announced(core, events)
            messages.extend(received(server))  # as systemd reads them
            if status(core) != sent[-1]:
                sent.append(status(core))
            pending = core.table.pending
            seq += 1
            if isinstance(pending, NewHandExpected):
                break
            if isinstance(pending, CardExpected):
                events = take(core, seq, CardRead(next(cards)))
            else:
                assert isinstance(pending, ActionRequired), pending
                buttons = [option.button for option in pending.options]
                press = "check_call" if "check_call" in buttons else buttons[0]
                events = take(core, seq, ButtonPress(Button(press)))
    finally:
        notify.close()
    statuses = [message.split("STATUS=", 1)[1] for message in messages]
    assert statuses == sent
    for street in ("first round", "second round", "final round"):
        assert any(f" · {street} · " in line for line in statuses), (street, statuses)


@pytest.mark.fast
def test_a_full_queue_drops_a_status_but_ready_waits_for_room(
    tmp_path: Path, listener: tuple[socket.socket, str]
) -> None:
    """A status or a ping finds no room: dropped, not logged (the next says it again). READY
    and STOPPING wait for systemd to read (here: the pause reads one datagram, as systemd
    would meanwhile); with no room within their patience they are dropped too."""
    server, path = listener
    pauses: list[float] = []

    def systemd_reads_one(seconds: float) -> None:
        pauses.append(seconds)
        server.recv(4096)

    notifier = Notifier(path, pause=systemd_reads_one)
    try:
        with json_log(tmp_path) as lines:
            sent = 0
            while notifier.send({"STATUS": str(sent)}):
                sent += 1
            assert sent > 0
            assert pauses == []  # a status never waits
            assert notifier.send({"READY": "1"}, patience=1.0)
            assert len(pauses) == 1
            assert received(server)[-1] == "READY=1"
            while notifier.send({"STATUS": "again"}):
                pass
            assert notifier.send({"STOPPING": "1"}, patience=0.0) is False
    finally:
        notifier.close()
    assert not [line for line in lines if line["event"] == "systemd_notify_failed"]
