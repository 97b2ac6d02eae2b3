"""The soak (issues 6 and 7): the simulator's random bot plays whole hands through real ptys,
the real drivers and the controller, with line faults injected at a set rate; every card and
button is taken exactly once, no hand sticks, and the controller settles every hand as the
bot's own record says."""

from __future__ import annotations

import itertools
import random
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from apphelp import FAST_REPEAT_WINDOW, dealer, journal_records, sequenced

from controller.app import records as rec
from controller.app.loop import JournalOptions, wait_until
from controller.app.simtable import SimTable
from controller.engine.events import HandSettled, HandVoided
from controller.journal import verify
from drivers.sentences import SEQ_MODULUS


@dataclass(frozen=True)
class Soaked:
    """What a soak run did."""

    hands: int
    inputs: int
    faults: int
    seconds: float


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


def soak(tmp_path: Path, game: str, hands: int, rate: float, seed: int = 5) -> Soaked:
    """The random bot deals ``hands`` hands of ``game`` to a controller over the simulator's
    ptys, under about ``rate`` line faults a second; asserts the issue's four properties."""
    options = JournalOptions(tmp_path / "journal", fsync=False)
    started = time.monotonic()
    with SimTable(
        game,
        options,
        transport="pty",
        directory=tmp_path,
        seats=4,
        seed=seed,
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
        # Faults delay a sentence until it is resent (docs/protocol.md 5): a generous wait.
        bot = dealer(table, hands=hands, seed=seed, timeout=30.0)
        stop = threading.Event()
        faults: list[int] = []
        injector = threading.Thread(
            target=lambda: faults.append(inject_faults(table, stop, rate, seed)),
            name="soak-faults",
        )
        injector.start()
        try:
            bot.run()  # lockstep: returns once the controller took the last input
        finally:
            stop.set()
            injector.join()
        records = bot.bot.records
        wanted = [inp for record in records for inp in record.inputs]
        assert controller.inputs == len(wanted)
    # Every card and button arrived exactly once, in the order the bot made them.
    journal = journal_records(tmp_path / "journal")
    taken = [rec.input_of(kind, data) for kind, data in journal if kind in rec.ENGINE_INPUTS]
    assert taken == wanted
    for device in ("shoe", "panel"):
        # Each sentence once, none skipped: one boot, seq up by one, wrapping at SEQ_MODULUS.
        sentences = sequenced(tmp_path / "journal", device)
        assert len({boot for boot, _seq in sentences}) == 1
        for (_boot, seq), (_same, after) in itertools.pairwise(sentences):
            assert after == (seq + 1) % SEQ_MODULUS, f"{device}: seq {seq} then {after}"
    # No hand stuck: each of the bot's hands ended at the controller, as the bot recorded it.
    assert len(records) == len(results) == hands
    for record, settled in zip(records, results, strict=True):
        assert record.differences(settled) == [], f"hand {record.hand}"
    assert verify(tmp_path / "journal").intact
    return Soaked(hands, len(wanted), faults[0], time.monotonic() - started)


@pytest.mark.parametrize("game", ["mambo", "five-card-stud", "triple-draw"])
def test_soak_through_line_faults_takes_every_input_once(tmp_path: Path, game: str) -> None:
    """Issue 6: the random bot's 4 hands under about 5 line faults a second (drops, garbles,
    noise) on real ptys: every input exactly once, in order; every hand settles at the
    controller as the bot's HandRecord says."""
    run = soak(tmp_path, game, hands=4, rate=5.0)
    assert run.faults >= 1
    assert run.inputs > 60


@pytest.mark.slow
@pytest.mark.timeout(7200)  # a run of thousands of hands on a shared machine
@pytest.mark.parametrize("game", ["mambo", "five-card-stud", "triple-draw"])
def test_soak_2000_hands(tmp_path: Path, game: str) -> None:
    """Issue 6, the larger run of docs/performance.md: the random bot's 2,000 hands of each
    game under about 3 line faults a second; the same four properties."""
    run = soak(tmp_path, game, hands=2000, rate=3.0)
    print(
        f"soak {game}: {run.hands} hands, {run.inputs} inputs, {run.faults} faults, "
        f"{run.seconds:.0f} s"
    )
