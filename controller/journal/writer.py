"""The journal writer: appends one record at a time, on disk before ``append`` returns.

The controller acknowledges a device sentence only after the record it caused
is appended, so an acknowledged card is never lost: with ``fsync=True`` (the
default) ``append`` returns only once the line is written and fsynced, and a
new file is fsynced into its directory before any record goes into it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Final, Protocol, Self

from controller.journal.files import (
    MAX_UNSYNCED_BYTES,
    JournalError,
    TornTail,
    file_name,
    file_number,
    fsync_directory,
    lock_for_writing,
    set_aside,
    unusable,
    write_all,
)
from controller.journal.ondisk import JournalReader, read_tail
from controller.journal.record import GENESIS, Record, make_record_line

Clock = Callable[[], datetime]
#: Fields a record gains from its own seq and prev as it is appended (``JournalWriter.append``).
Seal = Callable[[int, str], Mapping[str, object]]

DEFAULT_HANDS_PER_FILE: Final = 100
DEFAULT_MAX_BYTES: Final = 16 * 1024 * 1024
DEFAULT_HAND_START_KIND: Final = "hand_started"


class Housekeeping(Protocol):
    """What looks after the journal's finished files (controller/journal/keeper.py: compression
    and retention), told of each rotation and closed with the writer. It works off the append
    path: ``rotated`` only tells it, it must not do the work in the caller."""

    def rotated(self) -> None:
        """The writer has just begun a new file: the one before it is finished."""

    def close(self) -> None:
        """The writer is closing: finish or stop the work, leaving no thread behind."""


def utc_now() -> datetime:
    """The wall clock in UTC: the journal's default clock."""
    return datetime.now(UTC)


class JournalWriter:
    """Appends records to a journal directory, continuing its chain across files.

    Open it with :meth:`open`, which checks the journal written so far (all of it, or
    its end only: ``resume_kind``), sets a torn tail aside (``recovered_torn`` tells
    which) and resumes the chain.
    Rotation starts a new file before a record of kind ``hand_start_kind``
    once the current file holds ``hands_per_file`` hands, and before any
    record once the current file has reached ``max_bytes``. One writer per
    directory: a second one is refused. A failed write or fsync leaves the
    writer refusing further appends; reopen the journal to recover.
    """

    def __init__(
        self,
        directory: Path,
        *,
        lock: int,
        clock: Clock,
        fsync: bool,
        hands_per_file: int,
        max_bytes: int,
        hand_start_kind: str,
    ) -> None:
        self.directory = directory
        self.fsync = fsync
        self.hands_per_file = hands_per_file
        self.max_bytes = max_bytes
        self.hand_start_kind = hand_start_kind
        self.recovered_torn: TornTail | None = None
        self._clock = clock
        self._lock: int | None = lock
        self._file: int | None = None
        self._file_number = 0
        self._file_size = 0
        self._hands_in_file = 0
        self._last: Record | None = None
        self._failure: str | None = None
        self.housekeeping: Housekeeping | None = None
        #: Bytes written since the last fsync (only with fsync on): never above
        #: MAX_UNSYNCED_BYTES, what a power cut may leave as NULs (docs/journal.md, Torn tails).
        self._unsynced = 0

    @classmethod
    def open(
        cls,
        directory: Path | str,
        *,
        clock: Clock = utc_now,
        fsync: bool = True,
        hands_per_file: int = DEFAULT_HANDS_PER_FILE,
        max_bytes: int = DEFAULT_MAX_BYTES,
        hand_start_kind: str = DEFAULT_HAND_START_KIND,
        replay: Callable[[Record], None] | None = None,
        resume_kind: str | None = None,
    ) -> JournalWriter:
        """Open (or create) the journal in ``directory``, checked and ready to append.

        ``replay``, if given, is called with each record, in order, as the
        journal is checked: the controller rebuilds the engine in that pass.
        Without ``resume_kind`` the whole chain is read and checked, every record
        replayed. With it (the controller's ``checkpoint``), only the journal's end
        (``read_tail``: the last file whole, back to the last record of that kind,
        and the link into them; docs/journal.md, What a start checks), and ``replay`` gets the
        records from the last record of that kind on: a start whose cost does not
        grow with the journal. The rest of the chain is ``verify``'s to check.
        ``fsync=False`` is for benchmarks and tests only: records then survive a
        crash of the process but not a power cut.
        """
        if hands_per_file < 1:
            raise ValueError(f"hands_per_file is {hands_per_file}; expected 1 or more")
        if max_bytes < 1:
            raise ValueError(f"max_bytes is {max_bytes}; expected 1 or more")
        path = Path(directory)
        try:
            _make_directory(path, fsync=fsync)
            lock = lock_for_writing(path)
        except OSError as error:
            raise unusable(path, error) from None
        writer = cls(
            path,
            lock=lock,
            clock=clock,
            fsync=fsync,
            hands_per_file=hands_per_file,
            max_bytes=max_bytes,
            hand_start_kind=hand_start_kind,
        )
        try:
            if resume_kind is None:
                writer._resume(replay)
            else:
                writer._resume_tail(resume_kind, replay)
        except OSError as error:
            writer.close()
            raise unusable(path, error) from None
        except BaseException:
            writer.close()
            raise
        return writer

    @property
    def last(self) -> Record | None:
        """The last record in the journal, None while it is empty."""
        return self._last

    @property
    def current_file(self) -> Path | None:
        """The file the next record goes into (unless it is due for rotation)."""
        return self.directory / file_name(self._file_number) if self._file_number else None

    def append(
        self,
        kind: str,
        data: Mapping[str, object],
        *,
        sync: bool = True,
        seal: Seal | None = None,
    ) -> Record:
        """Append one record and return it once it is on disk (fsynced, unless fsync is off).

        ``data`` must be a JSON object (dict of str to JSON values); it is
        copied, so later changes to it do not reach the journal.

        ``sync=False``: the line is written but not fsynced; the next synced append (or a
        rotation, or ``close``) fsyncs it with the file. For records that can be rebuilt from
        the synced ones before them (docs/journal.md, Durability).

        ``seal``, if given, is called with the record's own seq and prev (its link to the
        chain's head), which only the writer knows, and the fields it returns join ``data``:
        a checkpoint's signature (docs/journal.md, Signed checkpoints).
        """
        self._check_usable()
        seq = 1 if self._last is None else self._last.seq + 1
        prev = GENESIS if self._last is None else self._last.hash
        if seal is not None:
            data = {**data, **seal(seq, prev)}
        record, line = make_record_line(seq, self._clock(), kind, data, prev)
        try:
            rotating = self._rotation_due(kind)
            if rotating:
                self._open_file(self._file_number + 1, create=True)
            self._write(line, sync=sync)
        except OSError as error:
            # After a failed write or fsync the file's state is unknown (and Linux
            # may forget a failed fsync): stop here; reopening checks the file.
            self._failure = f"appending seq {seq} failed: {error}"
            raise JournalError(self._path(), None, seq, self._failure) from error
        self._file_size += len(line)
        if kind == self.hand_start_kind:
            self._hands_in_file += 1
        self._last = record
        if rotating:
            self._rotated()
        return record

    def rotate(self) -> Path:
        """Start the next file now; the chain goes on in it. Returns the file now in use.

        A current file that is still empty is kept: no file is left empty
        behind the last one.
        """
        self._check_usable()
        if self._file_size > 0:
            self._open_file(self._file_number + 1, create=True)
            self._rotated()
        return self._path()

    def close(self) -> None:
        """Close the current file and release the directory; safe to call twice.

        A line appended with ``sync=False`` is fsynced first: a clean stop leaves every
        record on disk.
        """
        if self._file is not None and self._unsynced and self._failure is None:
            try:
                self._sync_file()
            except OSError as error:
                self._failure = f"fsync at close failed: {error}"
        if self.housekeeping is not None:
            self.housekeeping.close()  # before the lock goes: no one else's files are touched
            self.housekeeping = None
        for descriptor in (self._file, self._lock):
            if descriptor is not None:
                os.close(descriptor)
        self._file = self._lock = None

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _rotated(self) -> None:
        if self.housekeeping is not None:
            self.housekeeping.rotated()

    def _resume(self, replay: Callable[[Record], None] | None) -> None:
        reader = JournalReader(self.directory)
        hands_file, hands = None, 0
        for record in reader:  # the reader checks every record and link as it goes
            assert reader.position is not None  # set before each record is yielded
            if reader.position.file != hands_file:
                hands_file, hands = reader.position.file, 0
            if record.kind == self.hand_start_kind:
                hands += 1
            if replay is not None:
                replay(record)
        self._continue(reader.torn, reader.last, _last_number(reader.files))
        if reader.files and hands_file == reader.files[-1]:
            self._hands_in_file = hands

    def _resume_tail(self, resume_kind: str, replay: Callable[[Record], None] | None) -> None:
        tail = read_tail(self.directory, resume_kind)
        if replay is not None:
            for record in tail.records:
                replay(record)
        self._continue(tail.torn, tail.last, _last_number(list(tail.files)))
        if tail.files:
            self._hands_in_file = sum(r.kind == self.hand_start_kind for r in tail.current)

    def _continue(self, torn: TornTail | None, last: Record | None, files: int) -> None:
        # ``files``: the last file's number (0: none), above the count once retention deleted
        # the oldest files.
        """After the check: set a torn tail aside and open the last file (a new journal: the
        first) to append to."""
        if torn is not None:
            set_aside(torn, fsync=self.fsync)
            self.recovered_torn = torn
        self._last = last
        if files:
            self._open_file(files, create=False)
        else:
            self._open_file(1, create=True)

    def _write(self, line: bytes, *, sync: bool) -> None:
        """Write ``line`` to the current file; fsync it unless ``sync`` is False or fsync off.

        With fsync on, never more than MAX_UNSYNCED_BYTES are written past the last fsync, so
        that a start can tell a power cut's NUL tail from lost records (docs/journal.md, Torn
        tails): unsynced lines are fsynced first if this one would take them over it, and a
        longer line is written in pieces, each fsynced but the last.
        """
        assert self._file is not None  # _resume opened the first file
        if not self.fsync:
            write_all(self._file, line)
            return
        if self._unsynced and self._unsynced + len(line) > MAX_UNSYNCED_BYTES:
            self._sync_file()
        view = memoryview(line)
        while len(view) > MAX_UNSYNCED_BYTES:
            write_all(self._file, view[:MAX_UNSYNCED_BYTES])
            os.fsync(self._file)
            view = view[MAX_UNSYNCED_BYTES:]
        write_all(self._file, view)
        self._unsynced += len(view)
        if sync:
            # One fsync covers every line written to the file before it.
            self._sync_file()

    def _rotation_due(self, kind: str) -> bool:
        if self._file_size == 0:
            return False  # an empty file takes any record: no file is ever left empty
        if self._file_size >= self.max_bytes:
            return True
        return kind == self.hand_start_kind and self._hands_in_file >= self.hands_per_file

    def _open_file(self, number: int, *, create: bool) -> None:
        if self._file is not None and self._unsynced:
            # The next synced append's fsync reaches only the new file: the old one's tail
            # goes to disk first.
            self._sync_file()
        path = self.directory / file_name(number)
        flags = os.O_WRONLY | os.O_APPEND | (os.O_CREAT | os.O_EXCL if create else 0)
        descriptor = os.open(path, flags, 0o644)
        try:
            if create and self.fsync:
                fsync_directory(self.directory)
        except OSError:
            os.close(descriptor)
            raise
        if self._file is not None:
            os.close(self._file)
        self._file = descriptor
        self._file_number = number
        self._file_size = os.fstat(descriptor).st_size
        self._hands_in_file = 0

    def _sync_file(self) -> None:
        assert self._file is not None  # callers check
        os.fsync(self._file)
        self._unsynced = 0

    def _check_usable(self) -> None:
        if self._lock is None:
            raise JournalError(
                self.directory, None, None, "the journal writer is closed", whole_journal=True
            )
        if self._failure is not None:
            raise JournalError(
                self.directory,
                None,
                None,
                f"{self._failure}; reopen the journal to recover",
                whole_journal=True,
            )

    def _path(self) -> Path:
        return self.directory / file_name(self._file_number)


def _last_number(files: list[Path]) -> int:
    """The number of the journal's last file (0: no file yet)."""
    return file_number(files[-1]) if files else 0


def _make_directory(path: Path, *, fsync: bool) -> None:
    if path.is_dir():
        return
    if path.exists():
        raise JournalError(
            path,
            None,
            None,
            "it exists and is not a directory; set [journal] dir to a directory",
            whole_journal=True,
        )
    path.mkdir(parents=True)
    if fsync:
        fsync_directory(path.parent)
