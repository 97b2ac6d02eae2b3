"""The journal writer: round trip, resuming the chain, durability before ``append`` returns."""

from __future__ import annotations

import errno
import itertools
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from journal_support import StepClock, table_record, write_journal

from controller.journal import (
    GENESIS,
    JournalError,
    JournalReader,
    JournalWriter,
    Record,
    RecordError,
    verify,
)
from controller.journal.files import MAX_UNSYNCED_BYTES

pytestmark = pytest.mark.fast


def test_round_trip_reads_back_every_record_in_order(tmp_path: Path) -> None:
    """What is appended is read back equal, in order, linked from the genesis value."""
    written = write_journal(tmp_path, 10)
    reader = JournalReader(tmp_path)
    assert list(reader) == written
    assert [record.seq for record in written] == list(range(1, 11))
    assert written[0].prev == GENESIS
    assert all(b.prev == a.hash for a, b in itertools.pairwise(written))
    assert reader.last == written[-1]
    assert reader.torn is None
    assert reader.files == [tmp_path / "journal-000001.jsonl"]


def test_append_returns_the_record_it_wrote_with_the_clock_reading(tmp_path: Path) -> None:
    """The record carries the injected clock's reading in UTC, and the payload as given."""
    with JournalWriter.open(tmp_path, clock=StepClock(), fsync=False) as writer:
        record = writer.append("card_read", {"card": "As", "point": "slot"})
    assert record.ts == "2026-11-29T14:00:00.001500Z"
    assert (record.seq, record.kind, record.data) == (
        1,
        "card_read",
        {"card": "As", "point": "slot"},
    )
    assert (tmp_path / "journal-000001.jsonl").read_bytes() == record.line()


def test_reopening_resumes_the_chain_after_checking_it(tmp_path: Path) -> None:
    """A reopened journal continues with the next seq and the last record's hash as prev."""
    first = write_journal(tmp_path, 4)
    with JournalWriter.open(tmp_path, clock=StepClock(), fsync=False) as writer:
        assert writer.last == first[-1]
        record = writer.append("button", {"button": "fold"})
    assert (record.seq, record.prev) == (5, first[-1].hash)
    report = verify(tmp_path)
    assert report.intact
    assert report.records == 5


def test_open_replays_every_record_in_order_as_it_checks_them(tmp_path: Path) -> None:
    """``replay`` sees each record once, in order: the controller rebuilds the engine from it."""
    written = write_journal(tmp_path, 6)
    seen: list[Record] = []
    with JournalWriter.open(tmp_path, fsync=False, replay=seen.append):
        pass
    assert seen == written


def test_a_rejected_payload_uses_no_seq_and_writes_nothing(tmp_path: Path) -> None:
    """A payload that is not a JSON object is refused before anything reaches the file."""
    with JournalWriter.open(tmp_path, clock=StepClock(), fsync=False) as writer:
        writer.append("card_read", {"card": "As"})
        size = (tmp_path / "journal-000001.jsonl").stat().st_size
        with pytest.raises(RecordError, match="data"):
            writer.append("card_read", {"card": object()})
        assert (tmp_path / "journal-000001.jsonl").stat().st_size == size
        assert writer.append("card_read", {"card": "Kd"}).seq == 2


@dataclass(frozen=True)
class FsyncCall:
    """One observed os.fsync: what the descriptor was, and what the journal file held then."""

    target: str
    journal_bytes: bytes


def _record_fsyncs(monkeypatch: pytest.MonkeyPatch, journal_file: Path) -> list[FsyncCall]:
    calls: list[FsyncCall] = []
    real_fsync: Callable[[int], None] = os.fsync

    def observing_fsync(descriptor: int) -> None:
        # Read the file through a descriptor of our own: what another process would see.
        content = journal_file.read_bytes() if journal_file.exists() else b""
        calls.append(FsyncCall(os.readlink(f"/proc/self/fd/{descriptor}"), content))
        real_fsync(descriptor)

    monkeypatch.setattr(os, "fsync", observing_fsync)
    return calls


def test_append_fsyncs_the_written_line_before_it_returns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The line is written, then fsynced, and only then does ``append`` return."""
    journal_file = tmp_path / "journal-000001.jsonl"
    with JournalWriter.open(tmp_path, clock=StepClock()) as writer:
        writer.append("hand_started", {"hand": 1})
        calls = _record_fsyncs(monkeypatch, journal_file)
        record = writer.append("card_read", {"card": "As", "point": "slot"})
        assert len(calls) == 1
        assert calls[0].target == str(journal_file)
        assert calls[0].journal_bytes.endswith(record.line())


def test_a_new_file_is_fsynced_into_its_directory_before_any_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Creating the journal fsyncs the new directory's parent, then the directory with the file."""
    directory = tmp_path / "journal"
    journal_file = directory / "journal-000001.jsonl"
    calls = _record_fsyncs(monkeypatch, journal_file)
    with JournalWriter.open(directory, clock=StepClock()) as writer:
        assert [call.target for call in calls] == [str(tmp_path), str(directory)]
        writer.append("hand_started", {"hand": 1})
    assert [call.target for call in calls] == [str(tmp_path), str(directory), str(journal_file)]


def test_rotation_fsyncs_the_directory_before_the_first_record_of_the_new_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The new file's directory entry is on disk before the record that goes into it."""
    second = tmp_path / "journal-000002.jsonl"
    with JournalWriter.open(tmp_path, clock=StepClock(), hands_per_file=1) as writer:
        writer.append("hand_started", {"hand": 1})
        calls = _record_fsyncs(monkeypatch, second)
        record = writer.append("hand_started", {"hand": 2})
    assert [call.target for call in calls] == [str(tmp_path), str(second)]
    assert calls[0].journal_bytes == b""
    assert calls[1].journal_bytes == record.line()


def test_an_unsynced_line_goes_to_disk_with_the_next_synced_append(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/journal.md, Durability: ``sync=False`` writes the line without an fsync; the next
    synced append's one fsync carries both lines to disk before it returns."""
    journal_file = tmp_path / "journal-000001.jsonl"
    with JournalWriter.open(tmp_path, clock=StepClock()) as writer:
        calls = _record_fsyncs(monkeypatch, journal_file)
        decision = writer.append("decision", {"input": 1}, sync=False)
        assert journal_file.read_bytes().endswith(decision.line())
        assert calls == []
        card = writer.append("card", {"card": "As"})
        assert [call.target for call in calls] == [str(journal_file)]
        assert calls[0].journal_bytes.endswith(decision.line() + card.line())


def test_an_unsynced_line_is_fsynced_before_rotation_and_at_close(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/journal.md, Durability: the old file's unsynced tail is fsynced before the next file
    is created (whose appends' fsyncs do not reach it), and a clean close fsyncs the last."""
    first, second = tmp_path / "journal-000001.jsonl", tmp_path / "journal-000002.jsonl"
    with JournalWriter.open(tmp_path, clock=StepClock(), hands_per_file=1) as writer:
        writer.append("hand_started", {"hand": 1})
        calls = _record_fsyncs(monkeypatch, first)
        tail = writer.append("decision", {"input": 1}, sync=False)
        assert calls == []
        opening = writer.append("hand_started", {"hand": 2}, sync=False)
        assert [call.target for call in calls] == [str(first), str(tmp_path)]
        assert calls[0].journal_bytes.endswith(tail.line())
        assert second.read_bytes() == opening.line()
        calls.clear()
    assert [call.target for call in calls] == [str(second)]


def test_a_clean_close_after_synced_appends_fsyncs_nothing_more(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Everything already fsynced: close adds no fsync of its own."""
    with JournalWriter.open(tmp_path, clock=StepClock()) as writer:
        writer.append("card", {"card": "As"})
        calls = _record_fsyncs(monkeypatch, tmp_path / "journal-000001.jsonl")
    assert calls == []


def test_fsync_off_writes_the_line_but_never_fsyncs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """fsync=False (benchmarks, tests) still writes each line before returning, unsynced."""
    journal_file = tmp_path / "journal-000001.jsonl"
    calls = _record_fsyncs(monkeypatch, journal_file)
    with JournalWriter.open(tmp_path, clock=StepClock(), fsync=False) as writer:
        record = writer.append("card_read", {"card": "As"})
        assert journal_file.read_bytes() == record.line()
    assert calls == []


def test_a_failed_fsync_stops_the_writer_until_the_journal_is_reopened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After an fsync error nothing more is appended (the record may not be on disk): reopen."""
    with JournalWriter.open(tmp_path, clock=StepClock()) as writer:
        writer.append("hand_started", {"hand": 1})

        def failing_fsync(descriptor: int) -> None:
            raise OSError(errno.EIO, "Input/output error")

        monkeypatch.setattr(os, "fsync", failing_fsync)
        with pytest.raises(JournalError, match=r"journal-000001.jsonl \(seq 2\): appending seq 2"):
            writer.append("card_read", {"card": "As"})
        monkeypatch.undo()
        with pytest.raises(JournalError, match="reopen the journal to recover"):
            writer.append("card_read", {"card": "Kd"})
    with JournalWriter.open(tmp_path, clock=StepClock()) as writer:
        # The line did reach the file; it was never acknowledged, so the device resends it.
        assert writer.last is not None
        assert writer.last.seq == 2
        assert writer.append("card_read", {"card": "As"}).seq == 3
    assert verify(tmp_path).intact


def test_a_second_writer_on_the_same_journal_is_refused(tmp_path: Path) -> None:
    """Two writers would interleave two chains: the second is refused while the first is open."""
    with (
        JournalWriter.open(tmp_path, fsync=False),
        pytest.raises(JournalError, match="already open for writing") as raised,
    ):
        JournalWriter.open(tmp_path, fsync=False)
    assert str(raised.value).startswith(f"journal {tmp_path}: ")  # its full path
    with JournalWriter.open(tmp_path, fsync=False) as writer:
        writer.append("hand_started", {"hand": 1})


def test_a_closed_writer_refuses_to_append(tmp_path: Path) -> None:
    """Appending after close is an error, not a silent loss."""
    writer = JournalWriter.open(tmp_path, fsync=False)
    writer.close()
    writer.close()  # twice is harmless
    with pytest.raises(JournalError, match="closed"):
        writer.append(*table_record(0))


def test_open_refuses_a_path_that_is_a_file(tmp_path: Path) -> None:
    """The journal is a directory; a file in its place is named in the error."""
    path = tmp_path / "journal"
    path.write_text("not a journal")
    with pytest.raises(JournalError) as raised:
        JournalWriter.open(path)
    assert str(raised.value) == (
        f"journal {path}: it exists and is not a directory; set [journal] dir to a directory"
    )


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ({"hands_per_file": 0}, "hands_per_file is 0; expected 1 or more"),
        ({"max_bytes": 0}, "max_bytes is 0; expected 1 or more"),
    ],
)
def test_rotation_settings_must_be_positive(
    tmp_path: Path, option: dict[str, int], message: str
) -> None:
    """A rotation setting below 1 is refused, naming the setting."""
    with pytest.raises(ValueError, match=message):
        JournalWriter.open(tmp_path, **option)  # type: ignore[arg-type]  # one setting at a time


def test_a_failed_rotation_stops_the_writer_and_reopening_uses_the_new_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If the new file's directory entry cannot be fsynced, nothing goes into it until reopened."""
    with JournalWriter.open(tmp_path, clock=StepClock(), hands_per_file=1) as writer:
        first = writer.append("hand_started", {"hand": 1})

        def failing_fsync(descriptor: int) -> None:
            raise OSError(errno.EIO, "Input/output error")

        monkeypatch.setattr(os, "fsync", failing_fsync)
        with pytest.raises(JournalError, match=r"\(seq 2\): appending seq 2 failed"):
            writer.append("hand_started", {"hand": 2})
        monkeypatch.undo()
        with pytest.raises(JournalError, match="reopen"):
            writer.append("hand_started", {"hand": 2})
    second = tmp_path / "journal-000002.jsonl"
    assert second.read_bytes() == b""
    with JournalWriter.open(tmp_path, clock=StepClock(), hands_per_file=1) as writer:
        assert writer.current_file == second
        record = writer.append("hand_started", {"hand": 2})
    assert (record.seq, record.prev) == (2, first.hash)
    assert second.read_bytes() == record.line()
    assert verify(tmp_path).intact


def test_never_more_than_max_unsynced_bytes_are_written_past_the_last_fsync(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/journal.md, Torn tails: with fsync on, what a power cut can leave as NULs (what was
    written past the last fsync) stays within MAX_UNSYNCED_BYTES, whatever the lines' sizes:
    unsynced lines are fsynced before a line that would take them over, and a long line is
    written in pieces; every record still reads back whole."""
    journal_file = tmp_path / "journal-000001.jsonl"
    synced = 0
    most = 0
    real_write, real_fsync = os.write, os.fsync

    def is_journal(descriptor: int) -> bool:
        return os.readlink(f"/proc/self/fd/{descriptor}") == str(journal_file)

    def observing_write(descriptor: int, data: bytes | memoryview) -> int:
        nonlocal most
        written = real_write(descriptor, data)
        if is_journal(descriptor):
            most = max(most, journal_file.stat().st_size - synced)
        return written

    def observing_fsync(descriptor: int) -> None:
        nonlocal synced
        real_fsync(descriptor)
        if is_journal(descriptor):
            synced = journal_file.stat().st_size

    with JournalWriter.open(tmp_path, clock=StepClock()) as writer:
        monkeypatch.setattr(os, "write", observing_write)
        monkeypatch.setattr(os, "fsync", observing_fsync)
        written = []
        for size, sync in [(300, True), (5000, False), (6000, True), (5000, False)]:
            written.append(writer.append("card", {"pad": "x" * size}, sync=sync))
        written.append(writer.append("checkpoint", {"pad": "y" * 3 * MAX_UNSYNCED_BYTES}))
        written.append(writer.append("decision", {"pad": "z" * 100}, sync=False))
        monkeypatch.undo()
    assert journal_file.stat().st_size > 3 * MAX_UNSYNCED_BYTES
    assert 0 < most <= MAX_UNSYNCED_BYTES
    assert list(JournalReader(tmp_path)) == written


def test_a_small_unsynced_line_still_shares_the_next_appends_fsync(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bound costs the card's path nothing: a decision and the next card under
    MAX_UNSYNCED_BYTES together go to disk with one fsync, as before."""
    journal_file = tmp_path / "journal-000001.jsonl"
    with JournalWriter.open(tmp_path, clock=StepClock()) as writer:
        calls = _record_fsyncs(monkeypatch, journal_file)
        writer.append("decision", {"pad": "x" * (MAX_UNSYNCED_BYTES // 2)}, sync=False)
        writer.append("card", {"card": "As"})
    assert len(calls) == 1
