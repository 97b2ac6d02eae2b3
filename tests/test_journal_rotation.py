"""Rotation by hand count and by size: one chain across files, and a missing file is caught."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from journal_support import StepClock, journal_lines, table_record, write_journal

from controller.journal import Anchor, JournalError, JournalReader, JournalWriter, verify

pytestmark = pytest.mark.fast


def _kinds_by_file(directory: Path) -> dict[str, list[str]]:
    kinds: dict[str, list[str]] = {}
    for path, _, raw in journal_lines(directory):
        kinds.setdefault(path.name, []).append(json.loads(raw)["kind"])
    return kinds


def _assert_one_chain_across_files(directory: Path) -> None:
    records = [json.loads(raw) for _, _, raw in journal_lines(directory)]
    assert [record["seq"] for record in records] == list(range(1, len(records) + 1))
    assert all(b["prev"] == a["hash"] for a, b in itertools.pairwise(records))
    assert verify(directory).intact


def test_rotation_by_hand_count_starts_each_file_with_a_hand(tmp_path: Path) -> None:
    """With 2 hands per file, a new file begins at every third hand_started record."""
    write_journal(tmp_path, 15, hands_per_file=2)  # 5 hands of 3 records
    kinds = _kinds_by_file(tmp_path)
    assert list(kinds) == ["journal-000001.jsonl", "journal-000002.jsonl", "journal-000003.jsonl"]
    assert [len(file_kinds) for file_kinds in kinds.values()] == [6, 6, 3]
    assert all(file_kinds[0] == "hand_started" for file_kinds in kinds.values())
    _assert_one_chain_across_files(tmp_path)


def test_first_record_of_a_new_file_carries_the_hash_of_the_last_of_the_previous(
    tmp_path: Path,
) -> None:
    """The chain goes on across the file boundary: prev links file 2's first record to file 1."""
    records = write_journal(tmp_path, 4, hands_per_file=1)  # hands start at records 0 and 3
    lines = journal_lines(tmp_path)
    assert [(path.name, number) for path, number, _ in lines][2:4] == [
        ("journal-000001.jsonl", 3),
        ("journal-000002.jsonl", 1),
    ]
    assert records[3].prev == records[2].hash


def test_rotation_by_size_keeps_each_file_near_the_limit(tmp_path: Path) -> None:
    """A file that reached max_bytes takes no more records; it overshoots by under one record."""
    max_bytes = 800
    write_journal(tmp_path, 30, max_bytes=max_bytes)
    files = sorted(tmp_path.glob("journal-*.jsonl"))
    assert len(files) > 3
    for path in files[:-1]:
        lines = path.read_bytes().splitlines(keepends=True)
        assert path.stat().st_size >= max_bytes
        assert path.stat().st_size - len(lines[-1]) < max_bytes
    _assert_one_chain_across_files(tmp_path)


def test_reopening_counts_the_hands_already_in_the_current_file(tmp_path: Path) -> None:
    """Hands written before a restart count towards the current file's rotation."""
    write_journal(tmp_path, 3, hands_per_file=2)  # hand 1
    write_journal(tmp_path, 3, first=3, hands_per_file=2)  # hand 2: still file 1
    assert len(list(tmp_path.glob("journal-*.jsonl"))) == 1
    write_journal(tmp_path, 3, first=6, hands_per_file=2)  # hand 3: file 2
    assert [len(kinds) for kinds in _kinds_by_file(tmp_path).values()] == [6, 3]
    _assert_one_chain_across_files(tmp_path)


def test_rotate_by_hand_continues_the_chain_in_the_new_file(tmp_path: Path) -> None:
    """An explicit rotate() starts the next file; an empty new file is used, not skipped."""
    with JournalWriter.open(tmp_path, clock=StepClock(), fsync=False, max_bytes=1) as writer:
        writer.append(*table_record(0))
        assert writer.rotate() == tmp_path / "journal-000002.jsonl"
    with JournalWriter.open(tmp_path, clock=StepClock(), fsync=False, max_bytes=1) as writer:
        assert writer.current_file == tmp_path / "journal-000002.jsonl"
        writer.append(*table_record(1))
    assert [len(kinds) for kinds in _kinds_by_file(tmp_path).values()] == [1, 1]
    _assert_one_chain_across_files(tmp_path)


def test_rotate_keeps_a_file_that_is_still_empty(tmp_path: Path) -> None:
    """Rotating twice, or before the first record, leaves no empty file behind the last."""
    with JournalWriter.open(tmp_path, clock=StepClock(), fsync=False) as writer:
        assert writer.rotate() == tmp_path / "journal-000001.jsonl"
        writer.append(*table_record(0))
        assert writer.rotate() == tmp_path / "journal-000002.jsonl"
        assert writer.rotate() == tmp_path / "journal-000002.jsonl"
        writer.append(*table_record(1))
    assert [len(kinds) for kinds in _kinds_by_file(tmp_path).values()] == [1, 1]
    _assert_one_chain_across_files(tmp_path)


@pytest.mark.parametrize("missing", [1, 2, 3])
def test_a_deleted_file_is_detected_and_named(tmp_path: Path, missing: int) -> None:
    """Deleting any file but the last breaks the numbering: verify and open name it."""
    write_journal(tmp_path, 12, hands_per_file=1)  # 4 files of one hand each
    (tmp_path / f"journal-{missing:06d}.jsonl").unlink()
    report = verify(tmp_path)
    assert report.problem is not None
    assert report.problem.file.name == f"journal-{missing + 1:06d}.jsonl"
    assert f"journal-{missing:06d}.jsonl is missing" in str(report.problem)
    assert report.records == 3 * (missing - 1)
    with pytest.raises(JournalError, match=f"journal-{missing:06d}.jsonl is missing"):
        JournalWriter.open(tmp_path, fsync=False)


def test_deleting_the_last_file_is_caught_by_an_anchor(tmp_path: Path) -> None:
    """The last file's loss looks like a shorter journal: an anchor noted earlier catches it."""
    records = write_journal(tmp_path, 9, hands_per_file=1)
    anchor = Anchor(records[-1].seq, records[-1].hash)
    (tmp_path / "journal-000003.jsonl").unlink()
    assert verify(tmp_path).intact
    report = verify(tmp_path, anchor=anchor)
    assert report.problem is not None
    assert report.problem.seq == 9
    assert "the journal ends at seq 6" in str(report.problem)


def test_swapped_file_names_are_detected_at_the_first_record_out_of_place(tmp_path: Path) -> None:
    """Files renamed into another order fail the seq check at the first line of the first."""
    write_journal(tmp_path, 6, hands_per_file=1)
    first, second = tmp_path / "journal-000001.jsonl", tmp_path / "journal-000002.jsonl"
    first.rename(tmp_path / "swap")
    second.rename(first)
    (tmp_path / "swap").rename(second)
    report = verify(tmp_path)
    assert report.problem is not None
    assert (report.problem.file, report.problem.line, report.problem.seq) == (first, 1, 1)
    assert "found seq 4, expected seq 1" in str(report.problem)


def test_an_empty_file_before_the_last_is_an_error(tmp_path: Path) -> None:
    """The writer never leaves an empty file behind it, so one in the middle is tampering."""
    write_journal(tmp_path, 6, hands_per_file=1)
    (tmp_path / "journal-000002.jsonl").rename(tmp_path / "journal-000003.jsonl")
    (tmp_path / "journal-000002.jsonl").write_bytes(b"")
    report = verify(tmp_path)
    assert report.problem is not None
    assert report.problem.file.name == "journal-000002.jsonl"
    assert "holds no record but is not the last file" in str(report.problem)


def test_reader_lists_the_files_in_chain_order(tmp_path: Path) -> None:
    """Files are read 1, 2, 3, ... whatever order the directory lists them in."""
    write_journal(tmp_path, 9, hands_per_file=1)
    reader = JournalReader(tmp_path)
    assert [record.seq for record in reader] == list(range(1, 10))
    assert [path.name for path in reader.files] == [
        "journal-000001.jsonl",
        "journal-000002.jsonl",
        "journal-000003.jsonl",
    ]
