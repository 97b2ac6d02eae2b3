"""The journal's files on disk: their names, the writer's lock, durable writes, torn tails
set aside, and the errors that name what is wrong and where.

A journal is a directory of ``journal-000001.jsonl``, ``journal-000002.jsonl``, ...
numbered from 1 without gaps (``file_name``, ``journal_files``); a rotated file may be
compressed to ``journal-000001.jsonl.zst`` (controller/journal/compress.py), read as the plain
one (``open_journal_file``); one writer at a time holds the directory's lock
(``lock_for_writing``). A torn last line is moved to
``<file>.<offset>.torn`` and cut off the file (``set_aside``). The reader that checks
the chain is ``controller.journal.ondisk``; the writer, ``controller.journal.writer``.
"""

from __future__ import annotations

import errno
import fcntl
import io
import json
import os
import re
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import zstandard

_FILE_RE: Final = re.compile(r"journal-(\d{6})\.jsonl(\.zst)?")
#: Where retention notes the journal's first remaining record once it deleted the oldest files
#: (``RetentionAnchor``); beside the files, never matching their names.
RETENTION_FILE: Final = "journal-retention.json"
#: A rotated file compressed (controller/journal/compress.py): Zstandard.
COMPRESSED_SUFFIX: Final = ".zst"
#: A Zstandard frame header's most bytes (ZSTD_FRAMEHEADERSIZE_MAX): where its content size is.
_FRAME_HEADER_MAX: Final = 18
#: How much of a compressed file is decompressed at a time as it is read.
_READ_BUFFER: Final = 1 << 20
_TORN_SUFFIX: Final = ".torn"


#: The most bytes a writer with fsync on has written past its last completed fsync
#: (``JournalWriter`` keeps to it: an unsynced decision and the record being written, a long
#: record in pieces). A power cut can leave NUL bytes only there (the file's size reached the
#: disk, its data blocks did not), so a longer NUL run at the journal's end may hide records
#: that were fsynced and acknowledged: the start refuses it (docs/journal.md, Torn tails).
MAX_UNSYNCED_BYTES: Final = 8 * 1024


class JournalError(Exception):
    """The journal is not intact: names the file, the line, the seq and what was expected.

    ``whole_journal``: the problem is the journal's, not one file's (its directory, its lock,
    the writer); ``file`` is then the directory, named by its full path.
    """

    def __init__(
        self,
        file: Path,
        line: int | None,
        seq: int | None,
        reason: str,
        *,
        whole_journal: bool = False,
    ) -> None:
        if whole_journal:
            where = f"journal {file}"
        else:
            where = file.name if line is None else f"{file.name}:{line}"
        at = "" if seq is None else f" (seq {seq})"
        super().__init__(f"{where}{at}: {reason}")
        self.file = file
        self.line = line
        self.seq = seq
        self.reason = reason
        self.whole_journal = whole_journal

    def in_full(self) -> str:
        """The message with the journal's full path first, for a message outside the journal's
        own tools (``tablectl run``): ``journal /var/lib/tablectl/journal: journal-000003...``."""
        return str(self) if self.whole_journal else f"journal {self.file.parent}: {self}"


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


def file_number(path: Path) -> int:
    """The number of the journal file ``path`` (plain or compressed)."""
    match = _FILE_RE.fullmatch(path.name)
    if match is None:
        raise ValueError(f"{path.name} is not a journal file's name (journal-NNNNNN.jsonl)")
    return int(match.group(1))


def compressed_name(number: int) -> str:
    """The name of the journal's ``number``-th file once compressed."""
    return file_name(number) + COMPRESSED_SUFFIX


def is_compressed(path: Path) -> bool:
    """Whether ``path`` is a compressed journal file (read it with ``open_journal_file``)."""
    return path.name.endswith(COMPRESSED_SUFFIX)


def journal_files(directory: Path) -> list[tuple[int, Path]]:
    """The journal's files with their numbers, in order; the reader checks there are no gaps.

    A file found both plain and compressed (a crash after the compressed copy's rename, before
    the plain file's removal: both are whole) is given plain; the compressor removes it later.
    """
    if not directory.is_dir():
        raise FileNotFoundError(f"journal directory {str(directory)!r} does not exist")
    found: dict[int, Path] = {}
    for name in os.listdir(directory):
        if (match := _FILE_RE.fullmatch(name)) is None:
            continue
        number = int(match.group(1))
        if match.group(2) is None or number not in found:
            found[number] = directory / name
    return sorted(found.items())


@dataclass(frozen=True, slots=True)
class RetentionAnchor:
    """The first record of a file whose predecessors retention deleted
    (controller/journal/retention.py): a reader begins the chain there, at the journal's first
    remaining file, only if an anchor names that file and its first record's hash, so a file
    deleted otherwise is still a gap (docs/journal.md, Retention)."""

    file: int
    seq: int
    hash: str
    #: The journal's id, the hash of its seq 1 (controller/forwarder/subjects.py), deleted with it.
    journal: str


def retention_anchors(directory: Path) -> list[RetentionAnchor]:
    """The anchors retention noted in ``directory``, oldest first; none if it deleted nothing."""
    path = directory / RETENTION_FILE
    try:
        data = json.loads(path.read_bytes())
        if data.get("version") != 1:
            raise ValueError(f"version {data.get('version')!r}, expected 1")
        return [
            RetentionAnchor(int(e["file"]), int(e["seq"]), str(e["hash"]), str(data["journal"]))
            for e in data["anchors"]
        ]
    except FileNotFoundError:
        return []
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise JournalError(
            path, None, None, f"unreadable ({error}); expected the JSON retention writes"
        ) from None


def add_retention_anchor(directory: Path, anchor: RetentionAnchor, *, fsync: bool = True) -> None:
    """Note ``anchor`` beside those before it, atomically (a temporary file, fsynced, renamed,
    the folder fsynced): retention does it before it deletes the file before the anchor's, so
    a crash between the two leaves a journal every reader still begins (at the older anchor)."""
    anchors = [a for a in retention_anchors(directory) if a.file != anchor.file] + [anchor]
    body = {
        "version": 1,
        "journal": anchor.journal,
        "anchors": [{"file": a.file, "seq": a.seq, "hash": a.hash} for a in anchors],
    }
    temporary = directory / (RETENTION_FILE + ".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        write_all(descriptor, json.dumps(body, sort_keys=True).encode() + b"\n")
        if fsync:
            os.fsync(descriptor)
    finally:
        os.close(descriptor)
    os.replace(temporary, directory / RETENTION_FILE)
    if fsync:
        fsync_directory(directory)


def find_file(directory: Path, number: int) -> Path | None:
    """The journal's ``number``-th file, plain or else compressed; None if neither exists."""
    for name in (file_name(number), compressed_name(number)):
        if (directory / name).exists():
            return directory / name
    return None


def open_journal_file(path: Path) -> io.BufferedIOBase:
    """A journal file open for reading, its lines as written whether it is compressed or not."""
    if is_compressed(path):
        return _decompressing(path)
    try:
        return path.open("rb")
    except FileNotFoundError:
        # Listed plain, then compressed by the controller before it was opened: the same lines.
        compressed = path.with_name(path.name + COMPRESSED_SUFFIX)
        if not compressed.exists():
            raise
        return _decompressing(compressed)


def _decompressing(path: Path) -> io.BufferedIOBase:
    """A compressed file's lines, decompressed as they are read (a buffered reader gives
    them line by line; the stream checks the frame's checksum at its end). The buffer is large:
    with io's 8 KiB, the calls into the decompressor cost verify a tenth of its speed
    (docs/performance.md, Journal size)."""
    raw = zstandard.ZstdDecompressor().stream_reader(path.open("rb"), closefd=True)
    return io.BufferedReader(raw, buffer_size=_READ_BUFFER)


def plain_size(path: Path) -> int:
    """The bytes a journal file holds as written (for progress): a compressed file's from its
    frame header (the compressor writes the content's size there)."""
    if not is_compressed(path):
        return path.stat().st_size
    with path.open("rb") as stream:
        size = zstandard.frame_content_size(stream.read(_FRAME_HEADER_MAX))
    return max(0, size)  # -1: not recorded


def read_journal_file(path: Path) -> bytes:
    """A journal file's bytes as written, whether it is compressed or not."""
    with open_journal_file(path) as stream:
        return stream.read()


def torn_files(directory: Path) -> list[Path]:
    """Torn tails set aside earlier, beside the files they were cut from."""
    return sorted(directory.glob(f"journal-*.jsonl.*{_TORN_SUFFIX}"))


def set_aside(torn: TornTail, *, fsync: bool = True) -> Path:
    """Move the torn bytes to ``<file>.<offset>.torn`` and cut them off the file, both fsynced.

    Safe to repeat after a crash part-way: the ``.torn`` file is rewritten
    with the same bytes, and the cut happens only once they are on disk.
    If saving them fails (a full disk), no ``.torn`` file is left and the journal
    file is unchanged. ``fsync=False`` is for tests and benchmarks, as for the writer.
    """
    target = torn.file.with_name(f"{torn.file.name}.{torn.offset}{_TORN_SUFFIX}")
    try:
        descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            write_all(descriptor, torn.content)
            if fsync:
                os.fsync(descriptor)
        finally:
            os.close(descriptor)
        if fsync:
            fsync_directory(torn.file.parent)
    except OSError:
        # The bytes are still in the journal file: a partial copy would only mislead.
        with suppress(OSError):
            target.unlink()
        raise
    descriptor = os.open(torn.file, os.O_WRONLY)
    try:
        os.ftruncate(descriptor, torn.offset)
        if fsync:
            os.fsync(descriptor)
    finally:
        os.close(descriptor)
    return target


def write_all(descriptor: int, data: bytes | memoryview) -> None:
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
            directory,
            None,
            None,
            "the journal is already open for writing by another writer; stop the other "
            "tablectl run on this journal (one per table), or give this table its own "
            "[journal] dir",
            whole_journal=True,
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


#: What a technician does about a file system error at start, by errno.
_WHAT_TO_DO: Final = {
    errno.EROFS: "the file system is mounted read-only: remount it read-write (one that turned "
    "read-only after errors needs its disk checked first), or set [journal] dir to a "
    "writable directory",
    errno.ENOSPC: "the disk is full: free space on it (never by deleting journal files), then "
    "start the table again",
    errno.EDQUOT: "the user's disk quota is used up: raise it or free space (never by deleting "
    "journal files), then start the table again",
    errno.EACCES: "the user running tablectl may not write there: give the user tablectl write "
    "access to the directory and its files (docs/deploy.md), or set [journal] dir",
    errno.EPERM: "the file or directory may not be written (its permissions, or an immutable "
    "attribute: lsattr): give the user tablectl write access (docs/deploy.md), or set "
    "[journal] dir",
    errno.ENOTDIR: "a part of the path is a file, not a directory: set [journal] dir to a "
    "directory",
    errno.ENOENT: "a directory on the path does not exist and cannot be created: create it, or "
    "set [journal] dir to a path under a writable directory",
    errno.EIO: "the disk reported an I/O error: check it (dmesg, smartctl) before starting again",
}


def unusable(directory: Path, error: OSError) -> JournalError:
    """A file system error met opening the journal in ``directory``, as one line: the full
    path, the system's reason, the file it concerns if another, and what to do."""
    reason = error.strerror or str(error)
    if error.filename is not None and Path(os.fsdecode(error.filename)) != directory:
        reason = f"{reason}: {os.fsdecode(error.filename)}"
    todo = _WHAT_TO_DO.get(error.errno or 0, "check the directory, its permissions and its disk")
    return JournalError(directory, None, None, f"{reason}; {todo}", whole_journal=True)
