"""The whole simulator against the real host drivers, over a real pty and over sim://.

The drivers (drivers.tablectl.shoe.ShoeDriver, drivers.tablectl.panel.PanelDriver) cannot tell
the simulator from hardware: every card dealt and every button pressed
arrives exactly once, whatever the line does, an unplug included.
"""

from __future__ import annotations

import queue
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from devtime import WAIT, collect, let_pass, next_event

from controller.poker.inputs import Button, ReadPoint
from drivers.seam.events import (
    ButtonPressed,
    DeviceDown,
    DeviceRefused,
    DeviceUp,
    Feed,
    HelloOutcome,
    Lid,
    Reader,
    ShoeState,
    TagRead,
)
from drivers.tablectl.link import LinkSettings
from drivers.tablectl.panel import PanelDriver
from drivers.tablectl.shoe import ShoeDriver
from simulator.clock import ManualClock
from simulator.devices import SHOE_IDENTITY, Identity, Timing
from simulator.table import Simulator

#: Section 10's timers, shortened alike on both sides so the tests run in well under a second.
TIMING = Timing(heartbeat=0.1, hello=0.1, resend_after=0.05)


def link(sim: Simulator, device: str) -> LinkSettings:
    return LinkSettings(
        url=sim.address(device),
        heartbeat_timeout=0.5,
        query_interval=0.1,
        backoff_initial=0.02,
        backoff_max=0.1,
    )


@pytest.fixture
def clock() -> ManualClock:
    """The devices' and the drivers' clock: time passes only as the test lets it."""
    return ManualClock()


@pytest.fixture(params=["pty", "memory"])
def sim(request: pytest.FixtureRequest, tmp_path: Path, clock: ManualClock) -> Iterator[Simulator]:
    """A running simulator on each transport, on the test's clock."""
    with Simulator(
        transport=request.param, directory=tmp_path, seed=9, timing=TIMING, clock=clock
    ) as running:
        yield running


def test_every_card_arrives_once_in_order_through_a_faulty_line(
    sim: Simulator, clock: ManualClock
) -> None:
    """Drops, garbles, noise, a delay and lingering tags: the driver still gets each card once."""
    events: queue.Queue[Any] = queue.Queue()
    with ShoeDriver(link(sim, "shoe"), events, repeat_window=0.3, clock=clock):
        next_event(events, DeviceUp)
        dealt = []
        for n in range(30):
            if n % 7 == 1:
                sim.drop("shoe", 1)
            if n % 7 == 3:
                sim.garble("shoe", 2)
            if n % 7 == 5:
                sim.noise("shoe", 50)
            if n == 10:
                sim.delay("shoe", 0.2, 3)
            if n % 5 == 0:
                sim.duplicate_reads(2)
            dealt.append(sim.deal())
            clock.advance(0.01)  # a fast dealer: a card every 10 ms
        # The lost and damaged frames come again only as the shoe's time passes (resends).
        reads = collect(events, TagRead, 30, clock)
        with sim.locked():
            expected = [sim.shoe.deck.uid(card) for card in dealt]
        assert [r.uid for r in reads] == expected
        assert all(r.point is ReadPoint.DEALING_SLOT for r in reads)
        # Nothing twice: past the last lingering read, the next card dealt is the next read;
        # a repeat or a resend taken for a read would have come before it.
        let_pass(clock, 0.4, TIMING.heartbeat)
        last = sim.deal()
        assert next_event(events, TagRead, clock).uid == sim.shoe.deck.uid(last), "nothing twice"


def test_shoe_status_and_integrity_faults_reach_the_driver(
    sim: Simulator, clock: ManualClock
) -> None:
    """Lid and reader changes arrive as ShoeState; stray and other-deck tags as plain reads."""
    events: queue.Queue[Any] = queue.Queue()
    with ShoeDriver(link(sim, "shoe"), events, repeat_window=0.0, clock=clock):
        next_event(events, DeviceUp)
        sim.set_lid(Lid.OPEN)
        state = next_event(events, ShoeState)
        while state.lid is not Lid.OPEN:
            state = next_event(events, ShoeState)
        assert state == ShoeState(Lid.OPEN, Reader.OK, Feed.OK)
        stray = sim.foreign_tag()
        twin = sim.other_deck()
        first = sim.deal()
        again = sim.dealt_twice()
        reads = [r.uid for r in collect(events, TagRead, 4)]
        with sim.locked():
            assert reads == [
                stray,
                sim.shoe.other_deck.uid(twin),
                sim.shoe.deck.uid(first),
                sim.shoe.deck.uid(again),
            ]


def test_an_unplug_mid_hand_loses_no_card_and_the_session_resumes(
    sim: Simulator, clock: ManualClock
) -> None:
    """Chart 9.3 for real: DeviceDown, cards dealt meanwhile, replug, resumed, each card once."""
    events: queue.Queue[Any] = queue.Queue()
    with ShoeDriver(link(sim, "shoe"), events, repeat_window=0.0, clock=clock):
        next_event(events, DeviceUp)
        before = sim.deal()
        collect(events, TagRead, 1)
        sim.unplug("shoe")
        next_event(events, DeviceDown)
        during = [sim.deal(), sim.deal()]
        let_pass(clock, 0.2, TIMING.heartbeat)  # the cable stays out a while: nobody hears
        sim.replug("shoe")
        ready = next_event(events, DeviceUp)
        assert ready.outcome is HelloOutcome.RESUMED
        reads = collect(events, TagRead, 2)
        with sim.locked():
            assert [r.uid for r in reads] == [sim.shoe.deck.uid(c) for c in during]
            assert sim.shoe.deck.uid(before) not in [r.uid for r in reads]


def test_a_silent_shoe_is_a_comm_loss_and_catches_up_when_it_speaks(
    sim: Simulator, clock: ManualClock
) -> None:
    """A hung device: the host declares the loss; the card dealt meanwhile arrives later."""
    events: queue.Queue[Any] = queue.Queue()
    with ShoeDriver(link(sim, "shoe"), events, repeat_window=0.0, clock=clock):
        next_event(events, DeviceUp)
        sim.silence("shoe")
        card = sim.deal()
        # The loss is found once the host has heard nothing for its heartbeat timeout, and
        # the card comes with the resends after the shoe speaks: both take the shoe's time.
        next_event(events, DeviceDown, clock)
        sim.speak("shoe")
        (read,) = collect(events, TagRead, 1, clock)
        with sim.locked():
            assert read.uid == sim.shoe.deck.uid(card)


def test_a_power_cycle_is_seen_as_a_restart_and_reads_go_on(
    sim: Simulator, clock: ManualClock
) -> None:
    """Section 4: a new boot id after a power cycle is a restart; the new session's reads pass."""
    events: queue.Queue[Any] = queue.Queue()
    with ShoeDriver(link(sim, "shoe"), events, repeat_window=0.0, clock=clock):
        next_event(events, DeviceUp)
        sim.unplug("shoe")
        next_event(events, DeviceDown)
        sim.power_cycle("shoe")
        sim.replug("shoe")
        assert next_event(events, DeviceUp).outcome is HelloOutcome.RESTARTED
        card = sim.deal()
        (read,) = collect(events, TagRead, 1)
        with sim.locked():
            assert read.uid == sim.shoe.deck.uid(card)


def test_lingering_repeats_kept_through_an_unplug_are_dropped_and_a_reread_is_not(
    sim: Simulator, clock: ManualClock
) -> None:
    """protocol.md 7: reads made while the shoe is unplugged arrive together after the replug;
    the lingering card's repeats (50 ms apart on the shoe's clock) are dropped, the card that
    passed the slot again 0.6 s later (window 0.3 s) is read twice, a discard is its own read."""
    events: queue.Queue[Any] = queue.Queue()
    with ShoeDriver(link(sim, "shoe"), events, repeat_window=0.3, clock=clock):
        next_event(events, DeviceUp)
        sim.unplug("shoe")
        next_event(events, DeviceDown)
        sim.duplicate_reads(3)
        lingering = sim.deal()
        sim.reread(0.6)
        reread = sim.deal()
        sim.discard(lingering)
        let_pass(clock, 0.8, TIMING.heartbeat)  # the reread is made while the cable is out
        sim.replug("shoe")
        reads = collect(events, TagRead, 4)
        with sim.locked():
            uid = sim.shoe.deck.uid
            assert [(r.uid, r.point) for r in reads] == [
                (uid(lingering), ReadPoint.DEALING_SLOT),
                (uid(reread), ReadPoint.DEALING_SLOT),
                (uid(lingering), ReadPoint.DISCARD_READER),
                (uid(reread), ReadPoint.DEALING_SLOT),
            ]
        assert reads[3].read_ms - reads[1].read_ms == 600
        # The repeats came before the second read of the reread card; nothing after it either:
        # the next card dealt is the next read.
        last = sim.deal()
        assert next_event(events, TagRead).uid == uid(last), "the repeats dropped"


def test_the_shoe_clock_wrapping_mid_hand_drops_repeats_and_passes_reads(
    sim: Simulator, clock: ManualClock
) -> None:
    """protocol.md 7, Wrap-around: a lingering card read across the shoe clock's wrap is one
    read; a card dealt after the wrap is read."""
    events: queue.Queue[Any] = queue.Queue()
    with ShoeDriver(link(sim, "shoe"), events, repeat_window=0.3, clock=clock):
        next_event(events, DeviceUp)
        with sim.locked():  # one instant: the card is read 60 ms before the wrap
            now = sim.clock()
            sim.shoe.set_uptime(2**32 - 60, now)
            sim.shoe.extra_reads = 3  # at -60, -10, +40 and +90 ms around the wrap
            lingering = sim.shoe.deal(now=now).card
        first = collect(events, TagRead, 1)[0]
        let_pass(clock, 0.5, TIMING.heartbeat)  # the repeats are read, the clock wraps
        later = sim.deal()
        second = collect(events, TagRead, 1)[0]
        with sim.locked():
            assert (first.uid, second.uid) == (
                sim.shoe.deck.uid(lingering),
                sim.shoe.deck.uid(later),
            )
        assert first.read_ms == 2**32 - 60
        assert second.read_ms == 440, "the clock wrapped: 500 ms after -60"


def test_every_press_arrives_once_and_the_display_follows_the_driver(
    sim: Simulator, clock: ManualClock
) -> None:
    """3.2 and 3.4 over the real panel driver, with a lost and a garbled frame on the way."""
    events: queue.Queue[Any] = queue.Queue()
    with PanelDriver(link(sim, "panel"), events, refresh=0.2, clock=clock) as driver:
        next_event(events, DeviceUp)
        sim.drop("panel", 1)
        sim.garble("panel", 1)
        for button in Button:
            sim.press(button)
        presses = collect(events, ButtonPressed, len(Button), clock)  # after the resends
        assert [p.button for p in presses] == list(Button)
        driver.light(6)
        driver.show("Seat 6: bring-in 5, complete or fold")
        assert sim.wait_for(
            lambda: (
                (sim.panel.light, sim.panel.text) == (6, "Seat 6: bring-in 5, complete or fold")
            ),
            WAIT,
        )


def test_a_device_speaking_another_protocol_is_refused(tmp_path: Path) -> None:
    """Section 4, 3: the driver refuses protocol 2 and stops; the shoe shows the refusal."""
    identity = Identity(SHOE_IDENTITY.model, SHOE_IDENTITY.serial, SHOE_IDENTITY.firmware, 2)
    clock = ManualClock()
    with Simulator(directory=tmp_path, timing=TIMING, shoe_identity=identity, clock=clock) as sim:
        events: queue.Queue[Any] = queue.Queue()
        with ShoeDriver(link(sim, "shoe"), events, clock=clock):
            refused = next_event(events, DeviceRefused)
            assert "protocol version 2" in refused.reason
            assert sim.wait_for(
                lambda: sim.shoe.link.refusal == "refused by the host: protocol 1", WAIT
            )


def test_a_power_cycle_while_connected_is_announced_as_a_restart(
    sim: Simulator, clock: ManualClock
) -> None:
    """Section 4, 4: a hello with a new boot from a known device tells the controller."""
    events: queue.Queue[Any] = queue.Queue()
    with ShoeDriver(link(sim, "shoe"), events, clock=clock):
        next_event(events, DeviceUp)
        sim.power_cycle("shoe")
        assert next_event(events, DeviceUp).outcome is HelloOutcome.RESTARTED
