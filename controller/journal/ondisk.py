"""The journal on disk, read: the reader that checks the chain, and the tail a writer resumes.

A journal is a directory of ``journal-000001.jsonl``, ``journal-000002.jsonl``,
... numbered from 1 without gaps; the chain runs through them in that order.
Only the last line of the last file may be torn (a power cut mid-write); it is
reported, never taken for a record, and ``controller.journal.files.set_aside``
moves it away. ``JournalReader`` reads every record from the first; ``read_tail``
reads the last file backwards to where a writer resumes.
"""

from __future__ import annotations

import io
import os
from collections.abc import Generator, Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from controller.journal.files import (
    MAX_UNSYNCED_BYTES,
    JournalError,
    Position,
    RetentionAnchor,
    TornTail,
    file_name,
    is_compressed,
    journal_files,
    open_journal_file,
    read_journal_file,
    retention_anchors,
)
from controller.journal.record import GENESIS, Record, RecordError, is_line_start, parse_line

#: How much of a file ``read_tail`` reads at a time, from its end backwards.
_CHUNK: Final = 64 * 1024


class JournalReader:
    """Reads a journal's records in order across its files, checking every link of the chain.

    Iterating yields each record once it is checked; a bad record raises
    JournalError. After iteration, ``torn`` holds the torn tail if there was
    one, ``last`` the last intact record, and ``position`` where it was.
    Iteration is lazy so a progress bar can wrap it.

    A journal whose oldest files were deleted by retention (controller/journal/retention.py)
    starts at a later file: its first remaining record, the one the retention anchor
    (``files.RetentionAnchor``) names, begins the chain (its own hash is checked against the
    anchor's, its link to the deleted record before it cannot be); ``anchor`` is then that
    anchor (docs/journal.md, Retention).
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.files: list[Path] = []
        self.torn: TornTail | None = None
        self.last: Record | None = None
        self.position: Position | None = None
        #: Where the chain begins once retention deleted the oldest files; None: at seq 1.
        self.anchor: RetentionAnchor | None = None

    def __iter__(self) -> Iterator[Record]:
        self.files, self.torn, self.last, self.position = [], None, None, None
        numbered = journal_files(self.directory)
        self.anchor = first_anchor(self.directory, numbered)
        first = 1 if self.anchor is None else self.anchor.file
        for expected, (number, path) in enumerate(numbered, start=first):
            _check_number(path, number, expected)
            self.files.append(path)
            is_last_file = path == numbered[-1][1]
            records = yield from self._read_file(path, is_last_file=is_last_file)
            if not is_last_file and records == 0:
                raise JournalError(
                    path, None, None, "the file holds no record but is not the last file"
                )

    def _read_file(self, path: Path, *, is_last_file: bool) -> Generator[Record, None, int]:
        """Yield the file's records; return how many there were."""
        offset = records = 0
        with open_journal_file(path) as stream:
            for number, raw in enumerate(stream, start=1):
                expected, prev = self._follows()
                if is_last_file and not raw.endswith(b"\n"):  # the last line of the last file
                    self.torn = _torn_tail(path, number, offset, raw, self.last)
                    return records
                try:
                    record = _parse_raw(raw)
                except RecordError as error:
                    raise JournalError(path, number, expected, str(error)) from None
                problem = link_problem(record, expected, prev)
                if problem is None and self.last is None:
                    problem = _anchor_problem(record, self.anchor)
                if problem is not None:
                    raise JournalError(path, number, expected, problem)
                offset += len(raw)
                self.last = record
                self.position = Position(path, number, offset)
                records += 1
                yield record
        return records

    def _follows(self) -> tuple[int, str]:
        """The seq and prev the next record must have (from the genesis at the start, or from
        the retention anchor's record, whose hash ``_anchor_problem`` checks)."""
        if self.last is not None:
            return self.last.seq + 1, self.last.hash
        return (1, GENESIS) if self.anchor is None else (self.anchor.seq, "")


def first_anchor(directory: Path, numbered: list[tuple[int, Path]]) -> RetentionAnchor | None:
    """The retention anchor if the journal begins at the file it names; None if it begins at
    file 1. A later first file without that anchor is a gap (``_check_number`` names it)."""
    if not numbered or numbered[0][0] == 1:
        return None
    first = numbered[0][0]
    return next((a for a in retention_anchors(directory) if a.file == first), None)


def _parse_raw(raw: bytes) -> Record:
    """The record of one line as read from a file, newline included."""
    if not raw.endswith(b"\n"):
        raise RecordError("no newline at the end: the write did not finish")
    return parse_line(raw[:-1])


def torn_reason(raw: bytes, offset: int, seq: int, prev: str) -> str:
    """Why ``raw``, the last line of the last file without its newline, is a torn tail: what
    a power cut can leave of a record that was never acknowledged. Otherwise a RecordError
    says what is wrong: the line may have held acknowledged records (docs/journal.md, Torn
    tails). ``offset`` is where the line starts in its file; ``seq`` and ``prev`` are those of
    the record the writer was writing.

    Torn: the start of that record as the writer writes it, cut short; NUL bytes (the file's
    size reached the disk, its data blocks did not), no more than the writer leaves written
    past its last fsync (``MAX_UNSYNCED_BYTES``); or such a start followed by such NULs.
    A line ending with a newline was written whole and is never torn.
    """
    body = raw.rstrip(b"\0")
    zeros = len(raw) - len(body)
    if zeros > MAX_UNSYNCED_BYTES:
        raise RecordError(
            f"{zeros} NUL bytes from offset {offset + len(body)} to the end of the journal, "
            f"more than the {MAX_UNSYNCED_BYTES} a power cut can leave past the writer's last "
            "fsync: they may hide acknowledged records (the file was zeroed or damaged, or "
            "written with fsync off)"
        )
    if body and not is_line_start(body, seq, prev):
        raise RecordError(
            f"an unfinished last line of {len(raw)} bytes at offset {offset} that is not the "
            f"start of record {seq} as the writer writes it: damage, not a cut-short write"
        )
    nul_note = (
        f"{zeros} NUL bytes: the file's size reached the disk but its data did not, "
        "a power cut before the fsync"
    )
    if not body:
        return nul_note
    cut = f"the start of record {seq}, no newline at the end: the write did not finish"
    return cut if not zeros else f"{cut}; then {nul_note}"


def _torn_tail(path: Path, number: int, offset: int, raw: bytes, last: Record | None) -> TornTail:
    """The unfinished last line ``raw`` (line ``number`` of ``path``, at ``offset``) after
    ``last``, as a torn tail; JournalError if it could hold acknowledged records."""
    seq, prev = (1, GENESIS) if last is None else (last.seq + 1, last.hash)
    try:
        reason = torn_reason(raw, offset, seq, prev)
    except RecordError as error:
        raise JournalError(path, number, seq, str(error)) from None
    return TornTail(path, number, offset, raw, seq - 1, reason)


def link_problem(record: Record, seq: int, prev: str) -> str | None:
    """What is wrong with ``record`` as the record ``seq`` following the one whose hash is
    ``prev`` (the genesis value for the first), or None. An empty ``prev``: the record is the
    retention anchor's, ``_anchor_problem`` checks it."""
    if record.seq != seq:
        return (
            f"found seq {record.seq}, expected seq {seq} "
            "(a record is missing, records were reordered, or this seq was changed)"
        )
    if prev and record.prev != prev:
        before = "the genesis value" if seq == 1 else f"the hash of seq {seq - 1}"
        return f"prev is {record.prev}, expected {prev} ({before}): the chain is broken"
    return None


def _anchor_problem(record: Record, anchor: RetentionAnchor | None) -> str | None:
    """What is wrong with the journal's first remaining record as the retention anchor's."""
    if anchor is None or record.hash == anchor.hash:
        return None
    return (
        f"hash is {record.hash}, but retention noted {anchor.hash} for the first remaining "
        "record (journal-retention.json): the journal's first files were changed"
    )


def _check_number(path: Path, number: int, expected: int) -> None:
    if number != expected:
        raise JournalError(
            path,
            None,
            None,
            f"{file_name(expected)} is missing before it; the files must be numbered "
            "1, 2, 3, ... without gaps (a deleted or renamed file breaks the chain)",
        )


@dataclass(frozen=True, slots=True)
class Tail:
    """What a start needs of a journal, read from its end (:func:`read_tail`)."""

    files: tuple[Path, ...]
    #: From the last record of the resume kind on (every record if there is none).
    records: tuple[Record, ...]
    #: The records of the last file (the writer counts the hands in it).
    current: tuple[Record, ...]
    last: Record | None
    torn: TornTail | None
    #: Records checked: the span (the last file whole, or from the resume record on if it is
    #: in an earlier file) and the one record before it.
    checked: int


@dataclass(frozen=True, slots=True)
class _Found:
    """A record read, and where: ``offset`` is where its line starts in ``file``."""

    file: Path
    offset: int
    record: Record


def read_tail(directory: Path, resume_kind: str) -> Tail:
    """The journal's end, checked: what a start reads instead of the whole chain.

    Checks (docs/journal.md, What a start checks): the files are numbered without gaps and none
    but the last is empty; every record of the **last file** (a torn last line is
    reported in ``torn``, as by :class:`JournalReader`); if the last file holds no
    record of ``resume_kind``, every record from the last one in an earlier file on
    (read backwards from that file's end); every link between these records; and the
    link from the first of them to the record just before it, which is read too and
    checked for its own form and hash (or, at the journal's first record, the genesis
    value). What lies before is left to ``verify``, which checks the whole chain.
    Reads only the end of the journal, so a start costs the same at any journal age.
    """
    numbered = journal_files(directory)
    anchor = first_anchor(directory, numbered)
    for expected, (number, path) in enumerate(numbered, start=1 if anchor is None else anchor.file):
        _check_number(path, number, expected)
    files = [path for _, path in numbered]
    for path in files[:-1]:
        if path.stat().st_size == 0:
            raise JournalError(
                path, None, None, "the file holds no record but is not the last file"
            )
    if not files:
        return Tail((), (), (), None, None, 0)
    span, unfinished = _read_last_file(files[-1])
    before: _Found | None = None
    if not any(found.record.kind == resume_kind for found in span):
        span, before = _back_to(files, resume_kind, span)
    elif len(files) > 1:
        before = _last_of(files[-2], span[0].record.seq)  # span holds a resume record
    _check_links(span, before, anchor)
    last = span[-1].record if span else None
    torn = None
    if unfinished is not None:
        offset, number, content = unfinished
        torn = _torn_tail(files[-1], number, offset, content, last)
    start = max((i for i, found in enumerate(span) if found.record.kind == resume_kind), default=0)
    return Tail(
        files=tuple(files),
        records=tuple(found.record for found in span[start:]),
        current=tuple(found.record for found in span if found.file == files[-1]),
        last=last,
        torn=torn,
        checked=len(span) + (before is not None),
    )


def _read_last_file(
    path: Path,
) -> tuple[list[_Found], tuple[int, int, bytes] | None]:
    """Every record of the last file, and its unfinished last line (offset, line, bytes) for
    ``read_tail`` to judge once it knows the record before it (``torn_reason``)."""
    found: list[_Found] = []
    offset = 0
    with open_journal_file(path) as stream:
        for number, raw in enumerate(stream, start=1):
            if not raw.endswith(b"\n"):  # only the last line can lack its newline
                return found, (offset, number, raw)
            try:
                record = _parse_raw(raw)
            except RecordError as error:
                seq = found[-1].record.seq + 1 if found else None
                raise JournalError(path, number, seq, str(error)) from None
            found.append(_Found(path, offset, record))
            offset += len(raw)
    return found, None


def _back_to(
    files: list[Path], resume_kind: str, span: list[_Found]
) -> tuple[list[_Found], _Found | None]:
    """``span`` extended backwards through the earlier files to the last record of
    ``resume_kind``, and the record before it (None at the journal's start)."""
    earlier: list[_Found] = []
    for index in range(len(files) - 2, -1, -1):
        first = earlier[-1] if earlier else (span[0] if span else None)
        after = None if first is None else first.record.seq
        with closing(_records_backwards(files[index], after)) as records:
            for found in records:
                earlier.append(found)
                if found.record.kind == resume_kind:
                    before = next(records, None)
                    if before is None and index > 0:
                        before = _last_of(files[index - 1], found.record.seq)
                    return earlier[::-1] + span, before
    return earlier[::-1] + span, None


def _last_of(path: Path, after: int | None) -> _Found:
    """The last record of an earlier file, checked alone (its form and its own hash);
    ``after`` is the seq of the record that follows it, if known (for the error)."""
    with closing(_records_backwards(path, after)) as records:
        found = next(records, None)
    if found is None:  # read_tail checked that no earlier file is empty
        raise JournalError(path, None, None, "the file holds no record but is not the last file")
    return found


def _records_backwards(path: Path, after: int | None) -> Generator[_Found, None, None]:
    """An earlier file's records from its last to its first, each checked alone; ``after``
    is the seq of the record that follows the file's last, if known (for errors)."""
    with closing(_lines_backwards(path)) as lines:
        for offset, raw in lines:
            try:
                if not raw.endswith(b"\n"):
                    raise RecordError("no newline at the end, and this is not the last file")
                record = parse_line(raw[:-1])
            except RecordError as error:
                seq = None if after is None else after - 1
                raise JournalError(path, _line_at(path, offset), seq, str(error)) from None
            after = record.seq
            yield _Found(path, offset, record)


def _lines_backwards(path: Path) -> Generator[tuple[int, bytes], None, None]:
    """The file's lines, newline included, from the last to the first, each with its offset.
    A compressed file is read whole first (a compressed stream cannot be read backwards; a rotated
    file is at most ``max_bytes`` and some)."""
    opened = io.BytesIO(read_journal_file(path)) if is_compressed(path) else open_journal_file(path)
    with opened as stream:
        start = stream.seek(0, os.SEEK_END)
        buffer = b""
        while True:
            # The buffer's last line is whole once a newline before it is in the buffer.
            cut = buffer.rfind(b"\n", 0, len(buffer) - 1)
            if cut >= 0:
                yield start + cut + 1, buffer[cut + 1 :]
                buffer = buffer[: cut + 1]
            elif start == 0:
                if buffer:
                    yield 0, buffer
                return
            else:
                size = min(_CHUNK, start)
                start -= size
                stream.seek(start)
                buffer = stream.read(size) + buffer


def _line_at(path: Path, offset: int) -> int:
    """The line number (from 1) of the line that starts at ``offset``: for error messages."""
    with open_journal_file(path) as stream:
        return stream.read(offset).count(b"\n") + 1


def _check_links(span: list[_Found], before: _Found | None, anchor: RetentionAnchor | None) -> None:
    """Each record follows the one before it: ``before`` for the first, or the genesis (or,
    the journal's oldest files deleted, the retention ``anchor``'s record, as
    ``JournalReader`` takes it)."""
    seq, prev = (0, GENESIS) if before is None else (before.record.seq, before.record.hash)
    if before is None and anchor is not None and span:
        problem = (
            _anchor_problem(span[0].record, anchor)
            if span[0].record.seq == anchor.seq
            else (f"found seq {span[0].record.seq}, but retention noted seq {anchor.seq} first")
        )
        if problem is not None:
            found = span[0]
            raise JournalError(found.file, _line_at(found.file, found.offset), anchor.seq, problem)
        seq, prev = anchor.seq - 1, span[0].record.prev  # its own link cannot be checked
    for found in span:
        problem = link_problem(found.record, seq + 1, prev)
        if problem is not None:
            raise JournalError(found.file, _line_at(found.file, found.offset), seq + 1, problem)
        seq, prev = found.record.seq, found.record.hash
