"""benchmarks/pn532_hands.py: whole hands through simulated PN532 readers still run (one hand,
not a measurement: the figures are in docs/performance.md), and its count of the cards
pitched against the journal's reads finds a card missed and a card read twice."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import pn532_hands  # noqa: E402  benchmarks/ is not a package: found through the path set above


def test_a_hand_through_pn532_readers_counts_its_cards_and_times_them_to_the_engine(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Whether every card was read once is the measure's, not this test's: a loaded machine
    can keep a reader off the CPU for a whole pitch (docs/performance.md). The run accounts
    for every card it pitched, and times each one read to the engine."""
    status = pn532_hands.main(["--hands", "1", "--games", "mambo", "--pause", "0"])
    out = capsys.readouterr().out
    assert "1 hand (mambo 1) on 1 table in " in out, out
    assert "journals intact" in out
    counted = re.search(r"cards pitched (\d+), read once (\d+), missed (\d+), doubled (\d+)", out)
    assert counted is not None, out
    pitched, once, missed, doubled = map(int, counted.groups())
    assert pitched >= 12  # two cards or more to each of six seats
    assert once + missed <= pitched
    assert status == (0 if missed == doubled == 0 else 1)
    timed = re.search(r"field to engine: (\d+) cards", out)
    assert timed is not None, out
    assert int(timed.group(1)) >= once  # each card read, to the engine (a double's twice)
    assert "on the wire at 115200 baud: 3.385 ms; p50 " in out


def test_the_count_finds_a_pitch_unread_a_pitch_read_twice_and_a_read_never_pitched() -> None:
    """Reads go to the last pitch of their tag at their reader before their stamp (ms)."""
    pitches = [
        ("slot", "04AA", 10.0),
        ("slot", "04BB", 10.4),
        ("discard", "04AA", 11.0),  # the same tag, at the other reader
        ("slot", "04AA", 20.0),  # the next hand: the same card again
    ]
    every_one_once = [("slot", "04AA", 10_015), ("slot", "04BB", 10_412)]
    every_one_once += [("discard", "04AA", 11_020), ("slot", "04AA", 20_009)]
    assert pn532_hands.tally(pitches, every_one_once) == {
        "pitched": 4,
        "read once": 4,
        "missed": 0,
        "doubled": 0,
    }
    reads = [("slot", "04AA", 10_015), ("slot", "04AA", 10_150)]  # a linger read twice
    reads += [("discard", "04AA", 11_020), ("slot", "04CC", 12_000)]  # never pitched
    assert pn532_hands.tally(pitches, reads) == {
        "pitched": 4,
        "read once": 1,
        "missed": 2,  # 04BB, and 04AA's second deal
        "doubled": 2,
    }


def test_a_cards_time_to_the_engine_runs_from_the_pitch_it_was_read_in() -> None:
    pitches = [("slot", "04AA", 10.0), ("slot", "04AA", 10.5), ("discard", "04AA", 10.7)]
    taken = [("slot", "04AA", 10.52), ("discard", "04AA", 10.71)]
    assert pn532_hands.latencies(pitches, taken) == pytest.approx([0.02, 0.01])
    with pytest.raises(RuntimeError, match="04BB at the slot reader reached the engine"):
        pn532_hands.latencies(pitches, [("slot", "04BB", 11.0)])


def test_a_pitch_of_no_time_is_refused_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        pn532_hands.main(["--hands", "1", "--pitch", "0"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "--pitch and --patience: expected more than 0 s; --pause: 0 s or more" in err
