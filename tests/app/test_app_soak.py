"""The soak (issues 6 and 7): the random dealer plays whole hands through real ptys, the real
drivers and the controller, with line faults injected at a set rate; every card and button is
taken exactly once, no hand sticks, and the settlement equals the dealer's own record."""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path

import pytest
from apphelp import FAST_REPEAT_WINDOW, sequenced
from crashrun import MirrorDealer

from controller.app.loop import JournalOptions, wait_until
from controller.app.simtable import SimTable
from controller.engine.events import HandSettled, HandVoided
from controller.journal import verify


def inject_faults(table: SimTable, stop: threading.Event, rate: float, seed: int) -> int:
    """About ``rate`` line faults a second, on either device, until ``stop``; how many."""
    rng = random.Random(f"soak-faults-{seed}")
    count = 0
    while not stop.wait(rng.expovariate(rate)):
        device = rng.choice(["shoe", "panel"])
        match rng.randrange(3):
            case 0:
                table.sim.drop(device, 1)
            case 1:
                table.sim.garble(device, 1)
            case _:
                table.sim.noise(device, rng.randint(1, 64))
        count += 1
    return count


def soak(tmp_path: Path, game: str, hands: int, rate: float) -> tuple[int, int, float]:
    options = JournalOptions(tmp_path / "journal", fsync=False)
    started = time.monotonic()
    with SimTable(
        game,
        options,
        transport="pty",
        directory=tmp_path,
        seats=4,
        seed=5,
        repeat_window=FAST_REPEAT_WINDOW,
    ) as table:
        controller = table.controller
        results: list[HandSettled | HandVoided] = []
        controller.listeners.append(
            lambda _c, events: results.extend(
                e for e in events if isinstance(e, HandSettled | HandVoided)
            )
        )
        assert wait_until(lambda: not controller.core.paused_by, 10.0)
        dealer = MirrorDealer(table.sim, table.spec, table.config, seed=5)
        stop = threading.Event()
        faults: list[int] = []
        injector = threading.Thread(
            target=lambda: faults.append(inject_faults(table, stop, rate, 5)), name="soak-faults"
        )
        injector.start()
        try:
            dealer.play(hands)
        finally:
            stop.set()
            injector.join()
        assert wait_until(lambda: controller.inputs == dealer.inputs, 10.0)
        stacks = controller.core.table.stacks
    assert results == dealer.results
    assert stacks == dealer.table.stacks
    assert len(results) == hands
    assert verify(tmp_path / "journal").intact
    for device in ("shoe", "panel"):
        taken = sequenced(tmp_path / "journal", device)
        assert len(taken) == len(set(taken)), f"a {device} sentence was taken twice"
    return dealer.inputs, faults[0], time.monotonic() - started


@pytest.mark.parametrize("game", ["mambo", "five-card-stud"])
def test_soak_through_line_faults_takes_every_input_once(tmp_path: Path, game: str) -> None:
    """Issue 6: 5 hands under about 5 line faults a second (drops, garbles, noise); every input
    exactly once, in order; the settlement equals the dealer's record."""
    inputs, faults, _seconds = soak(tmp_path, game, hands=5, rate=5.0)
    assert faults >= 2
    assert inputs > 100


@pytest.mark.slow
@pytest.mark.timeout(7200)  # a run of thousands of hands on a shared machine
@pytest.mark.parametrize("game", ["mambo", "five-card-stud"])
def test_soak_2000_hands(tmp_path: Path, game: str) -> None:
    """Issue 6, the larger run of docs/performance.md: 2,000 hands of each game."""
    inputs, faults, seconds = soak(tmp_path, game, hands=2000, rate=3.0)
    print(f"soak {game}: 2000 hands, {inputs} inputs, {faults} faults, {seconds:.0f} s")
