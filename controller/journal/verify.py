"""``verify``: check a journal's whole chain without changing it, and say what is wrong first.

A chain shows any edit, deletion or reordering of a record that has a record
after it, but a journal cut at a record boundary at its end looks like the
same journal read earlier. An anchor (a seq and its hash, noted outside the
journal: printed by an earlier verify, or logged by the controller) closes
that gap: the anchored record must still be there, unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Final, Protocol

from controller.journal.files import (
    JournalError,
    RetentionAnchor,
    TornTail,
    held_by_writer,
    torn_files,
)
from controller.journal.ondisk import JournalReader
from controller.journal.record import Record
from controller.journal.verdict import NO_KEY_GIVEN, Links, Signatures, Verdict
from controller.poker.words import counted

_HEX64: Final = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True, slots=True)
class Anchor:
    """A record known from outside the journal to exist: its seq and its hash."""

    seq: int
    hash: str

    @classmethod
    def parse(cls, text: str) -> Anchor:
        """``SEQ:HASH`` as verify prints the head, e.g. ``42:3f9a...`` (64 hex digits)."""
        seq_text, _, hash_text = text.partition(":")
        if not seq_text.isdecimal() or int(seq_text) < 1 or not _HEX64.fullmatch(hash_text):
            raise ValueError(
                f"anchor {text!r} is not SEQ:HASH; expected a positive seq, a colon and "
                "64 lowercase hex digits, e.g. 42:" + "0" * 64
            )
        return cls(int(seq_text), hash_text)

    def __str__(self) -> str:
        return f"{self.seq}:{self.hash}"


class AnchorCheck(StrEnum):
    """What became of an anchor (``verify --anchor``): the exit status alone does not tell it
    from another problem."""

    MATCHED = "matched (the record is there, unchanged)"
    CHANGED = "NOT MATCHED (the record of that seq has another hash: see the first bad record)"
    CUT_OFF = "NOT MATCHED (the journal ends before that seq: records were cut off its end)"
    NOT_REACHED = "not reached (the chain is broken before it)"
    DELETED = "not checked (that seq was in a file retention deleted: docs/journal.md, Retention)"


class RecordCheck(Protocol):
    """A check of the records' content beside the chain's (``verify --public-key``: the
    checkpoints' signatures, controller/journal/verify_signatures.py)."""

    def __call__(self, record: Record) -> str | None:
        """What is wrong with ``record`` (None: nothing), each record in order."""

    def end(self) -> str | None:
        """What is wrong with the journal as a whole, once every record checked."""

    def summary(self) -> str:
        """What was checked, one line for the report."""

    def vouched_by(self) -> str:
        """Who vouches when the check holds (controller/journal/verdict.py ``by_given``)."""


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """What ``verify`` found: the records checked, and the first problem if there is one."""

    directory: Path
    records: int  #: records checked and found intact (before the problem, if any)
    files: tuple[Path, ...]
    last: Record | None  #: the last intact record: its seq and hash are the chain's head
    problem: JournalError | None  #: the first bad record, file or link
    torn: TornTail | None  #: a torn last record not yet set aside
    set_aside: tuple[Path, ...]  #: torn tails set aside earlier (``*.torn``)
    writer_open: bool  #: a writer had the journal open: it may have grown while read
    anchor: AnchorCheck | None = None  #: with an anchor: what became of it
    checked: str | None = None  #: with a RecordCheck: what it checked (its summary)
    #: Where the chain begins once retention deleted the oldest files (None: at seq 1).
    begins: RetentionAnchor | None = None
    #: With a RecordCheck: who vouches when it holds; ``problem`` is its refusal if
    #: ``refused_by_check``, else the chain's own.
    vouched_by: str | None = None
    refused_by_check: bool = False

    @property
    def intact(self) -> bool:
        """True when every record checks and no torn tail is waiting to be set aside."""
        return self.problem is None and self.torn is None

    def summary(self) -> list[str]:
        """The verdict for an operator, one line per fact, the verdict first."""
        lines = [self._verdict()]
        head = "none (empty journal)"
        if self.last is not None:
            head = f"seq {self.last.seq} at {self.last.ts}; anchor {self.last.seq}:{self.last.hash}"
        checked = f"{counted(self.records, 'record')} checked in {counted(len(self.files), 'file')}"
        lines.append(f"  {checked}; head: {head}")
        if self.begins is not None:
            lines.append(
                f"  begins at seq {self.begins.seq} (hash {self.begins.hash}, as retention noted "
                f"it in journal-retention.json): the files before {self.files[0].name} were "
                "deleted by retention ([journal] keep_days)"
            )
        if self.checked is not None:
            lines.append(f"  {self.checked}")
        if self.problem is not None:
            lines.append(f"  first bad record: {self.problem}")
        if self.torn is not None:
            lines.append(f"  {self.torn.describe()}")
            lines.append("  (set aside when the journal is next opened for writing)")
        if self.writer_open:
            lines.append(
                "  a writer has the journal open: it may have grown while being read, and a "
                "torn last record may be one being written; verify again to be sure"
            )
        if self.set_aside:
            names = ", ".join(path.name for path in self.set_aside)
            lines.append(f"  torn tails set aside earlier: {names}")
        return lines

    @property
    def verdict(self) -> Verdict:
        """The links and the signatures in the one vocabulary (controller/journal/verdict.py)."""
        if self.problem is not None and not self.refused_by_check:
            return Verdict(Links.BROKEN, Signatures.NOT_JUDGED, at=self.problem.seq)
        links, at = (Links.INTACT, None) if self.torn is None else (Links.TORN, self.torn.after_seq)
        if self.problem is not None:
            detail = "" if self.problem.seq is not None else self.problem.reason
            return Verdict(links, Signatures.BAD, detail, at=at, bad_at=self.problem.seq)
        if self.vouched_by is None:
            return Verdict(links, Signatures.NOT_CHECKED, NO_KEY_GIVEN, at=at)
        return Verdict(links, Signatures.GOOD, self.vouched_by, at=at)

    def _verdict(self) -> str:
        return f"journal {self.directory}: {self.verdict.text()}"


def verify(
    directory: Path | str,
    *,
    anchor: Anchor | None = None,
    progress: Callable[[Record], None] | None = None,
    check: RecordCheck | None = None,
) -> VerifyReport:
    """Check every record and link of the journal in ``directory``; changes nothing.

    With an ``anchor``, the record of that seq must be there with that hash. With a
    ``check``, each record must pass it too (the first it refuses is the first bad record),
    and then the journal as a whole.
    Raises FileNotFoundError if the directory does not exist. ``progress``,
    if given, is called with each record once it is checked.
    """
    path = Path(directory)
    reader = JournalReader(path)
    writer_open = path.is_dir() and held_by_writer(path)
    records = 0
    problem: JournalError | None = None
    checked = None if anchor is None else AnchorCheck.NOT_REACHED
    by_check = False
    try:
        for record in reader:
            if anchor is not None and record.seq == anchor.seq:
                checked = AnchorCheck.CHANGED
                _check_anchor(record, reader, anchor)
                checked = AnchorCheck.MATCHED
            if check is not None:
                by_check = True
                _check_record(record, reader, check)
                by_check = False
            records += 1
            if progress is not None:
                progress(record)
        if anchor is not None and reader.anchor is not None and anchor.seq < reader.anchor.seq:
            checked = AnchorCheck.DELETED
        elif anchor is not None and (reader.last.seq if reader.last else 0) < anchor.seq:
            checked = AnchorCheck.CUT_OFF
            raise JournalError(
                reader.files[-1] if reader.files else path,
                None,
                anchor.seq,
                f"the journal ends at seq {reader.last.seq if reader.last else 0}, but the "
                f"anchor {anchor} says seq "
                f"{anchor.seq} was written: records were cut off its end",
                whole_journal=not reader.files,
            )
        wrong = None if check is None or not reader.files else check.end()
        if wrong is not None:
            by_check = True
            raise JournalError(path, None, None, wrong, whole_journal=True)
    except JournalError as error:
        problem = error
    return VerifyReport(
        directory=path,
        records=records,
        files=tuple(reader.files),
        last=reader.last,
        problem=problem,
        torn=reader.torn,
        set_aside=tuple(torn_files(path)),
        writer_open=writer_open,
        anchor=checked,
        checked=None if check is None else check.summary(),
        begins=reader.anchor,
        vouched_by=None if check is None else check.vouched_by(),
        refused_by_check=problem is not None and by_check,
    )


def _check_record(record: Record, reader: JournalReader, check: RecordCheck) -> None:
    wrong = check(record)
    if wrong is not None:
        assert reader.position is not None  # set before each record is yielded
        raise JournalError(reader.position.file, reader.position.line, record.seq, wrong)


def _check_anchor(record: Record, reader: JournalReader, anchor: Anchor) -> None:
    if record.hash != anchor.hash:
        assert reader.position is not None  # set before each record is yielded
        raise JournalError(
            reader.position.file,
            reader.position.line,
            record.seq,
            f"hash is {record.hash}, but the anchor {anchor} says {anchor.hash}: "
            "the journal was rewritten up to here",
        )
