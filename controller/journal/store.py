"""The journal on disk: its files, the reader that checks the chain, and torn tails.

A journal is a directory of ``journal-000001.jsonl``, ``journal-000002.jsonl``,
... numbered from 1 without gaps; the chain runs through them in that order.
Only the last line of the last file may be torn (a power cut mid-write); it is
reported, never taken for a record, and :func:`set_aside` moves it away.
"""

from __future__ import annotations

import fcntl
import os
import re
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from controller.journal.record import GENESIS, Record, RecordError, UnparsableError, parse_line

_FILE_RE: Final = re.compile(r"journal-(\d{6})\.jsonl")
_TORN_SUFFIX: Final = ".torn"


class JournalError(Exception):
    """The journal is not intact: names the file, the line, the seq and what was expected."""

    def __init__(self, file: Path, line: int | None, seq: int | None, reason: str) -> None:
        where = file.name if line is None else f"{file.name}:{line}"
        at = "" if seq is None else f" (seq {seq})"
        super().__init__(f"{where}{at}: {reason}")
        self.file = file
        self.line = line
        self.seq = seq
        self.reason = reason


@dataclass(frozen=True, slots=True)
class TornTail:
    """The unfinished last line of the last file: never a record, never acknowledged."""

    file: Path
    line: int
    offset: int  #: where the torn bytes start; the file is intact up to here
    content: bytes
    after_seq: int  #: the last intact record's seq (0 if none)
    reason: str

    def describe(self) -> str:
        """One line for an operator: where, how long, why, and what came before."""
        return (
            f"{self.file.name}:{self.line}: torn last record, {len(self.content)} bytes at offset "
            f"{self.offset} after seq {self.after_seq} ({self.reason})"
        )


@dataclass(frozen=True, slots=True)
class Position:
    """Where the reader found a record."""

    file: Path
    line: int
    end: int  #: byte offset just past the record's newline (for progress by bytes)


def file_name(number: int) -> str:
    """The name of the journal's ``number``-th file; zero-padded so names sort in order."""
    if not 1 <= number <= 999_999:
        raise ValueError(f"journal file number {number} is out of range; expected 1..999999")
    return f"journal-{number:06d}.jsonl"


def journal_files(directory: Path) -> list[tuple[int, Path]]:
    """The journal's files with their numbers, in order; the reader checks there are no gaps."""
    if not directory.is_dir():
        raise FileNotFoundError(f"journal directory {str(directory)!r} does not exist")
    return sorted(
        (int(match.group(1)), directory / name)
        for name in os.listdir(directory)
        if (match := _FILE_RE.fullmatch(name))
    )


def torn_files(directory: Path) -> list[Path]:
    """Torn tails set aside earlier, beside the files they were cut from."""
    return sorted(directory.glob(f"journal-*.jsonl.*{_TORN_SUFFIX}"))


class JournalReader:
    """Reads a journal's records in order across its files, checking every link of the chain.

    Iterating yields each record once it is checked; a bad record raises
    JournalError. After iteration, ``torn`` holds the torn tail if there was
    one, ``last`` the last intact record, and ``position`` where it was.
    Iteration is lazy so a progress bar can wrap it.
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.files: list[Path] = []
        self.torn: TornTail | None = None
        self.last: Record | None = None
        self.position: Position | None = None

    def __iter__(self) -> Iterator[Record]:
        self.files, self.torn, self.last, self.position = [], None, None, None
        numbered = journal_files(self.directory)
        for expected, (number, path) in enumerate(numbered, start=1):
            if number != expected:
                raise JournalError(
                    path,
                    None,
                    None,
                    f"{file_name(expected)} is missing before it; the files must be numbered "
                    "1, 2, 3, ... without gaps (a deleted or renamed file breaks the chain)",
                )
            self.files.append(path)
            is_last_file = expected == len(numbered)
            records = yield from self._read_file(path, is_last_file=is_last_file)
            if not is_last_file and records == 0:
                raise JournalError(
                    path, None, None, "the file holds no record but is not the last file"
                )

    def _read_file(self, path: Path, *, is_last_file: bool) -> Generator[Record, None, int]:
        """Yield the file's records; return how many there were."""
        offset = records = 0
        with path.open("rb") as stream:
            for number, raw in enumerate(stream, start=1):
                complete = raw.endswith(b"\n")
                content = raw[:-1] if complete else raw
                is_final = is_last_file and not stream.peek(1)
                expected = 1 if self.last is None else self.last.seq + 1
                try:
                    if not complete:
                        raise RecordError("no newline at the end: the write did not finish")
                    record = parse_line(content)
                except RecordError as error:
                    # A power cut leaves a line unfinished or unreadable; a whole line that
                    # reads as JSON but fails the checks was written so: an edit, not torn.
                    if is_final and (not complete or isinstance(error, UnparsableError)):
                        self.torn = TornTail(path, number, offset, raw, expected - 1, str(error))
                        return records
                    raise JournalError(path, number, expected, str(error)) from None
                self._check_link(record, path, number, expected)
                offset += len(raw)
                self.last = record
                self.position = Position(path, number, offset)
                records += 1
                yield record
        return records

    def _check_link(self, record: Record, path: Path, number: int, expected: int) -> None:
        if record.seq != expected:
            raise JournalError(
                path,
                number,
                expected,
                f"found seq {record.seq}, expected seq {expected} "
                "(a record is missing, records were reordered, or this seq was changed)",
            )
        prev = GENESIS if self.last is None else self.last.hash
        if record.prev != prev:
            before = "the genesis value" if self.last is None else f"the hash of seq {expected - 1}"
            raise JournalError(
                path,
                number,
                expected,
                f"prev is {record.prev}, expected {prev} ({before}): the chain is broken",
            )


def set_aside(torn: TornTail, *, fsync: bool = True) -> Path:
    """Move the torn bytes to ``<file>.<offset>.torn`` and cut them off the file, both fsynced.

    Safe to repeat after a crash part-way: the ``.torn`` file is rewritten
    with the same bytes, and the cut happens only once they are on disk.
    ``fsync=False`` is for tests and benchmarks, as for the writer.
    """
    target = torn.file.with_name(f"{torn.file.name}.{torn.offset}{_TORN_SUFFIX}")
    descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        write_all(descriptor, torn.content)
        if fsync:
            os.fsync(descriptor)
    finally:
        os.close(descriptor)
    if fsync:
        fsync_directory(torn.file.parent)
    descriptor = os.open(torn.file, os.O_WRONLY)
    try:
        os.ftruncate(descriptor, torn.offset)
        if fsync:
            os.fsync(descriptor)
    finally:
        os.close(descriptor)
    return target


def write_all(descriptor: int, data: bytes) -> None:
    """Write every byte of ``data``: ``os.write`` may write fewer than asked."""
    view = memoryview(data)
    while view:
        written = os.write(descriptor, view)
        view = view[written:]


def fsync_directory(directory: Path) -> None:
    """fsync a directory so a file created, renamed or removed in it survives a power cut."""
    descriptor = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def lock_for_writing(directory: Path) -> int:
    """Take the directory's exclusive lock (held while the descriptor is open), or refuse."""
    descriptor = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(descriptor)
        raise JournalError(
            directory, None, None, "the journal is already open for writing by another writer"
        ) from None
    return descriptor


def held_by_writer(directory: Path) -> bool:
    """True if a writer has the journal open now (it may append while it is read)."""
    descriptor = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(descriptor)  # closing releases the shared lock if it was taken
    return False
