"""Compressed rotated journal files (docs/journal.md, Compressed files): written atomically,
never the file in use, read by every reader as plain ones, and a kill at any point of the
compression leaves one whole copy."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import zstandard
from journal_support import START, StepClock, table_record, write_journal

from controller.forwarder.follow import Follower, journal_id
from controller.journal import JournalReader, JournalWriter, compress, read_tail, verify
from controller.journal.compress import TEMPORARY_SUFFIX, compress_file, compress_rotated
from controller.journal.files import compressed_name, file_name, journal_files
from controller.journal.keeper import JournalKeeper, KeeperOptions
from controller.table.loop import wait_until

#: How long a test waits for the keeper's thread: nothing when it is done at once.
PATIENCE = 30.0

#: 30 records, a hand every third: hands_per_file=3 puts 9 records in a file, 4 files.
RECORDS = 30


def _journal(tmp_path: Path) -> tuple[Path, list[bytes]]:
    directory = tmp_path / "journal"
    records = write_journal(directory, RECORDS, hands_per_file=3)
    return directory, [r.line() for r in records]


def _names(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


@pytest.mark.fast
def test_every_rotated_file_is_compressed_and_the_file_in_use_stays_plain(tmp_path: Path) -> None:
    directory, _ = _journal(tmp_path)
    done = compress_rotated(directory, fsync=False)
    assert [p.name for p in done] == [compressed_name(n) for n in (1, 2, 3)]
    assert _names(directory) == [*(compressed_name(n) for n in (1, 2, 3)), file_name(4)]
    assert compress_rotated(directory, fsync=False) == []  # nothing left to do


@pytest.mark.fast
def test_the_readers_read_compressed_files_as_plain_ones(tmp_path: Path) -> None:
    directory, lines = _journal(tmp_path)
    tail_before = read_tail(directory, "hand_started")
    compress_rotated(directory, fsync=False)
    assert [r.line() for r in JournalReader(directory)] == lines
    report = verify(directory)
    assert report.intact
    assert report.records == RECORDS
    assert next(p.name for p in report.files) == compressed_name(1)
    tail = read_tail(directory, "hand_started")
    assert tail.records == tail_before.records
    assert tail.checked == tail_before.checked


@pytest.mark.fast
def test_a_start_resumes_back_through_a_compressed_file(tmp_path: Path) -> None:
    """read_tail reads a compressed earlier file backwards (the last file has no record of
    the resume kind), and the writer continues the chain after it."""
    directory, lines = _journal(tmp_path)
    compress_rotated(directory, fsync=False)
    tail = read_tail(directory, "no_such_kind")  # back to the journal's first record
    assert [r.line() for r in tail.records] == lines
    with JournalWriter.open(
        directory, clock=StepClock(START), fsync=False, hands_per_file=3, resume_kind="checkpoint"
    ) as writer:
        writer.append(*table_record(RECORDS))
    assert verify(directory).records == RECORDS + 1


@pytest.mark.fast
def test_a_compressed_file_that_was_changed_does_not_verify(tmp_path: Path) -> None:
    directory, _ = _journal(tmp_path)
    compress_rotated(directory, fsync=False)
    path = directory / compressed_name(2)
    text = zstandard.decompress(path.read_bytes()).replace(b'"card":"As"', b'"card":"Ks"', 1)
    path.write_bytes(zstandard.compress(text))
    report = verify(directory)
    assert not report.intact
    assert report.problem is not None
    assert report.problem.file == path


@pytest.mark.fast
def test_plain_and_compressed_copies_after_a_crash_read_once(tmp_path: Path) -> None:
    """A crash after the rename, before the plain file's removal: both copies are whole; the
    readers take one of them, and the next pass removes the plain one."""
    directory, lines = _journal(tmp_path)
    plain = (directory / file_name(1)).read_bytes()
    compress_file(directory, 1, fsync=False)
    (directory / file_name(1)).write_bytes(plain)
    assert next(p.name for _, p in journal_files(directory)) == file_name(1)
    assert [r.line() for r in JournalReader(directory)] == lines
    compress_rotated(directory, fsync=False)
    assert not (directory / file_name(1)).exists()
    assert [r.line() for r in JournalReader(directory)] == lines


#: The child compresses file 1 and is killed (SIGKILL, by itself) at the step named.
_CHILD = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    from controller.journal import compress, files

    directory, step = Path(sys.argv[1]), sys.argv[2]

    def kill(*_args, **_kwargs):
        os.kill(os.getpid(), signal.SIGKILL)

    real_write, real_replace, real_unlink = files.write_all, os.replace, Path.unlink
    if step == "writing":
        def write_all(descriptor, data):
            real_write(descriptor, bytes(data)[: len(data) // 2])
            kill()
        compress.write_all = write_all
    elif step == "before-rename":
        os.replace = kill
    elif step == "before-unlink":
        Path.unlink = kill
    elif step == "after-unlink":
        def unlink(self, missing_ok=False):
            real_unlink(self)
            kill()
        Path.unlink = unlink
    compress.compress_file(directory, 1)
    """
)


@pytest.mark.parametrize("step", ["writing", "before-rename", "before-unlink", "after-unlink"])
def test_a_kill_during_compression_loses_nothing(tmp_path: Path, step: str) -> None:
    """13:69E-1.31(b): killed at each step of the compression, the journal verifies whole,
    and the next pass (a start) finishes the job."""
    directory, lines = _journal(tmp_path)
    child = subprocess.run(
        [sys.executable, "-c", _CHILD, str(directory), step],
        cwd=Path(__file__).resolve().parent.parent,
        capture_output=True,
        check=False,
    )
    assert child.returncode == -signal.SIGKILL, child.stderr.decode()
    report = verify(directory)
    assert report.intact, report.summary()
    assert report.records == RECORDS
    assert [r.line() for r in JournalReader(directory)] == lines
    compress_rotated(directory)
    assert not any(n.endswith(TEMPORARY_SUFFIX) for n in _names(directory))
    assert (directory / compressed_name(1)).exists()
    assert not (directory / file_name(1)).exists()
    assert [r.line() for r in JournalReader(directory)] == lines


@pytest.mark.fast
def test_the_follower_finishes_a_file_compressed_while_it_read_it(tmp_path: Path) -> None:
    """The forwarder's follower had read part of file 1 when it was rotated and compressed:
    it sends the rest of it, then the next files, one of them compressed before it came."""
    directory, lines = _journal(tmp_path)
    follower = Follower(directory)
    try:
        first = follower.available(limit=4)
        compress_rotated(directory, fsync=False)
        rest = follower.available(limit=1000)
    finally:
        follower.close()
    assert [line.raw + b"\n" for line in first + rest] == lines


@pytest.mark.fast
def test_the_follower_starts_in_a_compressed_file(tmp_path: Path) -> None:
    directory, lines = _journal(tmp_path)
    records = list(JournalReader(directory))
    compress_rotated(directory, fsync=False)
    assert journal_id(directory) == records[0].hash
    follower = Follower(directory, after=records[11])  # in file 2, after file 1's last
    try:
        sent = follower.available(limit=1000)
    finally:
        follower.close()
    assert [line.raw + b"\n" for line in sent] == lines[12:]


def test_the_keeper_compresses_after_a_rotation_not_in_the_append(tmp_path: Path) -> None:
    """The controller's keeper compresses the file the writer left, in its own thread (the
    test waits for it: a stop does not, below)."""
    directory = tmp_path / "journal"
    writer = JournalWriter.open(directory, clock=StepClock(START), fsync=False, hands_per_file=1)
    writer.housekeeping = JournalKeeper(
        directory, KeeperOptions(keep_days=None, floor=False, fsync=False), StepClock(START)
    )
    for n in range(6):  # two hands: file 1, then file 2 in use
        writer.append(*table_record(n))
    compressed = [compressed_name(1), file_name(2)]
    assert wait_until(lambda: _names(directory) == compressed, PATIENCE), _names(directory)
    writer.close()
    assert _names(directory) == compressed
    assert verify(directory).records == 6


@pytest.mark.fast
def test_a_stop_cuts_the_compression_between_two_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/journal.md, Compressed files: asked to stop part-way through a file (the keeper's
    close, as the table stops), the compression leaves it as it was, plain and no temporary
    file, and begins no other: a stop waits a chunk, not a journal's worth of files."""
    directory, lines = _journal(tmp_path)
    monkeypatch.setattr(compress, "CHUNK", 64)  # a file of 9 records is many chunks
    asked = 0

    def stopping() -> bool:
        nonlocal asked
        asked += 1
        return asked > 3  # three chunks of file 1 compressed, then the stop

    assert compress_rotated(directory, fsync=False, stopping=stopping) == []
    assert asked == 4
    assert _names(directory) == [file_name(n) for n in (1, 2, 3, 4)]
    assert [r.line() for r in JournalReader(directory)] == lines
    # The next pass (the next start) does it all: one frame with its size and checksum.
    assert len(compress_rotated(directory, fsync=False)) == 3
    assert [r.line() for r in JournalReader(directory)] == lines
    packed = (directory / compressed_name(1)).read_bytes()
    frame = zstandard.get_frame_parameters(packed)
    assert frame.has_checksum
    assert frame.content_size == len(b"".join(lines[:9]))


@pytest.mark.fast
def test_compression_is_not_in_the_append_path(tmp_path: Path) -> None:
    """The writer only tells the keeper of a rotation; the work happens elsewhere."""
    directory = tmp_path / "journal"

    class Told:
        def __init__(self) -> None:
            self.rotations = 0

        def rotated(self) -> None:
            self.rotations += 1
            assert _names(directory)[0] == file_name(1)  # nothing compressed in the append

        def close(self) -> None:
            pass

    told = Told()
    with JournalWriter.open(directory, fsync=False, hands_per_file=1) as writer:
        writer.housekeeping = told
        for n in range(9):
            writer.append(*table_record(n))
    assert told.rotations == 2
    assert os.path.exists(directory / file_name(1))
