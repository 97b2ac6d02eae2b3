"""The soak: the simulator's random bot plays whole hands through real ptys,
the real drivers and the controller, with line faults injected at a set rate; every card and
button is taken exactly once, no hand sticks, and the controller settles every hand as the
bot's own record says.

The devices and the drivers run on a ManualClock: the faults fall between the bot's acts,
chosen by a seeded random draw (not by the wall clock, whose pace follows the machine's load),
and the devices' time passes while the dealer waits for a lost sentence to be resent
(LockstepDealer's ``tick``)."""

from __future__ import annotations

import itertools
import random
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from apphelp import PATIENCE, dealer, journal_records, sequenced

from controller.config.settings import JournalSettings
from controller.journal import schema, verify
from controller.journal import tablerecords as rec
from controller.poker.engine.events import HandSettled, HandVoided
from controller.table.loop import wait_until
from drivers.seam.events import SEQ_MODULUS
from simulator.clock import ManualClock
from simulator.devices import RESEND_AFTER
from simulator.simtable import SimTable

#: The devices' seconds that pass at each slice of a wait for the controller: half a resend
#: period, so a lost sentence comes again after two slices; far below the heartbeat period.
TICK = RESEND_AFTER / 2


@dataclass(frozen=True)
class Soaked:
    """What a soak run did."""

    hands: int
    inputs: int
    faults: int
    #: Sentences the faults dropped or garbled: each came again only by a resend.
    lost: int
    seconds: float


def inject_fault(table: SimTable, rng: random.Random) -> None:
    """One line fault on either device: its next sentence dropped or garbled, or noise."""
    device = rng.choice(["shoe", "panel"])
    match rng.randrange(3):
        case 0:
            table.sim.drop(device, 1)
        case 1:
            table.sim.garble(device, 1)
        case _:
            table.sim.noise(device, rng.randint(1, 64))


def soak(tmp_path: Path, game: str, hands: int, rate: float, seed: int = 5) -> Soaked:
    """The random bot deals ``hands`` hands of ``game`` to a controller over the simulator's
    ptys, a line fault after about one act in ``1 / rate`` (a seeded draw after each act);
    asserts the four properties of docs/performance.md, Soak."""
    options = JournalSettings(tmp_path / "journal", fsync=False)
    started = time.monotonic()
    with SimTable(
        game,
        options,
        transport="pty",
        directory=tmp_path,
        seats=4,
        seed=seed,
        clock=ManualClock(),
    ) as table:
        controller = table.controller
        results: list[HandSettled | HandVoided] = []
        controller.listeners.append(
            lambda _c, events: results.extend(
                e for e in events if isinstance(e, HandSettled | HandVoided)
            )
        )
        assert wait_until(lambda: not controller.core.paused_by, PATIENCE)
        # A lost sentence comes again once the device's resend timer has run on the devices'
        # clock (docs/protocol.md 5): the dealer lets that time pass while it waits.
        bot = dealer(table, hands=hands, seed=seed, tick=TICK)
        rng = random.Random(f"soak-faults-{seed}")
        faults = 0
        for _act in bot.acts():  # lockstep: each act once the controller took it
            if rng.random() < rate:
                inject_fault(table, rng)
                faults += 1
        records = bot.bot.records
        wanted = [inp for record in records for inp in record.inputs]
        assert controller.inputs == len(wanted)
        with table.sim.locked():
            counts = [device.line.counters for device in table.sim.devices.values()]
            lost = sum(c.dropped + c.garbled for c in counts)
    # Every card and button arrived exactly once, in the order the bot made them.
    journal = journal_records(tmp_path / "journal")
    taken = [
        rec.input_of(schema.decode_data(kind, data, kind))
        for kind, data in journal
        if kind in rec.ENGINE_INPUTS
    ]
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
    return Soaked(hands, len(wanted), faults, lost, time.monotonic() - started)


@pytest.mark.parametrize("game", ["mambo", "five-card-stud", "triple-draw"])
def test_soak_through_line_faults_takes_every_input_once(tmp_path: Path, game: str) -> None:
    """The random bot's 4 hands with a line fault (a drop, a garble or noise) after
    one act in 8 or so, on real ptys: every input exactly once, in order; every hand settles
    at the controller as the bot's HandRecord says."""
    run = soak(tmp_path, game, hands=4, rate=1 / 8)
    assert run.faults >= 4
    assert run.lost >= 1
    assert run.inputs > 60


@pytest.mark.slow
@pytest.mark.reliability
@pytest.mark.timeout(1200)  # minutes on a loaded machine: more than the suite's 300 s
@pytest.mark.parametrize("game", ["mambo", "five-card-stud", "triple-draw"])
def test_soak_60_hands_through_line_faults(tmp_path: Path, game: str) -> None:
    """The reliability tier's soak (docs/testing.md): 60 hands of each game, a line fault after
    one act in 20 or so; the same four properties as the short and the long soaks."""
    run = soak(tmp_path, game, hands=60, rate=1 / 20)
    print(
        f"soak {game}: {run.hands} hands, {run.inputs} inputs, {run.faults} faults "
        f"({run.lost} lost), {run.seconds:.0f} s"
    )
    assert run.faults >= 20
    assert run.lost >= 1


@pytest.mark.slow
@pytest.mark.timeout(7200)  # a run of thousands of hands on a shared machine
@pytest.mark.parametrize("game", ["mambo", "five-card-stud", "triple-draw"])
def test_soak_2000_hands(tmp_path: Path, game: str) -> None:
    """The larger run of docs/performance.md, Soak: the random bot's 2,000 hands of each
    game, a line fault after one act in 20 or so; the same four properties."""
    run = soak(tmp_path, game, hands=2000, rate=1 / 20)
    print(
        f"soak {game}: {run.hands} hands, {run.inputs} inputs, {run.faults} faults "
        f"({run.lost} sentences lost and resent), {run.seconds:.0f} s"
    )
