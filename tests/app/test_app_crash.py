"""The crash test: kill -9 the controller at random moments during simulated hands over
real ptys; after each restart the table resumes; the results equal an uninterrupted run of the
same seed; the journal verifies."""

from __future__ import annotations

from pathlib import Path

import pytest
from crashrun import crash_run
from crashrun_pn532 import crash_run_pn532


def test_kill_9_at_random_moments_loses_and_doubles_nothing(tmp_path: Path) -> None:
    """docs/journal.md, Durability and Opening: killed about every 100 acts of the dealer, the
    controller replays its journal each time (20 hands); results equal the uninterrupted run's."""
    result = crash_run(tmp_path, "mambo", hands=20, seed=7, mean_acts=100)
    print(f"crash test: {result}")
    assert result.kills >= 3


def test_kill_9_in_a_button_game(tmp_path: Path) -> None:
    """docs/journal.md, Durability and Opening, in triple draw (14.12A(c)): the button, the
    blinds and the draws survive kills as the stud games' cards and bets do."""
    result = crash_run(tmp_path, "triple-draw", hands=8, seed=3, mean_acts=100)
    print(f"crash test: {result}")
    assert result.kills >= 3


@pytest.mark.slow
@pytest.mark.reliability
@pytest.mark.timeout(1200)  # minutes on a loaded machine: more than the suite's 300 s
@pytest.mark.parametrize("game", ["mambo", "five-card-stud", "triple-draw"])
def test_kill_9_at_least_30_times(tmp_path: Path, game: str) -> None:
    """The reliability tier's crash run (docs/testing.md): a kill about every 15 acts of the
    dealer, so at least 30 restarts from the journal, each game's own forced bets, streets and
    draws among them (a hand of triple draw takes about three times the acts of a stud hand).
    A journal file holds 3 hands, so kills land in rotations and cut the keeper's compression
    of the finished files short (docs/journal.md), as the 1,000-hand runs' do."""
    hands = {"mambo": 30, "five-card-stud": 25, "triple-draw": 10}[game]
    result = crash_run(tmp_path, game, hands=hands, seed=13, mean_acts=15, hands_per_file=3)
    print(f"crash test {game}: {result}")
    assert result.kills >= 30
    assert len(list((tmp_path / "journal").glob("journal-*.jsonl*"))) >= hands // 3


@pytest.mark.slow
@pytest.mark.timeout(7200)  # a run of thousands of hands on a shared machine
@pytest.mark.parametrize("game", ["mambo", "five-card-stud", "triple-draw"])
def test_kill_9_through_1000_hands(tmp_path: Path, game: str) -> None:
    """The larger run of docs/performance.md: 1,000 hands, a kill about every 300 acts of the
    dealer (at least one every 20 hands)."""
    result = crash_run(tmp_path, game, hands=1000, seed=11, mean_acts=300)
    print(f"crash test {game}: {result}")
    assert result.kills >= 1000 // 20


@pytest.mark.slow
@pytest.mark.reliability
@pytest.mark.timeout(1200)  # minutes on a loaded machine: more than the suite's 300 s
@pytest.mark.parametrize("game", ["mambo", "five-card-stud", "triple-draw"])
def test_kill_9_with_pn532_readers_at_the_slot_and_the_discard(tmp_path: Path, game: str) -> None:
    """docs/journal.md, Durability; docs/testing.md, The crash test through PN532 readers: the
    shoe is a simulated PN532 at the slot and one at the discard reader, whose reads are not
    acknowledged; killed about every 20 acts of the dealer, the controller resumes from its
    journal, each card journaled once, and the results equal the dealer's engine's."""
    hands = {"mambo": 3, "five-card-stud": 3, "triple-draw": 2}[game]
    result, repitched = crash_run_pn532(tmp_path, game, hands=hands, seed=17, mean_acts=20)
    print(f"crash test {game} through PN532s: {result}; {repitched} cards pitched again")
    assert result.kills >= 2
