"""Helpers for the journal tests: a deterministic clock and small journals written for real."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from controller.journal import JournalWriter, Record

START = datetime(2026, 11, 29, 14, 0, 0, tzinfo=UTC)


class StepClock:
    """A clock that moves 1.5 ms per reading, from 2026-11-29 14:00 UTC."""

    def __init__(self, start: datetime = START, step: timedelta = timedelta(microseconds=1500)):
        self.now = start
        self.step = step

    def __call__(self) -> datetime:
        self.now += self.step
        return self.now


def table_record(n: int) -> tuple[str, dict[str, object]]:
    """The n-th record (from 0) of a made-up table: a hand start every third record."""
    if n % 3 == 0:
        return "hand_started", {"hand": n // 3 + 1, "button": 3}
    return "card_read", {"card": ["As", "Kd", "7c", "Th"][n % 4], "point": "slot", "seat": n % 7}


def write_journal(
    directory: Path,
    count: int,
    *,
    first: int = 0,
    fsync: bool = False,
    hands_per_file: int = 500,
    max_bytes: int = 1 << 24,
) -> list[Record]:
    """Write table records ``first`` .. ``first + count - 1``; return the records written.

    fsync is off unless asked for: these tests are about content, and the
    fsync tests observe the calls themselves.
    """
    with JournalWriter.open(
        directory,
        clock=StepClock(START + timedelta(seconds=first)),
        fsync=fsync,
        hands_per_file=hands_per_file,
        max_bytes=max_bytes,
    ) as writer:
        return [writer.append(*table_record(n)) for n in range(first, first + count)]


def journal_lines(directory: Path) -> list[tuple[Path, int, bytes]]:
    """Every line of every journal file as (file, line number from 1, bytes with newline)."""
    lines = []
    for path in sorted(directory.glob("journal-*.jsonl")):
        for number, raw in enumerate(path.read_bytes().splitlines(keepends=True), start=1):
            lines.append((path, number, raw))
    return lines
