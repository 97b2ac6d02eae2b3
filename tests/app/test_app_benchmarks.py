"""The controller's benchmarks still run (a few cards and hands: not a measurement)."""

from __future__ import annotations

import statistics
import sys
from multiprocessing import resource_tracker
from pathlib import Path

import pytest

from controller.journal import JournalReader
from controller.journal import tablerecords as rec
from controller.logs.logsetup import reset_logging
from simulator.clock import ManualClock
from simulator.demo import run_headless

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import latency  # noqa: E402  benchmarks/ is not a package: found through the path set above
import memory  # noqa: E402  the same
import startup  # noqa: E402  the same

# A spawned child starts multiprocessing's resource tracker, whose pipe stays open for the
# life of this process: started here, at collection, it is there before the leak check looks.
resource_tracker.ensure_running()


@pytest.fixture(autouse=True)
def _no_log_left() -> object:
    yield None
    reset_logging()


def test_the_latency_benchmark_times_cards_from_the_wire_to_the_announcement(
    tmp_path: Path,
) -> None:
    """benchmarks/latency.py: the table in its own process, the controller as tablectl run runs
    it; each card read gives one latency, positive and well under a second, over three hands
    (the dealer alternates the decks as the controller does), each with its driver's hand-off.
    Seconds, not milliseconds: their median is well under a second (a card takes a few ms; a
    median, so that one card held up on a loaded machine does not decide the test)."""
    run = latency.measure(tmp_path, "mambo", 90, fsync=False, seed=1)
    assert len(run.announced) >= 90
    assert all(seconds > 0 for seconds in run.announced)
    assert statistics.median(run.announced) < 1
    assert len(run.handed) == len(run.announced)
    assert "p99" in latency.report("fsync off", run.announced)


def test_the_latency_benchmarks_floor_times_a_bare_pty_at_the_dealers_pace(
    tmp_path: Path,
) -> None:
    """benchmarks/latency.py, the floor: the run before it sets the pace (the median time a card
    waited after the input before it), and each of the floor's sentences gives one latency,
    positive, their median well under a second."""
    latency.measure(tmp_path, "mambo", 60, fsync=False, seed=1)
    assert 0 < latency.PACE[0] < 1
    floor = latency.measure_floor(50, latency.PACE[0])
    assert len(floor) == 50
    assert all(seconds > 0 for seconds in floor)
    assert statistics.median(floor) < 1


def test_the_latency_benchmark_refuses_a_card_without_the_drivers_hand_off() -> None:
    """A card announced with no hand-off stamped between its write and its announcement is a
    broken measurement: the benchmark raises, naming the card, rather than drop it."""
    written = {(0, 1): 1.0, (0, 2): 2.0}
    announced = {(0, 1): 1.5, (0, 2): 2.5}
    run = latency.paired(written, announced, {(0, 1): 1.2, (0, 2): 2.2}, 2)
    assert run.handed == pytest.approx([0.2, 0.2])
    with pytest.raises(RuntimeError, match=r"card \(0, 2\): no hand-off"):
        latency.paired(written, announced, {(0, 1): 1.2}, 2)
    with pytest.raises(RuntimeError, match=r"card \(0, 1\): no hand-off"):
        latency.paired(written, announced, {(0, 1): 1.7, (0, 2): 2.2}, 2)


def test_the_latency_benchmark_gives_the_controller_as_a_ratio_to_the_floor() -> None:
    """benchmarks/latency.py prints the controller's p50 and p99 as multiples of the floor's,
    measured in the same run (a noisy machine moves both)."""
    floor = [0.0001 * (1 + n / 100) for n in range(100)]
    controller = [seconds * 4 for seconds in floor]
    assert latency.ratios("fsync off", controller, floor) == "fsync off: p50 x4.00, p99 x4.00"


def test_the_memory_benchmark_deals_hands_through_the_controllers_queue(tmp_path: Path) -> None:
    """benchmarks/memory.py: the dealer's events go through the controller's queue; the RSS is
    read at each checkpoint, every hand is settled by the controller, and the hands are dealt
    from the two decks in turn, as a table's default alternation has it."""
    controller = memory.build(tmp_path / "journal", "mambo")
    checkpoints = {1: 0, 3: 0}
    reported: list[int] = []
    try:
        memory.play(controller, 3, checkpoints, lambda hands, kib: reported.append(hands))
    finally:
        controller.journal.close()
    assert reported == [1, 3]
    assert all(kib > 0 for kib in checkpoints.values())
    assert controller.core.finished == 3
    assert controller.events.empty()
    decks = [r.data["deck"] for r in JournalReader(tmp_path / "journal") if r.kind == rec.DECK]
    assert len(decks) == 3
    assert decks[0] == decks[2] != decks[1]


def test_the_startup_benchmark_times_a_start_verify_and_the_whole_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """benchmarks/startup.py: on a demo journal, a start from the journal's end and the whole
    replay rebuild the same table, and verify finds the journal intact."""
    run_headless("mambo", 2, tmp_path, seed=1, clock=ManualClock())
    assert startup.main([str(tmp_path / "journal"), "--repeat", "1", "--whole"]) == 0
    out = capsys.readouterr().out
    assert "start (journal's end, from the last checkpoint)" in out
    assert "intact" in out
    assert "whole replay" in out
