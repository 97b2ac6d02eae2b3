"""The drivers' ``ack_after_commit`` hook: nothing is acknowledged before the controller commits.

docs/journal.md (Durability): a record is on disk before the device sentence
that caused it is acknowledged. With ``ack_after_commit`` the driver sends no
ACK for an accepted sentence; the controller calls ``commit(seq)`` once the
record is written. Runs over every backend of the contract suite.
"""

from __future__ import annotations

import queue
import time
from typing import Any

from backends import Backend
from fake_device import FakeDevice
from test_driver_contract import WAIT, quiet, settings, uid, wait_for

from controller.inputs import ReadPoint
from drivers.sentences import Ack
from drivers.shoe import RepeatDropped, ShoeDriver, TagRead
from drivers.transport import DeviceReady


def acks(device: FakeDevice) -> set[int]:
    return {a.seq for a in device.seen.of(Ack) if isinstance(a, Ack)}


def test_no_ack_goes_out_until_the_controller_commits(backend: Backend) -> None:
    """docs/journal.md, Durability: a read is acked only after commit(seq); then it is covered."""
    events: queue.Queue[Any] = queue.Queue()
    with (
        FakeDevice(backend) as device,
        ShoeDriver(settings(backend), events, ack_after_commit=True) as driver,
    ):
        wait_for(events, DeviceReady)
        device.read(uid(1))
        read = wait_for(events, TagRead)[-1]
        # The device resends while it waits (200 ms): the duplicates must not be acked either.
        time.sleep(0.5)
        assert read.seq not in acks(device)
        assert quiet(events, 0.0) == []  # the resends were dropped as duplicates
        driver.commit(read.seq)
        device.wait_acknowledged(WAIT)  # the commit reached the device
        assert read.seq in acks(device)


def test_a_restored_driver_drops_the_resend_of_a_journaled_read(backend: Backend) -> None:
    """docs/protocol.md, 4-5: after restore(boot, seq) the device's resend of seq is a duplicate."""
    events: queue.Queue[Any] = queue.Queue()
    with FakeDevice(backend) as device:
        boot = device.hello().boot
        device.read(uid(1))  # journaled before the crash, never acked
        device.read(uid(2))  # not yet journaled
        driver = ShoeDriver(settings(backend), events, ack_after_commit=True)
        driver.restore(boot, 0)
        with driver:
            ready = wait_for(events, DeviceReady)[-1]
            assert ready.outcome.value == "resumed"
            got = wait_for(events, TagRead)[-1]
            assert got.uid == uid(2)
            assert quiet(events, 0.3) == []


def test_a_dropped_rfid_repeat_is_passed_on_to_be_committed(backend: Backend) -> None:
    """docs/protocol.md, 7: a repeat the host drops still needs an ack in order: RepeatDropped."""
    events: queue.Queue[Any] = queue.Queue()
    with (
        FakeDevice(backend) as device,
        ShoeDriver(settings(backend), events, repeat_window=5.0, ack_after_commit=True) as driver,
    ):
        wait_for(events, DeviceReady)
        first_read = device.read(uid(3), ReadPoint.DEALING_SLOT)
        first = wait_for(events, TagRead)[-1]
        driver.commit(first.seq)
        # The same tag 100 ms later on the shoe's clock: a repeat (docs/protocol.md, 7).
        device.read(uid(3), ReadPoint.DEALING_SLOT, at_ms=first_read.read_ms + 100)
        repeat = wait_for(events, RepeatDropped)[-1]
        assert repeat.seq == first.seq + 1
        driver.commit(repeat.seq)
        device.wait_acknowledged(WAIT)  # the commit reached the device


def test_after_lost_sentences_the_heartbeat_rule_does_not_re_ack_the_old_number(
    backend: Backend,
) -> None:
    """docs/protocol.md 5, Lost sentences: with ack_after_commit, once a heartbeat shows
    sentences lost the host is in step with the device: it does not answer each heartbeat
    with a stale ACK of the number before the loss."""
    events: queue.Queue[Any] = queue.Queue()
    with (
        FakeDevice(backend) as device,
        ShoeDriver(settings(backend), events, ack_after_commit=True) as driver,
    ):
        wait_for(events, DeviceReady)
        device.read(uid(1))
        read = wait_for(events, TagRead)[-1]
        driver.commit(read.seq)
        device.wait_acknowledged()
        device.lose_unsent(3)
        ready = wait_for(events, DeviceReady)[-1]
        assert ready.outcome.value == "lost"
        before = len(device.seen.of(Ack))
        time.sleep(0.5)  # five of the device's heartbeats
        assert len(device.seen.of(Ack)) == before
