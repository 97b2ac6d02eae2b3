"""A power cut mid-write: the torn last record is reported and set aside; nothing before is lost."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from journal_support import StepClock, table_record, write_journal

from controller.journal import JournalError, JournalWriter, Record, TornTail, set_aside, verify
from controller.journal.files import MAX_UNSYNCED_BYTES

pytestmark = pytest.mark.fast

FIRST = "journal-000001.jsonl"


def _reopen_and_append(directory: Path) -> tuple[JournalWriter, list[Record], Record]:
    replayed: list[Record] = []
    writer = JournalWriter.open(directory, clock=StepClock(), fsync=False, replay=replayed.append)
    with writer:
        appended = writer.append("button", {"button": "fold"})
    return writer, replayed, appended


def test_torn_last_record_is_reported_set_aside_and_appending_resumes(tmp_path: Path) -> None:
    """N records then half a line: reopening keeps the N, moves the half away, and goes on."""
    records = write_journal(tmp_path, 5)
    journal_file = tmp_path / FIRST
    intact = journal_file.read_bytes()
    half = b'{"data":{"card":"As","point":"slot"},"hash":"3f9a'
    with journal_file.open("ab") as stream:  # the power cut: half of a line reached the disk
        stream.write(half)

    writer, replayed, appended = _reopen_and_append(tmp_path)

    assert replayed == records
    torn = writer.recovered_torn
    assert torn is not None
    assert (torn.file, torn.line, torn.offset, torn.after_seq) == (journal_file, 6, len(intact), 5)
    assert torn.content == half
    assert "no newline" in torn.reason
    set_aside_file = tmp_path / f"{FIRST}.{len(intact)}.torn"
    assert set_aside_file.read_bytes() == half
    assert journal_file.read_bytes() == intact + appended.line()
    assert (appended.seq, appended.prev) == (6, records[-1].hash)
    report = verify(tmp_path)
    assert report.intact
    assert report.set_aside == (set_aside_file,)


def test_a_power_cut_at_every_byte_of_the_last_record_loses_only_that_record(
    tmp_path: Path,
) -> None:
    """Cut the last record at each of its bytes: the rest reopens intact and appending resumes."""
    records = write_journal(tmp_path / "whole", 4)
    whole = (tmp_path / "whole" / FIRST).read_bytes()
    last_start = len(whole) - len(records[-1].line())
    for cut in range(last_start, len(whole)):
        directory = tmp_path / f"cut-{cut}"
        directory.mkdir()
        (directory / FIRST).write_bytes(whole[:cut])

        writer, replayed, appended = _reopen_and_append(directory)

        assert replayed == records[:-1], f"cut at byte {cut}"
        torn = writer.recovered_torn
        if cut == last_start:
            assert torn is None, "a cut at a record boundary leaves nothing torn"
        else:
            assert torn is not None, f"cut at byte {cut}"
            assert torn.content == whole[last_start:cut]
            assert torn.after_seq == 3
        assert (appended.seq, appended.prev) == (4, records[-2].hash)
        assert verify(directory).intact, f"cut at byte {cut}"


#: The journal files' record kind at a hand's end: a start resumes from the last one.
RESUME = "checkpoint"


@pytest.mark.parametrize(
    ("tail", "reason"),
    [
        (b"\x00" * 40, "40 NUL bytes: the file's size reached the disk but its data did not"),
        (b"\x00" * MAX_UNSYNCED_BYTES, f"{MAX_UNSYNCED_BYTES} NUL bytes"),
        (b'{"data":{"card":"As"},"ha', "the start of record 4, no newline"),
        (b'{"data":{"card":"\xe2\x99', "no newline"),  # cut inside a UTF-8 character
        (
            b'{"data":{"card":"A' + b"\x00" * 100,
            "no newline at the end: the write did not finish; then 100 NUL bytes",
        ),
    ],
)
def test_a_cut_record_or_a_short_nul_tail_is_torn_and_set_aside(
    tmp_path: Path, tail: bytes, reason: str
) -> None:
    """docs/journal.md, Torn tails: the start of the record being written, cut short, or NUL
    bytes no longer than the writer leaves past its last fsync, was never acknowledged: it is
    torn, reported, and set aside on both ways of opening."""
    records = write_journal(tmp_path, 3)
    with (tmp_path / FIRST).open("ab") as stream:
        stream.write(tail)
    report = verify(tmp_path)
    assert report.problem is None
    assert report.torn is not None
    assert report.torn.content == tail
    assert reason in report.torn.reason
    assert report.records == 3
    assert not report.intact
    with JournalWriter.open(tmp_path, fsync=False, resume_kind=RESUME) as writer:
        assert writer.recovered_torn == report.torn
        assert writer.last == records[-1]
    assert verify(tmp_path).intact


@pytest.mark.parametrize(
    ("tail", "reason"),
    [
        # A line that ends with a newline was written whole: damage, never torn.
        (b"\x00\x00\x00\n", "not JSON"),
        (b"\n", "not JSON"),
        (b'{"data":\xff\xfe}\n', "not UTF-8"),
        (b"this is not json\n", "not JSON"),
        # Unfinished, but not what the writer could have been writing.
        (
            b"\x00" * (MAX_UNSYNCED_BYTES + 1),
            "8193 NUL bytes from offset 758 to the end of the journal, more than",
        ),
        (b"this is not json", "not the start of record 4"),
        (b'{"torn":', "not the start of record 4"),
        (b'{"data":{"card":"As"},"hash":"xyz', "not the start of record 4"),
        (b'{"data":{},"hash":"' + b"a" * 64 + b'","kind":5,', "not the start of record 4"),
        (b'{"data":\x00\x00{"card"', "not the start of record 4"),
        (b"\x00" * 10 + b'{"data":{"card"', "not the start of record 4"),
    ],
)
def test_a_last_line_that_could_hold_acknowledged_records_is_refused(
    tmp_path: Path, tail: bytes, reason: str
) -> None:
    """docs/journal.md, Torn tails: a finished line that is no record, too many NUL bytes, or an
    unfinished line that is not the start of the next record may be what is left of
    acknowledged records: verify names it, and the journal refuses to open, unchanged."""
    write_journal(tmp_path, 3)
    with (tmp_path / FIRST).open("ab") as stream:
        stream.write(tail)
    before = (tmp_path / FIRST).read_bytes()
    report = verify(tmp_path)
    assert report.torn is None
    assert report.problem is not None
    assert (report.problem.file, report.problem.line, report.problem.seq) == (
        tmp_path / FIRST,
        4,
        4,
    )
    assert reason in str(report.problem)
    for resume_kind in (RESUME, None):
        with pytest.raises(JournalError, match=r"journal-000001\.jsonl:4 \(seq 4\): ") as raised:
            JournalWriter.open(tmp_path, fsync=False, resume_kind=resume_kind)
        assert reason in str(raised.value)
    assert (tmp_path / FIRST).read_bytes() == before
    assert not list(tmp_path.glob("*.torn"))


def test_a_whole_record_again_without_its_newline_is_not_the_next_record_cut_short(
    tmp_path: Path,
) -> None:
    """The unfinished line must be the start of the record that follows (its seq and prev):
    a copy of the last record, unfinished, is refused."""
    write_journal(tmp_path, 3)
    last_line = (tmp_path / FIRST).read_bytes().splitlines()[-1]
    with (tmp_path / FIRST).open("ab") as stream:
        stream.write(last_line)
    with pytest.raises(JournalError, match="not the start of record 4"):
        JournalWriter.open(tmp_path, fsync=False, resume_kind=RESUME)


def _three_files(directory: Path) -> list[Record]:
    """A journal of 54 records in 3 files, the last from seq 21 on, as in the review."""
    with JournalWriter.open(directory, clock=StepClock(), fsync=False) as writer:
        records = []
        for n in range(54):
            if n in (10, 20):
                writer.rotate()
            records.append(writer.append(*table_record(n)))
    return records


def test_a_zero_filled_last_file_is_refused_not_set_aside(tmp_path: Path) -> None:
    """docs/journal.md, a torn tail: the last of three files zero-filled at its size (34
    acknowledged records) is far more than a power cut leaves: the start refuses, naming the file,
    its first line and the seq there, and changes nothing."""
    _three_files(tmp_path)
    last = tmp_path / "journal-000003.jsonl"
    size = last.stat().st_size
    assert size > MAX_UNSYNCED_BYTES
    last.write_bytes(b"\x00" * size)
    with pytest.raises(JournalError) as raised:
        JournalWriter.open(tmp_path, fsync=False, resume_kind=RESUME)
    assert str(raised.value).startswith("journal-000003.jsonl:1 (seq 21): ")
    assert f"{size} NUL bytes from offset 0 to the end" in str(raised.value)
    assert "may hide acknowledged records" in str(raised.value)
    with pytest.raises(JournalError, match=r"journal-000003\.jsonl:1 \(seq 21\)"):
        JournalWriter.open(tmp_path, fsync=False)
    assert last.read_bytes() == b"\x00" * size
    assert not list(tmp_path.glob("*.torn"))
    assert not verify(tmp_path).intact


def test_a_journal_of_zeros_does_not_become_a_new_chain(tmp_path: Path) -> None:
    """docs/journal.md, a torn tail: a single file of 19665 NUL bytes is refused (not opened as an
    empty journal at hand 0), and verify says NOT INTACT."""
    (tmp_path / FIRST).write_bytes(b"\x00" * 19665)
    with pytest.raises(JournalError, match=r"journal-000001\.jsonl:1 \(seq 1\): 19665 NUL"):
        JournalWriter.open(tmp_path, fsync=False, resume_kind=RESUME)
    report = verify(tmp_path)
    assert report.problem is not None
    assert report.summary()[0].startswith(f"journal {tmp_path}: links NOT INTACT at record 1;")
    assert (tmp_path / FIRST).stat().st_size == 19665


def test_a_complete_last_line_that_is_not_json_is_refused(tmp_path: Path) -> None:
    """docs/journal.md, a torn tail: the last line (seq 54, acknowledged) replaced by a complete
    line that is not JSON is damage: the start refuses at that line and seq, and does not open at
    53."""
    _three_files(tmp_path)
    last = tmp_path / "journal-000003.jsonl"
    lines = last.read_bytes().splitlines(keepends=True)
    last.write_bytes(b"".join(lines[:-1]) + b"this is not json\n")
    where = rf"journal-000003\.jsonl:{len(lines)} \(seq 54\): not JSON"
    with pytest.raises(JournalError, match=where):
        JournalWriter.open(tmp_path, fsync=False, resume_kind=RESUME)
    with pytest.raises(JournalError, match=where):
        JournalWriter.open(tmp_path, fsync=False)
    assert not list(tmp_path.glob("*.torn"))


def test_a_short_nul_tail_in_a_new_last_file_is_set_aside(tmp_path: Path) -> None:
    """A power cut just after a rotation: the new file holds only NULs from the unsynced
    first record; they are set aside and the journal goes on after the previous file."""
    records = _three_files(tmp_path)
    third = tmp_path / "journal-000003.jsonl"
    third.unlink()
    third.write_bytes(b"\x00" * 700)
    with JournalWriter.open(tmp_path, fsync=False, resume_kind=RESUME) as writer:
        assert writer.recovered_torn is not None
        assert writer.recovered_torn.after_seq == 20
        assert "700 NUL bytes" in writer.recovered_torn.describe()
        assert writer.last == records[19]
    assert third.stat().st_size == 0
    assert verify(tmp_path).intact


def test_verify_reports_a_torn_tail_without_touching_it(tmp_path: Path) -> None:
    """verify only reads: the torn bytes stay until a writer opens the journal."""
    write_journal(tmp_path, 3)
    with (tmp_path / FIRST).open("ab") as stream:
        stream.write(b'{"data"')
    before = (tmp_path / FIRST).read_bytes()
    report = verify(tmp_path)
    assert report.torn is not None
    assert report.torn.after_seq == 3
    assert (tmp_path / FIRST).read_bytes() == before
    assert not list(tmp_path.glob("*.torn"))


def test_a_whole_last_line_that_is_json_but_a_bad_record_is_an_error_not_torn(
    tmp_path: Path,
) -> None:
    """A complete, readable line was written whole: if it fails the checks it was edited."""
    write_journal(tmp_path, 3)
    journal_file = tmp_path / FIRST
    lines = journal_file.read_bytes().splitlines(keepends=True)
    journal_file.write_bytes(b"".join(lines[:-1]) + lines[-1].replace(b"card_read", b"card_redd"))
    report = verify(tmp_path)
    assert report.torn is None
    assert report.problem is not None
    assert (report.problem.line, report.problem.seq) == (3, 3)
    with pytest.raises(JournalError, match=r"journal-000001.jsonl:3 \(seq 3\).*edited"):
        JournalWriter.open(tmp_path, fsync=False)


def test_an_unreadable_line_before_the_last_is_an_error_not_torn(tmp_path: Path) -> None:
    """Only the very last line may be torn: garbage with records after it is an error."""
    write_journal(tmp_path, 2)
    with (tmp_path / FIRST).open("ab") as stream:
        stream.write(b'{"data":\n')
    write_journal(tmp_path / "other", 1)
    with (tmp_path / FIRST).open("ab") as stream:
        stream.write((tmp_path / "other" / FIRST).read_bytes())
    with pytest.raises(JournalError, match=r"journal-000001.jsonl:3 \(seq 3\): not JSON"):
        JournalWriter.open(tmp_path, fsync=False)


def test_a_torn_line_in_a_file_before_the_last_is_an_error(tmp_path: Path) -> None:
    """A file the chain has moved on from was complete: a cut in it is damage, not a torn tail."""
    write_journal(tmp_path, 6, hands_per_file=1)
    first = tmp_path / FIRST
    first.write_bytes(first.read_bytes()[:-10])
    report = verify(tmp_path)
    assert report.torn is None
    assert report.problem is not None
    assert (report.problem.file, report.problem.line, report.problem.seq) == (first, 3, 3)
    assert "no newline" in str(report.problem)


def test_a_torn_first_record_of_a_new_file_leaves_that_file_empty_and_in_use(
    tmp_path: Path,
) -> None:
    """Cut during the first record after a rotation: the new file is emptied and written again."""
    records = write_journal(tmp_path, 3, hands_per_file=1)
    second = tmp_path / "journal-000002.jsonl"
    second.write_bytes(b'{"data":{"hand":2')
    writer, replayed, appended = _reopen_and_append(tmp_path)
    assert replayed == records
    assert writer.recovered_torn is not None
    assert writer.recovered_torn.file == second
    assert second.read_bytes() == appended.line()
    assert verify(tmp_path).intact


def test_setting_aside_again_after_a_crash_part_way_is_harmless(tmp_path: Path) -> None:
    """If the power fails between saving the torn bytes and the cut, the next start redoes both."""
    write_journal(tmp_path, 2)
    journal_file = tmp_path / FIRST
    intact_size = journal_file.stat().st_size
    with journal_file.open("ab") as stream:
        stream.write(b'{"da')
    torn = verify(tmp_path).torn
    assert isinstance(torn, TornTail)
    saved = set_aside(torn)
    journal_file.write_bytes(journal_file.read_bytes() + b'{"da')  # as if the cut never happened
    assert set_aside(torn) == saved
    assert saved.read_bytes() == b'{"da'
    assert journal_file.stat().st_size == intact_size
    assert verify(tmp_path).intact


def test_each_torn_tail_set_aside_keeps_its_own_file(tmp_path: Path) -> None:
    """Two power cuts at different places leave two .torn files, named by their offsets."""
    write_journal(tmp_path, 2)
    for first in (2, 3):
        with (tmp_path / FIRST).open("ab") as stream:
            stream.write(b'{"data":{"torn":')
        write_journal(tmp_path, 1, first=first)
    assert len(verify(tmp_path).set_aside) == 2
    assert verify(tmp_path).intact


def test_the_torn_bytes_are_on_disk_before_they_are_cut_off_the_journal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Setting aside fsyncs the .torn file and its directory entry, then the cut journal file."""
    write_journal(tmp_path, 2)
    journal_file = tmp_path / FIRST
    intact_size = journal_file.stat().st_size
    with journal_file.open("ab") as stream:
        stream.write(b'{"data":{"ca')
    calls: list[tuple[str, int]] = []
    real_fsync = os.fsync

    def observing_fsync(descriptor: int) -> None:
        calls.append((os.readlink(f"/proc/self/fd/{descriptor}"), journal_file.stat().st_size))
        real_fsync(descriptor)

    monkeypatch.setattr(os, "fsync", observing_fsync)
    with JournalWriter.open(tmp_path, clock=StepClock()):
        pass
    torn_file = tmp_path / f"{FIRST}.{intact_size}.torn"
    assert calls == [
        (str(torn_file), intact_size + 12),  # the torn bytes are still in the journal file
        (str(tmp_path), intact_size + 12),
        (str(journal_file), intact_size),
    ]


def test_setting_aside_on_a_full_disk_leaves_no_torn_file_and_the_journal_unchanged(
    tmp_path: Path,
) -> None:
    """When the torn bytes cannot be saved (ENOSPC: the .torn name leads to
    /dev/full), set_aside raises, removes the .torn it made, and does not cut the journal."""
    write_journal(tmp_path, 2)
    journal_file = tmp_path / FIRST
    with journal_file.open("ab") as stream:
        stream.write(b'{"data":{"ca')
    before = journal_file.read_bytes()
    torn = verify(tmp_path).torn
    assert torn is not None
    (tmp_path / f"{FIRST}.{torn.offset}.torn").symlink_to("/dev/full")
    with pytest.raises(OSError, match="No space left on device"):
        set_aside(torn)
    assert not list(tmp_path.glob("*.torn"))
    assert journal_file.read_bytes() == before
