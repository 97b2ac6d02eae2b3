"""controller/forwarder/follow.py: a journal followed as a real JournalWriter grows it, across
rotation, with a torn tail completed later, and stopped by a record that does not verify."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from journal_support import START, StepClock, journal_lines, table_record, write_journal

from controller.forwarder.follow import Follower, Line, journal_id
from controller.journal import JournalError, JournalWriter, Record
from controller.journal.files import held_by_writer
from controller.journal.record import make_record_line

pytestmark = pytest.mark.fast


def _writer(directory: Path, *, hands_per_file: int = 500) -> JournalWriter:
    return JournalWriter.open(
        directory, clock=StepClock(), fsync=False, hands_per_file=hands_per_file
    )


def _seqs(lines: list[Line]) -> list[int]:
    return [line.record.seq for line in lines]


def test_it_hands_on_each_line_as_the_writer_appends_it_with_its_exact_bytes(
    tmp_path: Path,
) -> None:
    follower = Follower(tmp_path)
    assert follower.available() == []  # no journal yet: nothing, no error
    with _writer(tmp_path) as writer:
        written = [writer.append(*table_record(n)) for n in range(3)]
        assert held_by_writer(tmp_path)  # the follower reads beside the writer's lock
        first = follower.available()
        assert follower.available() == []  # each line is handed on once
        written += [writer.append(*table_record(n)) for n in range(3, 5)]
        second = follower.available()
    assert _seqs(first) == [1, 2, 3]
    assert _seqs(second) == [4, 5]
    assert [line.record for line in first + second] == written
    on_disk = [raw.rstrip(b"\n") for _, _, raw in journal_lines(tmp_path)]
    assert [line.raw for line in first + second] == on_disk
    assert [line.number for line in first + second] == [1, 2, 3, 4, 5]
    follower.close()


def test_it_follows_across_rotation_to_each_new_file_even_an_empty_one(tmp_path: Path) -> None:
    follower = Follower(tmp_path)
    seen: list[Line] = []
    with _writer(tmp_path, hands_per_file=1) as writer:
        for n in range(10):  # a hand every third record: a new file at each
            writer.append(*table_record(n))
            seen += follower.available()
        writer.rotate()  # the writer begins a file and writes nothing yet
        seen += follower.available()
        writer.append(*table_record(10))
        seen += follower.available()
    assert _seqs(seen) == list(range(1, 12))
    assert sorted({line.file.name for line in seen}) == [
        f"journal-00000{n}.jsonl" for n in range(1, 6)
    ]
    follower.close()


def test_follow_waits_at_the_end_until_the_writer_appends(tmp_path: Path) -> None:
    """``wait`` is called only at the journal's end; here it is the writer's next append."""
    writer = _writer(tmp_path, hands_per_file=1)
    writer.append(*table_record(0))
    waits: list[int] = []

    def wait() -> None:
        waits.append(len(waits))
        writer.append(*table_record(len(waits)))

    follower = Follower(tmp_path)
    lines: Iterator[Line] = follower.follow(wait)
    got = [next(lines).record.seq for _ in range(7)]
    writer.close()
    assert got == list(range(1, 8))
    assert len(waits) == 6  # one wait per record after the first, none before it
    lines.close()  # type: ignore[attr-defined]  # a generator: closes the follower's file


def test_a_torn_last_line_is_no_record_until_its_newline_is_written(tmp_path: Path) -> None:
    records = write_journal(tmp_path, 3)
    _, line = make_record_line(
        4, START + timedelta(seconds=9), "card_read", {"c": 1}, records[-1].hash
    )
    path = tmp_path / "journal-000001.jsonl"
    follower = Follower(tmp_path)
    assert _seqs(follower.available()) == [1, 2, 3]
    with path.open("ab") as stream:  # the writer's write, cut in two
        stream.write(line[:40])
    assert follower.available() == []
    with path.open("ab") as stream:
        stream.write(line[40:-1])
    assert follower.available() == []  # all but the newline
    with path.open("ab") as stream:
        stream.write(b"\n")
    [fourth] = follower.available()
    assert fourth.raw == line[:-1]
    assert fourth.record.seq == 4
    follower.close()


def test_a_torn_tail_the_writer_sets_aside_is_never_handed_on(tmp_path: Path) -> None:
    write_journal(tmp_path, 3)
    path = tmp_path / "journal-000001.jsonl"
    follower = Follower(tmp_path)
    follower.available()
    with path.open("ab") as stream:
        stream.write(b'{"data":{"card":"A')  # a crash mid-write
    assert follower.available() == []
    records = write_journal(tmp_path, 2, first=3)  # the next start sets it aside, appends
    assert [line.record for line in follower.available()] == records
    follower.close()


def _tamper(path: Path, number: int, old: bytes, new: bytes) -> None:
    lines = path.read_bytes().splitlines(keepends=True)
    assert old in lines[number - 1]
    lines[number - 1] = lines[number - 1].replace(old, new)
    path.write_bytes(b"".join(lines))


def test_an_edited_record_stops_it_naming_the_file_the_line_and_the_seq(tmp_path: Path) -> None:
    write_journal(tmp_path, 6)
    _tamper(tmp_path / "journal-000001.jsonl", 5, b'"seat":4', b'"seat":5')
    follower = Follower(tmp_path)
    assert _seqs(follower.available()) == [1, 2, 3, 4]  # those before it are handed on first
    with pytest.raises(JournalError) as raised:
        follower.available()
    assert str(raised.value).startswith("journal-000001.jsonl:5 (seq 5): hash ")
    assert "the record was edited" in str(raised.value)
    follower.close()


def test_a_record_removed_from_the_chain_stops_it_at_the_gap(tmp_path: Path) -> None:
    write_journal(tmp_path, 6)
    path = tmp_path / "journal-000001.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:3] + lines[4:]))
    follower = Follower(tmp_path)
    assert _seqs(follower.available()) == [1, 2, 3]
    with pytest.raises(JournalError, match=r"^journal-000001.jsonl:4 \(seq 4\): found seq 5"):
        follower.available()
    follower.close()


def test_it_resumes_after_the_streams_last_record_checking_it_is_the_journals(
    tmp_path: Path,
) -> None:
    records = write_journal(tmp_path, 16, hands_per_file=1)  # six files
    for after in (records[0], records[5], records[6], records[14], records[15]):
        follower = Follower(tmp_path, after=after)
        assert _seqs(follower.available()) == list(range(after.seq + 1, 17))
        follower.close()
    other = write_journal(tmp_path / "other", 7, first=1)  # other records, same seqs
    for after in (other[5], other[6]):  # inside a file; the last of a file before
        follower = Follower(tmp_path, after=after)
        with pytest.raises(JournalError, match="the floor's stream holds another record as seq"):
            follower.available()
        follower.close()


def test_a_journal_that_ends_before_the_streams_last_record_stops_it(tmp_path: Path) -> None:
    records = write_journal(tmp_path / "longer", 9)
    write_journal(tmp_path / "journal", 5)
    follower = Follower(tmp_path / "journal", after=records[7])
    with pytest.raises(JournalError, match="holds this journal up to seq 8, but the journal ends"):
        follower.available()
    follower.close()


def test_an_unfinished_line_in_a_file_that_is_not_the_last_stops_it(tmp_path: Path) -> None:
    write_journal(tmp_path, 4, hands_per_file=1)  # files 1 and 2
    first = tmp_path / "journal-000001.jsonl"
    first.write_bytes(first.read_bytes() + b'{"data":')
    follower = Follower(tmp_path)
    with pytest.raises(JournalError, match="only the last file's last line may be unfinished"):
        follower.available()
    follower.close()


def test_the_journal_id_is_the_hash_of_the_first_record(tmp_path: Path) -> None:
    assert journal_id(tmp_path) is None  # no journal yet
    (tmp_path / "journal-000001.jsonl").write_bytes(b'{"data":{')
    assert journal_id(tmp_path) is None  # its first line is being written
    records: list[Record] = write_journal(tmp_path / "j", 4, hands_per_file=1)
    assert journal_id(tmp_path / "j") == records[0].hash
    os.rename(tmp_path / "j" / "journal-000002.jsonl", tmp_path / "j" / "journal-000001.jsonl")
    with pytest.raises(JournalError, match="expected seq 1 after the genesis value"):
        journal_id(tmp_path / "j")


def test_a_record_that_links_to_another_chain_stops_it_at_its_prev(tmp_path: Path) -> None:
    """Seq 4 of another journal in place of this one's: its seq and its own hash are right,
    its prev is not the hash of this journal's seq 3."""
    write_journal(tmp_path / "a", 6)
    write_journal(tmp_path / "b", 6, first=1)
    a, b = (tmp_path / name / "journal-000001.jsonl" for name in ("a", "b"))
    lines = a.read_bytes().splitlines(keepends=True)
    lines[3] = b.read_bytes().splitlines(keepends=True)[3]
    a.write_bytes(b"".join(lines))
    follower = Follower(tmp_path / "a")
    assert _seqs(follower.available()) == [1, 2, 3]
    with pytest.raises(JournalError, match=r"^journal-000001.jsonl:4 \(seq 4\): prev is .*broken"):
        follower.available()
    follower.close()


def test_what_it_hands_on_is_fsynced_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The writer fsyncs a sync=False record only later; the follower fsyncs the file before it
    hands a record on, so the floor never holds a record a power cut could take back."""
    synced: list[str] = []
    real_fsync = os.fsync

    def fsync(descriptor: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{descriptor}"))
        real_fsync(descriptor)

    with _writer(tmp_path) as writer:
        writer.append(*table_record(0), sync=False)
        follower = Follower(tmp_path)
        monkeypatch.setattr(os, "fsync", fsync)
        lines = follower.available()
        monkeypatch.undo()
    assert _seqs(lines) == [1]
    assert synced == [str(tmp_path / "journal-000001.jsonl")]
    follower.close()
