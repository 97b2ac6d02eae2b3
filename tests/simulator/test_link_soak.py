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

from controller.inputs import Button
from drivers.panel import PanelDriver, PanelPress
from drivers.shoe import ShoeDriver, TagRead
from drivers.transport import LinkSettings
from simulator.devices import DeviceError, Timing
from simulator.table import Simulator

TIMING = Timing(heartbeat=0.1, hello=0.1, resend_after=0.05)
#: The host's RFID repeat window (docs/protocol.md 7), shortened like the other timers but
#: kept several resend periods long: a lingering read whose frame is lost and resent must
#: still fall inside it (it is timed by arrival at the host, after any resends).
REPEAT_WINDOW = 0.3


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
    time.sleep(rng.uniform(0.0, 0.05))
    sim.replug(device)


def soak(sim: Simulator, actions: int, fault_rate: float, unplug_rate: float, seed: int) -> Tally:
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
                elif isinstance(event, PanelPress):
                    received.buttons.append(event.button)

    def caught_up() -> None:
        deadline = time.monotonic() + 30
        while (len(received.cards), len(received.buttons)) != (
            len(sent.cards),
            len(sent.buttons),
        ):
            assert time.monotonic() < deadline, (
                f"stuck: {len(received.cards)}/{len(sent.cards)} cards, "
                f"{len(received.buttons)}/{len(sent.buttons)} buttons"
            )
            time.sleep(0.005)
            drain()

    def shuffle_when_empty() -> None:
        # A shuffle takes a dealer longer than the host's RFID repeat window, so the next
        # deck's cards are never taken for lingering reads of the last deck's.
        with sim.locked():
            empty = not sim.shoe.stub
        if empty:
            caught_up()
            time.sleep(REPEAT_WINDOW * 1.5)
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
        ShoeDriver(settings(sim, "shoe"), shoe_events, repeat_window=REPEAT_WINDOW),
        PanelDriver(settings(sim, "panel"), panel_events),
    ):
        for n in range(actions):
            if rng.random() < fault_rate:
                inject(sim, rng, sent)
            if rng.random() < unplug_rate:
                unplug_and_replug(sim, rng, sent, act)
            act()
            if n % 50 == 49:  # a dealer's pace, roughly: let the line catch up now and then
                time.sleep(0.01)
            drain()
        caught_up()
        time.sleep(0.2)
        drain()
    assert received.cards == sent.cards, "every card exactly once, in order"
    assert received.buttons == sent.buttons, "every button exactly once, in order"
    return sent


@pytest.mark.parametrize("transport", ["pty", "memory"])
def test_a_short_soak_delivers_everything_exactly_once(transport: str, tmp_path: Path) -> None:
    """200 actions, a fault in one action of ten, an unplug in one of a hundred."""
    with Simulator(transport=transport, directory=tmp_path, seed=4, timing=TIMING) as sim:  # type: ignore[arg-type]  # parametrized Literal
        tally = soak(sim, actions=200, fault_rate=0.1, unplug_rate=0.01, seed=4)
    assert tally.faults > 10
    assert tally.cards
    assert tally.buttons


@pytest.mark.slow
@pytest.mark.parametrize("transport", ["pty", "memory"])
def test_a_long_soak_delivers_everything_exactly_once(transport: str, tmp_path: Path) -> None:
    """20,000 actions per transport at the same fault and unplug rates."""
    with Simulator(transport=transport, directory=tmp_path, seed=5, timing=TIMING) as sim:  # type: ignore[arg-type]  # parametrized Literal
        started = time.monotonic()
        tally = soak(sim, actions=20_000, fault_rate=0.1, unplug_rate=0.01, seed=5)
        elapsed = time.monotonic() - started
    print(
        f"\nlink soak over {transport}: {len(tally.cards)} cards, {len(tally.buttons)} buttons, "
        f"{tally.faults} faults, {tally.unplugs} unplugs in {elapsed:.1f} s"
    )
