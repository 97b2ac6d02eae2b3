"""Retention of rotated journal files (docs/journal.md, Retention; 13:69E-1.31(b): game history
kept at least one year): ``[journal] keep_days``, dispute holds, the floor's acknowledgement,
and a journal that still verifies from its first remaining record."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from confighelp import problem_at, section, valid

from controller.forwarder.follow import Follower, journal_id
from controller.journal import (
    JournalError,
    JournalReader,
    JournalWriter,
    JsonObject,
    read_tail,
    retention,
    schema,
    verify,
)
from controller.journal.compress import compress_rotated
from controller.journal.files import RETENTION_FILE, compressed_name, file_name
from controller.journal.retention import Forwarded
from controller.journal.verify import Anchor, AnchorCheck
from controller.poker.engine.events import HandStarted

#: Hand n is dealt on day n after this (one hand a file: hands_per_file=1).
DAY0 = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)
HANDS = 5
KEEP = 366


class DayClock:
    """Records of hand n dated on day n (a microsecond apart)."""

    def __init__(self) -> None:
        self.now = DAY0

    def __call__(self) -> datetime:
        self.now += timedelta(microseconds=1)
        return self.now


def _hand_started(hand: int) -> tuple[str, JsonObject]:
    started = HandStarted(hand=hand, game="mambo", seats=(1, 2), dealer=1, antes=())
    return schema.record(schema.HandStartedData(input=1, events=(started,)))


def _journal(directory: Path) -> list[bytes]:
    """Hands 1..HANDS, hand n on day n, each in its own file (file n), three records each."""
    clock = DayClock()
    lines = []
    with JournalWriter.open(directory, clock=clock, fsync=False, hands_per_file=1) as writer:
        for hand in range(1, HANDS + 1):
            clock.now = DAY0 + timedelta(days=hand)
            lines.append(writer.append(*_hand_started(hand)).line())
            for n in range(2):
                lines.append(writer.append("card_read", {"card": "As", "n": n}).line())
    return lines


def _now(days_after_hand: int, hand: int) -> datetime:
    """The moment hand ``hand``'s records are ``days_after_hand`` days old (and a bit)."""
    return DAY0 + timedelta(days=hand + days_after_hand, hours=1)


def _files(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.glob("journal-0*"))


@pytest.mark.fast
def test_files_older_than_keep_days_go_and_the_rest_verifies(tmp_path: Path) -> None:
    directory = tmp_path / "journal"
    lines = _journal(directory)
    compress_rotated(directory, fsync=False)  # retention reads compressed files too
    deleted = retention.apply(
        directory, keep_days=KEEP, now=_now(KEEP, 2), floor=False, fsync=False
    )
    assert [p.name for p in deleted] == [compressed_name(1), compressed_name(2)]
    assert [r.line() for r in JournalReader(directory)] == lines[6:]
    report = verify(directory)
    assert report.intact, report.summary()
    assert report.begins is not None
    assert report.begins.seq == 7
    assert "begins at seq 7" in "\n".join(report.summary())
    tail = read_tail(directory, "no_such_kind")  # back to the first remaining record
    assert [r.line() for r in tail.records] == lines[6:]
    assert verify(directory, anchor=Anchor(3, "0" * 64)).anchor is AnchorCheck.DELETED


@pytest.mark.fast
def test_the_file_in_use_is_never_deleted(tmp_path: Path) -> None:
    directory = tmp_path / "journal"
    _journal(directory)
    retention.apply(directory, keep_days=KEEP, now=_now(KEEP * 3, HANDS), floor=False, fsync=False)
    assert _files(directory) == [file_name(HANDS)]
    assert verify(directory).intact
    with JournalWriter.open(directory, fsync=False, resume_kind="checkpoint") as writer:
        writer.append("card_read", {"card": "Kd"})
    assert verify(directory).intact


@pytest.mark.fast
def test_nothing_younger_than_keep_days_goes(tmp_path: Path) -> None:
    directory = tmp_path / "journal"
    _journal(directory)
    now = DAY0 + timedelta(days=1 + KEEP) - timedelta(hours=1)  # hand 1 not yet KEEP days old
    assert retention.apply(directory, keep_days=KEEP, now=now, floor=False, fsync=False) == []
    assert len(_files(directory)) == HANDS


@pytest.mark.fast
def test_a_held_hand_keeps_its_file_and_the_one_before_until_released(tmp_path: Path) -> None:
    directory = tmp_path / "journal"
    _journal(directory)
    retention.hold(directory, 3, "dispute D-17", DAY0)
    now = _now(KEEP, HANDS)
    deleted = retention.apply(directory, keep_days=KEEP, now=now, floor=False, fsync=False)
    assert [p.name for p in deleted] == [file_name(1)]  # file 2 leads into hand 3
    assert retention.release(directory, 3).reason == "dispute D-17"
    deleted = retention.apply(directory, keep_days=KEEP, now=now, floor=False, fsync=False)
    assert [p.name for p in deleted] == [file_name(n) for n in (2, 3, 4)]
    assert verify(directory).intact
    with pytest.raises(retention.RetentionError, match="hand 3 is not held"):
        retention.release(directory, 3)


@pytest.mark.fast
def test_with_a_floor_only_what_it_acknowledged_goes(tmp_path: Path) -> None:
    directory = tmp_path / "journal"
    _journal(directory)
    ours = journal_id(directory)
    assert ours is not None
    now = _now(KEEP, HANDS)

    def apply() -> list[str]:
        deleted = retention.apply(directory, keep_days=KEEP, now=now, floor=True, fsync=False)
        return [p.name for p in deleted]

    assert apply() == []  # the forwarder has noted nothing
    Forwarded("f" * 64, 12).write(directory)  # another journal's acknowledgement
    assert apply() == []
    Forwarded(ours, 5).write(directory)  # file 1 ends at seq 3, file 2 at 6
    assert apply() == [file_name(1)]
    Forwarded(ours, 12).write(directory)
    assert apply() == [file_name(2), file_name(3), file_name(4)]
    assert journal_id(directory) == ours  # from the retention anchor once file 1 is gone


@pytest.mark.fast
def test_a_first_file_deleted_otherwise_is_still_a_gap(tmp_path: Path) -> None:
    directory = tmp_path / "journal"
    _journal(directory)
    retention.apply(directory, keep_days=KEEP, now=_now(KEEP, 1), floor=False, fsync=False)
    (directory / file_name(2)).unlink()  # not by retention: no anchor names file 3
    report = verify(directory)
    assert report.problem is not None
    assert "journal-000001.jsonl is missing before it" in str(report.problem)
    with pytest.raises(JournalError, match="missing before it"):
        read_tail(directory, "checkpoint")


@pytest.mark.fast
def test_a_changed_first_remaining_record_does_not_verify(tmp_path: Path) -> None:
    directory = tmp_path / "journal"
    _journal(directory)
    retention.apply(directory, keep_days=KEEP, now=_now(KEEP, 1), floor=False, fsync=False)
    anchors = directory / RETENTION_FILE
    text = anchors.read_text()
    first_hash = next(iter(JournalReader(directory))).hash
    anchors.write_text(text.replace(first_hash, "0" * 64))
    report = verify(directory)
    assert report.problem is not None
    assert "retention noted" in str(report.problem)


@pytest.mark.fast
def test_a_crash_between_the_anchor_and_the_deletion_leaves_a_journal_that_verifies(
    tmp_path: Path,
) -> None:
    """Retention notes file k+1's anchor, then deletes file k: a crash between the two leaves
    file k first, begun by the anchor noted before it was (or the genesis for file 1)."""
    directory = tmp_path / "journal"
    lines = _journal(directory)
    retention.apply(directory, keep_days=KEEP, now=_now(KEEP, 1), floor=False, fsync=False)
    kept = (directory / file_name(2)).read_bytes()
    retention.apply(directory, keep_days=KEEP, now=_now(KEEP, 2), floor=False, fsync=False)
    (directory / file_name(2)).write_bytes(kept)  # as if the unlink had not happened
    assert [r.line() for r in JournalReader(directory)] == lines[3:]
    assert verify(directory).intact


@pytest.mark.fast
def test_the_follower_starts_after_the_deleted_files(tmp_path: Path) -> None:
    directory = tmp_path / "journal"
    lines = _journal(directory)
    records = list(JournalReader(directory))
    retention.apply(directory, keep_days=KEEP, now=_now(KEEP, 2), floor=False, fsync=False)
    follower = Follower(directory, after=records[8])
    try:
        assert [line.raw + b"\n" for line in follower.available()] == lines[9:]
    finally:
        follower.close()
    behind = Follower(directory, after=records[1])  # seq 3 is gone: the floor never had it
    try:
        with pytest.raises(JournalError, match="retention deleted"):
            behind.available()
    finally:
        behind.close()


@pytest.mark.fast
def test_keep_days_under_a_year_is_refused_citing_the_rule() -> None:
    data = valid()
    section(data, "journal")["keep_days"] = 364
    text = str(problem_at(data, "journal.keep_days"))
    assert "13:69E-1.31(b)" in text
    assert "at least 365" in text


def test_hold_release_and_holds_from_the_command_line(tmp_path: Path) -> None:
    directory = tmp_path / "journal"
    _journal(directory)

    def tablectl(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "controller", "journal", *args]
        return subprocess.run(
            [*command, "--journal", str(directory)], capture_output=True, text=True, check=False
        )

    held = tablectl("hold", "--hand", "3", "--reason", "dispute D-17")
    assert held.returncode == 0, held.stderr
    assert "hand 3 held since" in held.stdout
    assert "hand 3 held" in tablectl("holds").stdout
    assert [h.hand for h in retention.holds(directory)] == [3]
    assert tablectl("hold", "--hand", "0", "--reason", "x").returncode == 2
    released = tablectl("release", "--hand", "3")
    assert released.returncode == 0
    assert "hand 3 released" in released.stdout
    again = tablectl("release", "--hand", "3")
    assert again.returncode == 2
    assert "hand 3 is not held" in again.stderr
