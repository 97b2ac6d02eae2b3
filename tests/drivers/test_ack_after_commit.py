"""The drivers' ``ack_after_commit`` hook: nothing is acknowledged before the controller commits.

docs/journal.md (Durability): a record is on disk before the device sentence
that caused it is acknowledged. With ``ack_after_commit`` the driver sends no
ACK for an accepted sentence; the controller calls ``commit(seq)`` once the
record is written. Runs over every backend of the contract suite, on a clock
the test moves (see test_driver_contract.py).

The acks a device received are compared in the line's order: the test commits
one last sentence, waits for its ack, and so knows every ack the host wrote
before it has arrived too.
"""

from __future__ import annotations

import queue
from typing import Any

from backends import Backend
from fake_device import FakeDevice
from test_driver_contract import marked, settings, settle, uid, wait_for

from controller.poker.inputs import ReadPoint
from drivers.seam.events import DeviceUp, RepeatDropped, TagRead
from drivers.tablectl.sentences import Ack
from drivers.tablectl.shoe import ShoeDriver
from simulator.clock import ManualClock


def acks(device: FakeDevice) -> list[Ack]:
    """The acks the device received, in order."""
    return [a for a in device.seen.of(Ack) if isinstance(a, Ack)]


def test_no_ack_goes_out_until_the_controller_commits(backend: Backend) -> None:
    """docs/journal.md, Durability: a read is acked only after commit(seq); then it is covered."""
    events: queue.Queue[Any] = queue.Queue()
    clock = ManualClock()
    with (
        FakeDevice(backend, clock=clock) as device,
        ShoeDriver(settings(backend), events, clock=clock, ack_after_commit=True) as driver,
    ):
        wait_for(events, DeviceUp)
        device.read(uid(1))
        read = wait_for(events, TagRead)[-1]
        # The device resends while it waits (0.05 s), and heartbeats: neither may be acked.
        device.advance(0.5)
        before, marker = marked(device, events)
        assert before == []  # the resends were dropped as duplicates
        driver.commit(read.seq)
        driver.commit(marker.seq)
        device.wait_acknowledged()  # the commits reached the device
        assert acks(device) == [Ack(read.seq), Ack(marker.seq)], "an ack before a commit"


def test_a_restored_driver_drops_the_resend_of_a_journaled_read(backend: Backend) -> None:
    """docs/protocol.md, 4-5: after restore(boot, seq) the device's resend of seq is a duplicate."""
    events: queue.Queue[Any] = queue.Queue()
    clock = ManualClock()
    with FakeDevice(backend, clock=clock) as device:
        boot = device.hello().boot
        device.read(uid(1))  # journaled before the crash, never acked
        device.read(uid(2))  # not yet journaled
        driver = ShoeDriver(settings(backend), events, clock=clock, ack_after_commit=True)
        driver.restore(boot, 0)
        with driver:
            ready = wait_for(events, DeviceUp)[-1]
            assert ready.outcome.value == "resumed"
            got = wait_for(events, TagRead)[-1]
            assert got.uid == uid(2)
            assert settle(device, events, 0.3) == []


def test_a_dropped_rfid_repeat_is_passed_on_to_be_committed(backend: Backend) -> None:
    """docs/protocol.md, 7: a repeat the host drops still needs an ack in order: RepeatDropped."""
    events: queue.Queue[Any] = queue.Queue()
    clock = ManualClock()
    with (
        FakeDevice(backend, clock=clock) as device,
        ShoeDriver(
            settings(backend), events, repeat_window=5.0, clock=clock, ack_after_commit=True
        ) as driver,
    ):
        wait_for(events, DeviceUp)
        first_read = device.read(uid(3), ReadPoint.DEALING_SLOT)
        first = wait_for(events, TagRead)[-1]
        driver.commit(first.seq)
        # The same tag 100 ms later on the shoe's clock: a repeat (docs/protocol.md, 7).
        device.read(uid(3), ReadPoint.DEALING_SLOT, at_ms=first_read.read_ms + 100)
        repeat = wait_for(events, RepeatDropped)[-1]
        assert repeat.seq == first.seq + 1
        driver.commit(repeat.seq)
        device.wait_acknowledged()  # the commit reached the device


def test_after_lost_sentences_the_heartbeat_rule_does_not_re_ack_the_old_number(
    backend: Backend,
) -> None:
    """docs/protocol.md 5, Lost sentences: with ack_after_commit, once a heartbeat shows
    sentences lost the host is in step with the device: it does not answer each heartbeat
    with a stale ACK of the number before the loss."""
    events: queue.Queue[Any] = queue.Queue()
    clock = ManualClock()
    with (
        FakeDevice(backend, clock=clock) as device,
        ShoeDriver(settings(backend), events, clock=clock, ack_after_commit=True) as driver,
    ):
        wait_for(events, DeviceUp)
        device.read(uid(1))
        read = wait_for(events, TagRead)[-1]
        driver.commit(read.seq)
        device.wait_acknowledged()
        before = len(acks(device))
        device.lose_unsent(3)
        device.advance(0.15)  # the next heartbeat shows the three lost
        ready = wait_for(events, DeviceUp)[-1]
        assert ready.outcome.value == "lost"
        device.advance(0.5)  # five more of the device's heartbeats
        _, marker = marked(device, events)  # behind them: the host has answered them all
        driver.commit(marker.seq)
        device.wait_acknowledged()
        assert acks(device)[before:] == [Ack(marker.seq)], "a heartbeat was answered"
