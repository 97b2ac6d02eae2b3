"""``verify``: check a journal's whole chain without changing it, and say what is wrong first."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from controller.journal.record import Record
from controller.journal.store import JournalError, JournalReader, TornTail, torn_files


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

    @property
    def intact(self) -> bool:
        """True when every record checks and no torn tail is waiting to be set aside."""
        return self.problem is None and self.torn is None

    def summary(self) -> list[str]:
        """The verdict for an operator, one line per fact, the verdict first."""
        lines = [self._verdict()]
        head = "none (empty journal)"
        if self.last is not None:
            head = f"seq {self.last.seq} at {self.last.ts}, hash {self.last.hash}"
        lines.append(f"  {self.records} records checked in {len(self.files)} files; head: {head}")
        if self.problem is not None:
            lines.append(f"  first bad record: {self.problem}")
        if self.torn is not None:
            lines.append(f"  {self.torn.describe()}")
            lines.append("  (set aside when the journal is next opened for writing)")
        if self.set_aside:
            names = ", ".join(path.name for path in self.set_aside)
            lines.append(f"  torn tails set aside earlier: {names}")
        return lines

    def _verdict(self) -> str:
        if self.problem is not None:
            return f"journal {self.directory}: NOT INTACT"
        if self.torn is not None:
            return f"journal {self.directory}: TORN TAIL (intact up to seq {self.torn.after_seq})"
        return f"journal {self.directory}: intact"


def verify(directory: Path | str, progress: Callable[[Record], None] | None = None) -> VerifyReport:
    """Check every record and link of the journal in ``directory``; changes nothing.

    Raises FileNotFoundError if the directory does not exist. ``progress``,
    if given, is called with each record once it is checked.
    """
    path = Path(directory)
    reader = JournalReader(path)
    records = 0
    problem: JournalError | None = None
    try:
        for record in reader:
            records += 1
            if progress is not None:
                progress(record)
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
    )
