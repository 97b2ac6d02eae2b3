"""Following a journal as its writer writes it (docs/floor.md, The forwarder): every complete
line, with its record, in seq order, across rotation, checking the chain as it goes.

The follower only reads: it takes no lock (the writer holds the journal's, and a reader never
needs it), opens each file read-only and reads by offset, so it sees a line the moment the
writer's ``write`` returns. A line without its newline is being written (or was torn by a
crash and is set aside by the writer's next start): it is not a record yet, and the follower
waits at the offset where it starts. A record that does not verify (its own hash, its seq, the
link to the record before) stops the follower with a ``JournalError`` naming the file, the
line and the seq: a forwarder never sends a record its own journal does not verify.

``Follower.available()`` returns what has been written since the last call and never waits,
so the asyncio forwarder sleeps between calls on its own clock; ``follow`` is the same as a
generator for a caller that waits in its own way (``wait``, which a test controls).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from controller.journal import GENESIS, JournalError, Record, RecordError
from controller.journal.files import (
    COMPRESSED_SUFFIX,
    RetentionAnchor,
    file_name,
    find_file,
    is_compressed,
    journal_files,
    open_journal_file,
    read_journal_file,
    retention_anchors,
)
from controller.journal.record import parse_line

#: How much of a file one read takes; a longer line is read in more pieces.
CHUNK: Final = 1 << 20


@dataclass(frozen=True, slots=True)
class Line:
    """One record of the journal as it is on disk: ``raw`` is its line's exact bytes without
    the newline (what the forwarder publishes), ``record`` the record parsed and checked."""

    record: Record
    raw: bytes
    file: Path
    number: int  #: the line's number in its file, from 1


def journal_id(directory: Path) -> str | None:
    """The journal's id (subjects.py): the hash of its first record, read from
    ``journal-000001.jsonl`` (or, once retention deleted it, from the retention anchor);
    None while the journal holds no complete record yet."""
    path = find_file(directory, 1)
    if path is None:
        anchors = retention_anchors(directory)
        return anchors[0].journal if anchors else None
    try:
        with open_journal_file(path) as stream:
            first = stream.readline(CHUNK * 64)
    except FileNotFoundError:
        return None
    if not first.endswith(b"\n"):
        return None
    record = _parse(path, 1, 1, first[:-1])
    if record.seq != 1 or record.prev != GENESIS:
        raise JournalError(
            path,
            1,
            1,
            f"the first record is seq {record.seq} after {record.prev}; expected "
            "seq 1 after the genesis value (the journal's first file was replaced)",
        )
    return record.hash


class Follower:
    """Reads the journal in ``directory`` from the record after ``after`` (None: from seq 1).

    ``after`` is the last record the floor already holds (the forwarder reads it from the
    stream): the follower checks that the journal's record of that seq is the same record
    (same hash) and that the next one links to it, so a journal that is not the one the stream
    holds is never continued.
    """

    def __init__(self, directory: Path, after: Record | None = None) -> None:
        self.directory = directory
        self.after = after
        #: The last record read (checked), None before the first.
        self.last: Record | None = None
        self._number = 0  # the file being read (0: not found yet)
        self._fd: int | None = None
        self._offset = 0  # where the next line starts in the file being read
        self._line = 0  # lines read from the file being read
        #: The retention anchor the chain begins at, if the files before it were deleted.
        self._begin: RetentionAnchor | None = None

    def close(self) -> None:
        """Close the file being read."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def available(self, limit: int = 1000) -> list[Line]:
        """The records written since the last call, at most ``limit`` of them, in seq order;
        an empty list at the journal's end (the caller waits and asks again)."""
        found: list[Line] = []
        if self._fd is None and not self._open_start():
            return found
        while len(found) < limit:
            try:
                lines = self._read_lines(limit - len(found))
            except JournalError:
                if found:
                    break  # the records before it first; the next call raises it again
                raise
            if lines:
                found.extend(line for line in lines if self._wanted(line))
                continue
            if not self._next_file():
                break
        if not found:
            self._check_not_behind()
        return found

    def follow(self, wait: Callable[[], None]) -> Iterator[Line]:
        """Every record from the start point on, for ever; ``wait`` is called at the end of
        the journal before it is read again (it may raise to stop)."""
        try:
            while True:
                lines = self.available()
                if not lines:
                    wait()
                yield from lines
        finally:
            self.close()

    def _wanted(self, line: Line) -> bool:
        """Whether ``line`` is after the start point; the start point itself is checked."""
        if self.after is None or line.record.seq > self.after.seq:
            return True
        self._check_after(line.record, line.file, line.number)
        return False

    def _check_after(self, record: Record, file: Path, number: int | None) -> None:
        """The journal's record of the start point's seq must be the stream's."""
        assert self.after is not None
        if record.seq == self.after.seq and record.hash != self.after.hash:
            raise JournalError(
                file,
                number,
                record.seq,
                f"the floor's stream holds another record as seq {self.after.seq} (hash "
                f"{self.after.hash}, the journal's is {record.hash}): the journal is not "
                "the one the floor holds; nothing more is sent",
            )

    def _check_not_behind(self) -> None:
        """At the journal's end: the journal must hold the start point (the stream's last
        record was read from it, and the follower fsyncs what it hands on: it is not lost
        by a power cut, so a journal that ends before it lost records)."""
        if self.after is None or (self.last is not None and self.last.seq >= self.after.seq):
            return
        ends = "holds no record" if self.last is None else f"ends at seq {self.last.seq}"
        raise JournalError(
            self.directory,
            None,
            None,
            f"the floor's stream holds this journal up to seq {self.after.seq}, but the "
            f"journal {ends}: records were lost (a journal restored from an older copy?); "
            "nothing more is sent",
            whole_journal=True,
        )

    def _open_start(self) -> bool:
        """Open the file holding the start point's next record; False if there is none yet."""
        numbered = journal_files(self.directory)
        if not numbered:
            return False
        target = 1 if self.after is None else self.after.seq + 1
        start = numbered[0][0]
        for number, path in numbered:  # the last file whose first record is at most target
            first = _first_seq(path)
            if first is None or first > target:
                break
            start = number
        if start != 1:
            # The chain is checked from this file's first record: the link into it is checked
            # by the record before it, the last of the file before.
            before = find_file(self.directory, start - 1)
            if before is None:
                self._begin_at_anchor(start, target)
            else:
                self.last = _last_record(before)
                if self.after is not None:
                    self._check_after(self.last, before, None)
        self._open(start)
        return True

    def _begin_at_anchor(self, start: int, target: int) -> None:
        """Retention deleted the files before ``start``: the chain begins at the record its
        anchor names (docs/journal.md, Retention), if the floor needs nothing before it."""
        anchor = next((a for a in retention_anchors(self.directory) if a.file == start), None)
        if anchor is None or target < anchor.seq:
            raise JournalError(
                self.directory / file_name(start),
                None,
                target,
                f"seq {target} is in a file retention deleted (journal-retention.json): "
                "the floor has not got it and it cannot be sent",
            )
        self._begin = anchor

    def _open(self, number: int) -> None:
        self.close()
        path = find_file(self.directory, number)
        if path is None:
            raise FileNotFoundError(f"{file_name(number)} is gone from {self.directory}")
        self._fd = _open_plain(path)
        self._number, self._offset, self._line = number, 0, 0

    def _read_lines(self, limit: int) -> list[Line]:
        """The complete lines after the offset (at most ``limit``), checked, offset moved."""
        assert self._fd is not None  # opened by available
        data = os.pread(self._fd, CHUNK, self._offset)
        while data and b"\n" not in data and len(data) % CHUNK == 0:
            more = os.pread(self._fd, CHUNK, self._offset + len(data))
            if not more:
                break
            data += more
        lines: list[Line] = []
        start = 0
        path = self.directory / file_name(self._number)
        while len(lines) < limit:
            end = data.find(b"\n", start)
            if end < 0:
                break
            try:
                line = self._check(path, data[start:end], self._line + 1)
            except JournalError:
                if not lines:
                    raise
                break  # hand on the records before it; the next read stops at it
            self._line += 1
            lines.append(line)
            start = end + 1
        self._offset += start
        if lines:
            # What is handed on must survive a power cut: the writer fsyncs a record appended
            # with sync=False only later (docs/journal.md, Durability), and a record the floor
            # holds must never be lost from the journal and written again otherwise.
            os.fsync(self._fd)
        return lines

    def _check(self, path: Path, raw: bytes, number: int) -> Line:
        """The line ``number`` of ``path``, checked as the record after ``last``."""
        if self.last is None and self._begin is not None:
            return self._check_anchored(path, raw, number, self._begin)
        seq = 1 if self.last is None else self.last.seq + 1
        record = _parse(path, number, seq, raw)
        prev = GENESIS if self.last is None else self.last.hash
        if record.seq != seq:
            raise JournalError(path, number, seq, f"found seq {record.seq}, expected {seq}")
        if record.prev != prev:
            before = "the genesis value" if seq == 1 else f"the hash of seq {seq - 1}"
            raise JournalError(
                path,
                number,
                seq,
                f"prev is {record.prev}, expected {prev} ({before}): the chain is broken",
            )
        self.last = record
        return Line(record, raw, path, number)

    def _check_anchored(self, path: Path, raw: bytes, number: int, anchor: RetentionAnchor) -> Line:
        """The first remaining record, checked against its retention anchor (its link to the
        deleted record before it cannot be)."""
        record = _parse(path, number, anchor.seq, raw)
        if record.seq != anchor.seq or record.hash != anchor.hash:
            raise JournalError(
                path,
                number,
                anchor.seq,
                f"found seq {record.seq} hash {record.hash}; retention noted seq {anchor.seq} "
                f"hash {anchor.hash} first (journal-retention.json): the first files changed",
            )
        self.last = record
        return Line(record, raw, path, number)

    def _next_file(self) -> bool:
        """Move to the next file if the writer has begun it; False at the journal's end."""
        following = find_file(self.directory, self._number + 1)
        if following is None:
            return False
        # The writer begins the next file only after the last line of this one: read this
        # one's end once more, since that line may have come just before the check.
        assert self._fd is not None
        size = os.fstat(self._fd).st_size
        if size > self._offset:
            if b"\n" in os.pread(self._fd, size - self._offset, self._offset):
                return True  # more lines here: the caller reads them first
            raise JournalError(
                self.directory / file_name(self._number),
                self._line + 1,
                None if self.last is None else self.last.seq + 1,
                f"{size - self._offset} bytes without a newline at offset {self._offset}, but "
                f"{following.name} follows: only the last file's last line may be unfinished",
            )
        self._open(self._number + 1)
        return True


def _parse(path: Path, number: int | None, seq: int | None, raw: bytes) -> Record:
    try:
        return parse_line(raw)
    except RecordError as error:
        raise JournalError(path, number, seq, str(error)) from None


def _first_seq(path: Path) -> int | None:
    """The seq of the file's first record; None while it holds no complete line."""
    with open_journal_file(path) as stream:
        first = stream.readline(CHUNK * 64)
    if not first.endswith(b"\n"):
        return None
    return _parse(path, 1, None, first[:-1]).seq


def _open_plain(path: Path) -> int:
    """A descriptor reading the file's lines by offset: the file itself, or a compressed one
    decompressed into an unnamed temporary file (a rotated file, read once, then closed). The
    plain file the follower holds open stays readable after the compressor removes it."""
    if not is_compressed(path):
        try:
            return os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            path = path.with_name(path.name + COMPRESSED_SUFFIX)  # compressed since found
    with tempfile.TemporaryFile() as spill:
        spill.write(read_journal_file(path))
        spill.flush()
        return os.dup(spill.fileno())


def _last_record(path: Path) -> Record:
    """The last record of a file that is not the last (so it ends with a complete line)."""
    if is_compressed(path):
        tail = read_journal_file(path)
        start = tail.rfind(b"\n", 0, len(tail) - 1)
        if not tail.endswith(b"\n"):
            raise JournalError(path, None, None, "the file ends without a newline")
        return _parse(path, None, None, tail[start + 1 : -1])
    with path.open("rb") as stream:
        size = stream.seek(0, os.SEEK_END)
        back = min(size, CHUNK)
        while True:
            stream.seek(size - back)
            tail = stream.read(back)
            start = tail.rfind(b"\n", 0, len(tail) - 1)
            if start >= 0 or back == size:
                break
            back = min(size, back * 2)
    if not tail.endswith(b"\n"):
        raise JournalError(path, None, None, "the file ends without a newline but is not the last")
    return _parse(path, None, None, tail[start + 1 : -1])
