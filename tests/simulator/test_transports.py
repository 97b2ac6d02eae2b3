"""The simulator behind a real pty and behind ``sim://``: the same device, either way."""

from __future__ import annotations

import os
import select
import termios
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import serial
from devtime import WAIT, let_pass
from sim_host import PortHost

from controller.poker.inputs import Button
from drivers.tablectl.panel import Light, Text
from drivers.tablectl.sentences import Hello
from drivers.tablectl.shoe import CardSeen
from simulator.clock import ManualClock
from simulator.devices import SHOE_IDENTITY, Identity, Timing
from simulator.protocol_sim import parse_url
from simulator.sim_device import boot_id
from simulator.table import Simulator
from simulator.transports import PtyEndpoint

OpenPort = Callable[[str], serial.SerialBase]
#: Section 10's timers, shortened for the tests.
TIMING = Timing(heartbeat=0.25, hello=0.25)


@pytest.fixture(params=["pty", "memory"])
def table(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Simulator, OpenPort]]:
    """A running simulator, on a clock the test moves, and a way to open its devices as a
    host would."""
    transport = request.param
    sim = Simulator(
        transport=transport,
        directory=tmp_path / "sim",
        seed=3,
        timing=TIMING,
        clock=ManualClock(),
    )
    opened: list[serial.SerialBase] = []

    def open_port(device: str) -> serial.SerialBase:
        port = serial.serial_for_url(sim.address(device), baudrate=115200, timeout=0.05)
        opened.append(port)
        return port

    with sim:
        yield sim, open_port
        for port in opened:
            port.close()


def read_until_the_port_fails(port: serial.SerialBase) -> None:
    """Read (and write, as a host's query timer does) until the unplugged port fails."""
    for _ in range(100):
        port.read(1)
        port.write(b"$HCQRY,1*4C\r\n")


def test_a_host_is_welcomed_and_receives_each_dealt_card_once(table) -> None:  # type: ignore[no-untyped-def]  # fixture tuple
    """Section 4 and 3.1: query, hello, welcome; then every dealt card, in order, once."""
    sim, open_port = table
    host = PortHost(open_port("shoe"), "shoe")
    host.connect()
    cards = [sim.deal() for _ in range(5)]
    uids = [sim.shoe.deck.uid(card) for card in cards]
    host.until(lambda: len(host.host.cards) == 5)
    host.until(lambda: sim.wait_for(lambda: sim.shoe.sender.backlog == 0, 0.0))
    assert host.host.cards == uids


def test_a_host_receives_each_button_once_and_drives_the_lights(table) -> None:  # type: ignore[no-untyped-def]  # fixture tuple
    """3.2 BTN up, 3.4 LIT and TXT down, over the same port."""
    sim, open_port = table
    port = open_port("panel")
    host = PortHost(port, "panel")
    host.connect()
    sim.press(Button.NEW_HAND)
    sim.press(Button.BET_RAISE)
    port.write(host.host.codec.encode(Light(4)) + host.host.codec.encode(Text("Seat 4, to act")))
    host.until(lambda: len(host.host.buttons) == 2)
    assert host.host.buttons == ["new_hand", "bet_raise"]
    assert sim.wait_for(lambda: (sim.panel.light, sim.panel.text) == (4, "Seat 4, to act"))


def test_unplug_mid_hand_loses_no_card(table, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]  # fixture tuple
    """Chart 9.3: the port fails; a card dealt while unplugged arrives after the replug, once."""
    sim, open_port = table
    port = open_port("shoe")
    host = PortHost(port, "shoe")
    host.connect()
    first = sim.deal()
    host.until(lambda: len(host.host.cards) == 1)
    sim.unplug("shoe")
    with pytest.raises(serial.SerialException):
        read_until_the_port_fails(port)
    port.close()
    second = sim.deal()
    with pytest.raises(serial.SerialException):
        serial.serial_for_url(sim.address("shoe"), timeout=0.05).close()
    sim.replug("shoe")
    host.port = open_port("shoe")
    host.port.write(host.host.query())
    host.until(lambda: len(host.host.cards) == 2)
    host.until(lambda: sim.wait_for(lambda: sim.shoe.sender.backlog == 0, 0.0))
    assert host.host.cards == [sim.shoe.deck.uid(first), sim.shoe.deck.uid(second)]
    assert len([s for s in host.host.accepted if isinstance(s, CardSeen)]) == 2


def test_a_silent_device_sends_nothing_at_all(table) -> None:  # type: ignore[no-untyped-def]  # fixture tuple
    """A hung device: not even a heartbeat, so the host's loss timer runs out."""
    sim, open_port = table
    clock = sim.clock
    assert isinstance(clock, ManualClock)
    port = open_port("panel")
    PortHost(port, "panel").connect()
    sim.silence("panel")
    port.reset_input_buffer()  # what the panel said before it hung
    received = b""
    for _ in range(3):  # three heartbeat periods on the panel's clock: each beat is due
        let_pass(clock, TIMING.heartbeat, TIMING.heartbeat)
        received += port.read(64)  # what was due is written before the time can be read
    assert received == b""
    with sim.locked():
        assert sim.line("panel").counters.silenced >= 3, "the heartbeats fell due, unsent"
    sim.speak("panel")
    let_pass(clock, TIMING.heartbeat, TIMING.heartbeat)
    deadline = time.monotonic() + WAIT
    while b"HBT" not in received and time.monotonic() < deadline:
        received += port.read(64)
    assert b"$PNHBT" in received


def test_the_pty_is_raw_behind_a_stable_link(tmp_path: Path) -> None:
    """Any program opens <dir>/shoe as hardware: a symlink to a raw-mode pty slave."""
    directory = tmp_path / "sim"
    with Simulator(directory=directory) as sim:
        link = directory / "shoe"
        assert link.is_symlink()
        assert os.readlink(link).startswith("/dev/pts/")
        fd = os.open(link, os.O_RDWR | os.O_NOCTTY)
        try:
            attrs = termios.tcgetattr(fd)
            assert not attrs[3] & (termios.ECHO | termios.ICANON), "no echo, no line editing"
            assert not attrs[1] & termios.OPOST, "no output processing"
            os.write(fd, b"$HCQRY,1*4C\r\n")
            data = b""
            deadline = time.monotonic() + WAIT
            while b"$SHHEL" not in data and time.monotonic() < deadline:
                os.set_blocking(fd, False)
                try:
                    data += os.read(fd, 256)
                except BlockingIOError:
                    time.sleep(0.01)
            assert b"$SHHEL,0,RS-200,SHOE0001,2.1.0,1," in data
        finally:
            os.close(fd)
        sim.unplug("panel")
        assert not (directory / "panel").exists()
        sim.replug("panel")
        assert (directory / "panel").is_symlink()
    assert not (directory / "shoe").exists(), "closing the simulator removes its links"


def test_what_the_host_wrote_before_an_advance_is_heard_at_the_old_time(tmp_path: Path) -> None:
    """The clock's watch reads the ptys before it writes what fell due (simulator/serving.py):
    a query the serving thread has not read yet is heard by the time the advance returns."""
    clock = ManualClock()
    with Simulator(directory=tmp_path / "sim", timing=TIMING, clock=clock) as sim:
        endpoint = sim.devices["shoe"].endpoint
        assert isinstance(endpoint, PtyEndpoint)
        fd = os.open(sim.address("shoe"), os.O_RDWR | os.O_NOCTTY)
        try:
            with sim.locked():  # the serving thread cannot read the query meanwhile
                os.write(fd, b"$HCQRY,1*4C\r\n")
                assert endpoint.master is not None
                readable, _, _ = select.select([endpoint.master], [], [], WAIT)
                assert readable, "the query reached the pty's master"
                assert sim.shoe.link.queries == 0
                clock.advance(0.0)
                assert sim.shoe.link.queries == 1
        finally:
            os.close(fd)


def test_sim_urls_name_the_device_and_optionally_the_table() -> None:
    """sim://shoe is the default table's shoe; sim://t2/panel a named table's panel."""
    assert parse_url("sim://shoe") == ("default", "shoe")
    assert parse_url("sim://t2/panel") == ("t2", "panel")
    for bad in ("sim://", "sim://shoe?fast=1", "loop://"):
        with pytest.raises(serial.SerialException, match=r"(?i)expected sim://shoe"):
            parse_url(bad)


def test_opening_a_device_no_simulator_serves_says_what_is_served() -> None:
    """A sim:// URL with nothing behind it fails clearly, listing what is served."""
    with Simulator(transport="memory", table="t9"):
        with pytest.raises(serial.SerialException, match=r"served in this process: sim://t9/panel"):
            serial.serial_for_url("sim://nothing")
        port = serial.serial_for_url("sim://t9/shoe", timeout=0)
        with pytest.raises(serial.SerialException, match="open already"):
            serial.serial_for_url("sim://t9/shoe")
        port.close()


def test_two_in_process_tables_run_side_by_side() -> None:
    """Named tables keep their devices apart: each table's host hears only its own shoe (its
    boot id, its serial, its cards), a card dealt at one table never reaches the other's
    host, and each shoe hears only its own host (its query, its welcomes)."""
    seeds = {"left": 1, "right": 2}

    def shoe(table: str) -> Identity:
        return Identity(SHOE_IDENTITY.model, f"SHOE-{table}", SHOE_IDENTITY.firmware)

    with (
        Simulator(
            transport="memory",
            table="left",
            seed=1,
            shoe_identity=shoe("left"),
            clock=ManualClock(),
        ) as left,
        Simulator(
            transport="memory",
            table="right",
            seed=2,
            shoe_identity=shoe("right"),
            clock=ManualClock(),
        ) as right,
    ):
        sims = {"left": left, "right": right}
        hosts = {
            t: PortHost(serial.serial_for_url(f"sim://{t}/shoe", timeout=0.05), "shoe")
            for t in sims
        }
        try:
            for host in hosts.values():
                host.connect()
            dealt: dict[str, list[str]] = {"left": [], "right": []}

            def deal(table: str) -> None:
                """Deal at ``table``; its host takes the card, and everything before it."""
                sim, host = sims[table], hosts[table]
                card = sim.deal()
                with sim.locked():
                    dealt[table].append(sim.shoe.deck.uid(card))
                host.until(lambda: len(host.host.cards) >= len(dealt[table]), WAIT)

            # Each host reads in order: a card of the other table that had reached it would
            # have come before its own table's next card.
            for table in ("left", "right", "left", "right"):
                deal(table)
            assert set(dealt["left"]).isdisjoint(dealt["right"]), "the tables' tags differ"
            for table, sim in sims.items():
                host = hosts[table].host
                assert host.cards == dealt[table], f"{table}: only its own cards"
                hellos = [s for s in host.heard if isinstance(s, Hello)]
                assert hellos, table
                assert {(h.serial, h.boot) for h in hellos} == {
                    (f"SHOE-{table}", boot_id(seeds[table], "shoe", 1))
                }, f"{table}: only its own shoe's hellos"
                with sim.locked():  # its host's query, and a welcome for each hello it heard
                    link = sim.shoe.link
                    assert (link.queries, link.welcomes) == (1, len(hellos)), table
        finally:
            for host in hosts.values():
                host.port.close()


def test_a_trace_shows_what_the_device_hears_and_says() -> None:
    """trace: '<' for the host's sentences, '>' for the device's; heartbeats only when asked."""
    lines: list[str] = []
    with Simulator(transport="memory", table="traced") as sim:
        sim.trace("panel", lines.append)
        port = serial.serial_for_url("sim://traced/panel", timeout=0.05)
        host = PortHost(port, "panel")
        host.connect()
        sim.press(Button.FOLD)
        host.until(lambda: host.host.buttons == ["fold"])
        sim.trace("panel", None)
        port.close()
    assert "panel < $HCQRY,1*4C" in lines
    assert any(line.startswith("panel > $PNHEL,") for line in lines)
    assert any(line.startswith("panel > $PNBTN,") and "fold" in line for line in lines)
    assert not any("HBT" in line for line in lines)
