"""Soak of the links: many cards and presses through the real drivers, faults at a set rate.

Over a real pty and over sim://, with the shoe and panel drivers of the host:
every card dealt and every button pressed must arrive exactly once and in
order, whatever the line does (drops, garbles, noise, delays, lingering tags,
unplugs). The default run is short; ``-m slow`` runs a long one.
"""

from __future__ import annotations

import queue
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from devtime import QUIET, WAIT, let_pass

from controller.poker.inputs import Button
from drivers.seam.events import ButtonPressed, TagRead
from drivers.tablectl.link import LinkSettings
from drivers.tablectl.panel import PanelDriver
from drivers.tablectl.shoe import ShoeDriver
from simulator.clock import ManualClock
from simulator.devices import DeviceError, Timing
from simulator.table import Simulator

TIMING = Timing(heartbeat=0.1, hello=0.1, resend_after=0.05)
#: The host's RFID repeat window (docs/protocol.md 7), shortened like the other timers. It is
#: timed on the shoe's clock (read_ms), so a lingering read's repeats, 50 ms apart, fall
#: inside it however late a lost frame is resent.
REPEAT_WINDOW = 0.3
#: How long each action takes the dealer on the devices' clock: the line's timers (resends
#: after 50 ms, heartbeats every 100 ms, delays of up to 200 ms) run while the soak deals.
ACTION = 0.005
#: A shuffle takes longer than a lingering card's last repeat (3 x 50 ms) and the host's
#: repeat window together, so the next deck's cards are never taken for repeats of the last.
SHUFFLE = 1.0
#: The devices' time moves by this much while the soak waits on a quiet line.
STEP = 0.01


@dataclass
class Tally:
    """What was sent and what arrived."""

    cards: list[str] = field(default_factory=list)
    buttons: list[Button] = field(default_factory=list)
    faults: int = 0
    unplugs: int = 0


def settings(sim: Simulator, device: str) -> LinkSettings:
    return LinkSettings(
        url=sim.address(device),
        heartbeat_timeout=1.0,
        query_interval=0.05,
        backoff_initial=0.01,
        backoff_max=0.05,
    )


def inject(sim: Simulator, rng: random.Random, tally: Tally) -> None:
    """One random line fault (or a lingering tag) on a random device."""
    device = rng.choice(("shoe", "panel"))
    fault = rng.choice(("drop", "garble", "noise", "delay", "duplicate"))
    tally.faults += 1
    if fault == "drop":
        sim.drop(device, rng.randint(1, 3))
    elif fault == "garble":
        sim.garble(device, rng.randint(1, 3))
    elif fault == "noise":
        sim.noise(device, rng.randint(1, 200))
    elif fault == "delay":
        sim.delay(device, rng.uniform(0.01, 0.2), rng.randint(1, 4))
    else:
        sim.duplicate_reads(rng.randint(1, 3))


def unplug_and_replug(
    sim: Simulator, rng: random.Random, tally: Tally, act: Callable[[], None]
) -> None:
    """Pull a cable, act a few times while it is out, put it back."""
    device = rng.choice(("shoe", "panel"))
    sim.unplug(device)
    tally.unplugs += 1
    for _ in range(rng.randint(0, 3)):
        act(False)
    assert isinstance(sim.clock, ManualClock)
    sim.clock.advance(rng.uniform(0.0, 0.05))  # the cable stays out a while
    sim.replug(device)


def soak(sim: Simulator, actions: int, fault_rate: float, unplug_rate: float, seed: int) -> Tally:
    """Deal and press ``actions`` times on ``sim`` (on a ManualClock the soak moves), faults
    and unplugs at the rates given; everything must reach the drivers once, in order."""
    clock = sim.clock
    assert isinstance(clock, ManualClock), "the soak moves the devices' clock itself"
    rng = random.Random(seed)
    sent, received = Tally(), Tally()
    shoe_events: queue.Queue[Any] = queue.Queue()
    panel_events: queue.Queue[Any] = queue.Queue()

    def drain() -> None:
        for events in (shoe_events, panel_events):
            while not events.empty():
                event = events.get_nowait()
                if isinstance(event, TagRead):
                    received.cards.append(event.uid)
                elif isinstance(event, ButtonPressed):
                    received.buttons.append(event.button)

    def caught_up() -> None:
        """Wait until everything sent has arrived; the devices' time moves on while the line
        is quiet (resends, held sentences)."""
        deadline = time.monotonic() + WAIT
        while (len(received.cards), len(received.buttons)) != (
            len(sent.cards),
            len(sent.buttons),
        ):
            assert time.monotonic() < deadline, (
                f"stuck: {len(received.cards)}/{len(sent.cards)} cards, "
                f"{len(received.buttons)}/{len(sent.buttons)} buttons"
            )
            before = len(received.cards) + len(received.buttons)
            time.sleep(QUIET)  # a poll of the queues, not a wait for the devices
            drain()
            if len(received.cards) + len(received.buttons) == before:
                clock.advance(STEP)

    def shuffle_when_empty() -> None:
        # A shuffle takes a dealer longer than the host's RFID repeat window, so the next
        # deck's cards are never taken for lingering reads of the last deck's.
        with sim.locked():
            empty = not sim.shoe.stub
        if empty:
            caught_up()
            let_pass(clock, SHUFFLE, TIMING.heartbeat)
            sim.shuffle(rng.randrange(10**6))

    def act(cable_in: bool = True) -> None:
        if rng.random() < 0.6:
            with sim.locked():
                empty = not sim.shoe.stub
            if empty and not cable_in:
                return  # no shuffle with a cable out: the dealer waits for the shoe
            shuffle_when_empty()
            try:
                card = sim.deal()
            except DeviceError:  # the store is full: the feed jams until the host catches up
                return
            with sim.locked():
                sent.cards.append(sim.shoe.deck.uid(card))
        else:
            button = rng.choice(list(Button))
            try:
                sim.press(button)
            except DeviceError:
                return
            sent.buttons.append(button)

    with (
        ShoeDriver(settings(sim, "shoe"), shoe_events, repeat_window=REPEAT_WINDOW, clock=clock),
        PanelDriver(settings(sim, "panel"), panel_events, clock=clock),
    ):
        for _ in range(actions):
            if rng.random() < fault_rate:
                inject(sim, rng, sent)
            if rng.random() < unplug_rate:
                unplug_and_replug(sim, rng, sent, act)
            act()
            clock.advance(ACTION)
            drain()
        caught_up()
        # Nothing more comes: past every timer of the line (a held sentence, a lingering
        # read, a resend), one more card and one more press are the next to arrive.
        let_pass(clock, SHUFFLE, TIMING.heartbeat)
        with sim.locked():
            empty = not sim.shoe.stub
        if empty:
            sim.shuffle(rng.randrange(10**6))
        act_card, act_press = sim.deal(), Button.NEW_HAND
        sim.press(act_press)
        with sim.locked():
            sent.cards.append(sim.shoe.deck.uid(act_card))
        sent.buttons.append(act_press)
        caught_up()
    assert received.cards == sent.cards, "every card exactly once, in order"
    assert received.buttons == sent.buttons, "every button exactly once, in order"
    return sent


@pytest.mark.parametrize("transport", ["pty", "memory"])
def test_a_short_soak_delivers_everything_exactly_once(transport: str, tmp_path: Path) -> None:
    """200 actions, a fault in one action of ten, an unplug in one of a hundred."""
    with Simulator(
        transport=transport,  # type: ignore[arg-type]  # parametrized Literal
        directory=tmp_path,
        seed=4,
        timing=TIMING,
        clock=ManualClock(),
    ) as sim:
        tally = soak(sim, actions=200, fault_rate=0.1, unplug_rate=0.01, seed=4)
    assert tally.faults > 10
    assert tally.cards
    assert tally.buttons


@pytest.mark.slow
@pytest.mark.parametrize("transport", ["pty", "memory"])
def test_a_long_soak_delivers_everything_exactly_once(transport: str, tmp_path: Path) -> None:
    """20,000 actions per transport at the same fault and unplug rates."""
    with Simulator(
        transport=transport,  # type: ignore[arg-type]  # parametrized Literal
        directory=tmp_path,
        seed=5,
        timing=TIMING,
        clock=ManualClock(),
    ) as sim:
        started = time.monotonic()
        tally = soak(sim, actions=20_000, fault_rate=0.1, unplug_rate=0.01, seed=5)
        elapsed = time.monotonic() - started
    print(
        f"\nlink soak over {transport}: {len(tally.cards)} cards, {len(tally.buttons)} buttons, "
        f"{tally.faults} faults, {tally.unplugs} unplugs in {elapsed:.1f} s"
    )
