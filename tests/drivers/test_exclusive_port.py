"""A device path is opened exclusively: a second opener is refused, naming the port and its
holder (docs/drivers.md, One controller per device).

Over the two pty backends (a bare pty pair, and the simulator's pty behind its link): the
ports the application tests and the bench use. ``socket://`` and ``sim://`` have no holder
to refuse; the contract suite (test_driver_contract.py) still opens them as before.
"""

from __future__ import annotations

import fcntl
import os
import queue
import struct
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import serial
import structlog
from backends import BACKENDS, Backend, DeviceWire
from fake_device import FakeDevice
from test_driver_contract import pending, settings, wait_for, wait_until

from controller.cli.commands.enroll import NO_SHOE, EnrollRequest, enroll
from drivers.seam.events import DeviceDown, DeviceUp, HelloOutcome
from drivers.seam.holders import port_holders
from drivers.tablectl import link
from drivers.tablectl.backend import ProtocolSettings
from drivers.tablectl.shoe import ShoeDriver
from drivers.tablectl.transport import DeviceDriver
from simulator.clock import ManualClock

ROOT = Path(__file__).resolve().parents[2]
#: Linux's "get exclusive mode" (asm-generic/ioctls.h: _IOR('T', 0x40, int)); not in termios.
TIOCGEXCL = 0x80045440
#: How long a byte may take to cross a pty on a busy machine (waited on, never slept).
PATIENCE = 30.0


@pytest.fixture(params=["pty", "sim-pty"])
def pty_backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    made = BACKENDS[request.param](tmp_path)
    yield made
    made.close()


def exclusive_mode(descriptor: int) -> int:
    """The tty's TIOCEXCL flag (1 set, 0 not)."""
    raw = fcntl.ioctl(descriptor, TIOCGEXCL, bytes(4))
    return int(struct.unpack("i", raw)[0])


def port_fd(port: Any) -> int:
    descriptor = port.fd
    assert isinstance(descriptor, int)
    return descriptor


def received(wire: DeviceWire, wanted: bytes) -> bytes:
    """What the device's end reads until ``wanted`` has come."""
    got = b""
    deadline = time.monotonic() + PATIENCE
    while wanted not in got:
        assert time.monotonic() < deadline, f"{wanted!r} never reached the device: {got!r}"
        got += wire.read(0.05)
    return got


def read_at(port: Any, wanted: bytes) -> bytes:
    """What the host's port reads until ``wanted`` has come."""
    got = b""
    deadline = time.monotonic() + PATIENCE
    while wanted not in got:
        assert time.monotonic() < deadline, f"{wanted!r} never reached the port: {got!r}"
        got += link.read_what_came(port)
    return got


def own_command() -> str:
    return " ".join(Path("/proc/self/cmdline").read_bytes().decode().split("\0")).strip()


def test_a_pty_slave_opened_exclusively_refuses_a_second_opener_and_its_device_end_works(
    pty_backend: Backend,
) -> None:
    """The second open of the same path is refused with one line naming the port (and the
    pty it leads to) and the holder, this process; the device's end (the pty's master) reads
    and writes as before; closing lets the port go."""
    wire = pty_backend.plug()
    url = pty_backend.url
    port = link.open_port(settings(pty_backend))
    try:
        with pytest.raises(link.PortBusy) as refused:
            link.open_port(settings(pty_backend))
        (holder,) = refused.value.holders
        assert holder.pid == os.getpid()
        assert own_command().startswith(holder.command.removesuffix("..."))
        real = os.path.realpath(url)
        assert str(refused.value) == f"port {url} ({real}) is held by {holder}"
        assert "\n" not in str(refused.value)
        assert refused.value.device is None  # the driver names its device (below)

        port.write(b"to the device")
        received(wire, b"to the device")
        wire.write(b"to the host")
        read_at(port, b"to the host")
    finally:
        link.close_port(port)
    link.close_port(link.open_port(settings(pty_backend)))


def test_a_pty_is_locked_but_not_put_in_exclusive_mode_a_real_tty_is_and_let_go(
    pty_backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """TIOCEXCL on a pty's slave would outlive its holder while the simulator keeps the pty
    open (a killed controller would lock its own restart out): a pty gets the lock alone. A
    real tty (here a pty taken for one) gets TIOCEXCL too, and loses it on close."""
    pty_backend.plug()
    port = link.open_port(settings(pty_backend))
    try:
        assert exclusive_mode(port_fd(port)) == 0
    finally:
        link.close_port(port)

    monkeypatch.setattr(link, "_PTY_SLAVE_MAJORS", range(0))  # every tty a real one
    # Another descriptor of the tty, open before: it sees the tty's flag after the close.
    witness = os.open(pty_backend.url, os.O_RDWR | os.O_NOCTTY)
    try:
        port = link.open_port(settings(pty_backend))
        assert exclusive_mode(port_fd(port)) == 1
        assert exclusive_mode(witness) == 1
        link.close_port(port)
        assert exclusive_mode(witness) == 0
    finally:
        os.close(witness)


#: Another controller, as far as the port is concerned: it holds the port until its stdin ends.
HOLDER = """\
import sys
from controller.cli.commands.enroll import NO_SHOE, EnrollRequest, enroll
from drivers.tablectl import link
port = link.open_port(link.LinkSettings(sys.argv[1]))
print("holding", flush=True)
sys.stdin.read()
"""


def test_a_port_another_process_holds_is_refused_naming_its_pid_and_command_line(
    pty_backend: Backend, tmp_path: Path
) -> None:
    pty_backend.plug()
    script = tmp_path / "other_controller.py"
    script.write_text(HOLDER, encoding="utf-8")
    other = subprocess.Popen(
        [sys.executable, str(script), pty_backend.url],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert other.stdin is not None
    assert other.stdout is not None
    try:
        assert other.stdout.readline() == b"holding\n"
        with pytest.raises(link.PortBusy) as refused:
            link.open_port(settings(pty_backend))
        (holder,) = refused.value.holders
        assert holder.pid == other.pid
        assert holder.command.startswith(f"{sys.executable} {script}")
        assert f"is held by pid {other.pid} ({sys.executable} {script}" in str(refused.value)
    finally:
        other.stdin.close()
        other.wait(timeout=PATIENCE)
        other.stdout.close()
    link.close_port(link.open_port(settings(pty_backend)))  # gone with its holder


def spy_opens(driver: DeviceDriver[Any]) -> list[str]:
    """Each time ``driver`` tries to open its port from now on: opened, failed or held."""
    tries: list[str] = []
    real = driver._open

    def spied() -> Any:
        try:
            port = real()
        except link.PortBusy:
            tries.append("held")
            raise
        tries.append("opened" if port is not None else "failed")
        return port

    driver._open = spied  # type: ignore[method-assign]  # an instance's spy
    return tries


def test_a_driver_whose_port_is_held_is_refused_at_start_and_takes_nothing(
    pty_backend: Backend,
) -> None:
    """The refusal names the device, the port and the holder, is logged, starts no thread and
    queues no event; the holder still gets every byte the device writes."""
    wire = pty_backend.plug()
    held = link.open_port(settings(pty_backend))
    events: queue.Queue[Any] = queue.Queue()
    driver = ShoeDriver(settings(pty_backend), events, clock=ManualClock())
    try:
        with structlog.testing.capture_logs() as logs, pytest.raises(link.PortBusy) as refused:
            driver.start()
        assert refused.value.device == "shoe"
        assert str(refused.value).startswith(f"the shoe's port {pty_backend.url} (/dev/pts/")
        assert f"is held by pid {os.getpid()} (" in str(refused.value)
        assert not driver.running
        assert pending(events) == []
        (said,) = [line for line in logs if line["event"] == "port_held"]
        assert said["log_level"] == "error"
        assert said["error"] == str(refused.value)
        wire.write(b"$HEL for the holder")
        read_at(held, b"$HEL for the holder")
    finally:
        driver.stop()
        link.close_port(held)


def test_a_port_held_after_an_unplug_pauses_the_link_naming_the_holder_and_it_resumes(
    pty_backend: Backend,
) -> None:
    """The running table must not crash when, after an unplug, another program takes the
    port: the driver keeps retrying, the loss already said once, the holder logged; when the
    port is let go the device is welcomed back."""
    clock = ManualClock()
    events: queue.Queue[Any] = queue.Queue()
    # Retried only when woken (as udev's add does): the test decides who opens first.
    patient = settings(pty_backend, backoff_initial=60.0, backoff_max=60.0)
    with (
        FakeDevice(pty_backend, clock=clock) as device,
        ShoeDriver(patient, events, clock=clock) as driver,
    ):
        wait_for(events, DeviceUp)
        tries = spy_opens(driver)
        device.unplug()
        assert "port failed" in wait_for(events, DeviceDown)[-1].reason
        wait_until(lambda: tries[-1:] == ["failed"], "a reopen of the unplugged port failed")
        device.replug()
        held = link.open_port(patient)  # another program takes the port meanwhile
        try:
            with structlog.testing.capture_logs() as logs:
                driver.wake()
                # The line, not the spy: the reading thread logs it after the open raised, so
                # the spy's "held" comes first and the test could leave the capture before it.
                wait_until(
                    lambda: any(line["event"] == "port_held" for line in logs),
                    "a reopen found the port held and said so",
                )
            assert tries[-1:] == ["held"]
            assert driver.running
            (said,) = [line for line in logs if line["event"] == "port_held"]
            assert f"is held by pid {os.getpid()} (" in said["error"]
            assert said["error"].startswith(f"the shoe's port {pty_backend.url}")
            assert pending(events) == []  # one outage, one DeviceDown: the unplug's
        finally:
            link.close_port(held)
        driver.wake()
        ready = wait_for(events, DeviceUp)[-1]
        assert ready.outcome is HelloOutcome.RESUMED


def test_a_port_held_at_start_is_said_as_the_loss_on_a_later_reopen(
    pty_backend: Backend,
) -> None:
    """A driver started before the device is there (the table opens paused) whose port is
    then taken by another program: its one DeviceDown is the missing port's, and the holder
    is logged when a reopen finds it, not at every retry."""
    events: queue.Queue[Any] = queue.Queue()
    patient = settings(pty_backend, backoff_initial=60.0, backoff_max=60.0)
    driver = ShoeDriver(patient, events, clock=ManualClock())
    tries = spy_opens(driver)
    with structlog.testing.capture_logs() as logs:
        driver.start()  # no device yet: the claim fails, the thread waits out its backoff
        try:
            assert tries == ["failed"]
            (lost,) = pending(events)
            assert isinstance(lost, DeviceDown)
            pty_backend.plug()
            held = link.open_port(patient)
            try:
                driver.wake()
                wait_until(lambda: len(tries) == 2, "a reopen")
                driver.wake()
                wait_until(lambda: len(tries) == 3, "another reopen")
                assert tries == ["failed", "held", "held"]
            finally:
                link.close_port(held)
        finally:
            driver.stop()
    assert len([line for line in logs if line["event"] == "port_held"]) == 1
    assert pending(events) == []


#: A program that holds the tty without the lock (a serial terminal): open until stdin ends.
PLAIN_OPENER = """\
import os, sys
descriptor = os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY)
print("open", flush=True)
sys.stdin.read()
"""


def test_without_a_lock_the_holders_are_the_processes_with_the_device_open(
    pty_backend: Backend, tmp_path: Path
) -> None:
    """A program that holds the tty by TIOCEXCL alone takes no lock: /proc/locks does not
    name it, so the holders are every process with the device open (/proc/*/fd)."""
    pty_backend.plug()
    script = tmp_path / "serial_terminal.py"
    script.write_text(PLAIN_OPENER, encoding="utf-8")
    other = subprocess.Popen(
        [sys.executable, str(script), pty_backend.url],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert other.stdin is not None
    assert other.stdout is not None
    try:
        assert other.stdout.readline() == b"open\n"
        holders = {holder.pid: holder.command for holder in port_holders(pty_backend.url)}
        assert holders[other.pid].startswith(f"{sys.executable} {script}")
    finally:
        other.stdin.close()
        other.wait(timeout=PATIENCE)
        other.stdout.close()


@pytest.mark.fast
def test_a_holder_this_process_cannot_see_is_said_so_with_how_to_find_it() -> None:
    refused = link.PortBusy("/dev/tablectl/nothing-here", (), "panel")
    assert str(refused) == (
        "the panel's port /dev/tablectl/nothing-here is held by another program, one this "
        "process cannot see (as root, fuser -v /dev/tablectl/nothing-here names it)"
    )
    assert isinstance(refused, serial.SerialException)


def test_enroll_refuses_a_shoe_another_program_holds_and_writes_nothing(
    pty_backend: Backend, tmp_path: Path
) -> None:
    """A running table's shoe: its reads are the table's, never an enrollment's."""
    pty_backend.plug()
    held = link.open_port(settings(pty_backend))
    said: list[str] = []
    deck = tmp_path / "red.deck"
    try:
        shoe = ProtocolSettings("shoe", pty_backend.url, None, None)
        status = enroll(EnrollRequest(deck, "red", shoe), input, said.append)
    finally:
        link.close_port(held)
    assert status == NO_SHOE
    (line,) = said
    assert line.startswith(f"error: the shoe's port {pty_backend.url} (/dev/pts/")
    assert f"is held by pid {os.getpid()} (" in line
    assert line.endswith("; stop the table (or the program) that holds it before enrolling")
    assert not deck.exists()
