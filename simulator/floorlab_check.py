"""The floor lab's checks (simulator/floorlab.py): a table's journal against what the floor's
store holds of it, and the lag from a record's append to the floor's receipt.

The journal is read as the forwarder reads it: every complete line of every journal file, in
order (a line without its newline is being written, or was torn by a kill and will be set aside
by the controller's next start: not a record yet). The store is read through the read-only role.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import psycopg

from controller.floor import report
from controller.journal.files import journal_files, open_journal_file, read_journal_file
from controller.journal.record import Record, parse_line
from controller.journal.verdict import Verdict

Conn = psycopg.Connection[tuple[object, ...]]


@dataclass(frozen=True, slots=True)
class JournalLine:
    """One record of a table's journal: its exact bytes (no newline) and what they say."""

    raw: bytes
    record: Record


def journal_lines(directory: Path) -> list[JournalLine]:
    """Every complete line of the journal in ``directory``, in order (none: no journal yet)."""
    found: list[JournalLine] = []
    for _number, path in journal_files(directory) if directory.is_dir() else []:
        data = read_journal_file(path)  # a rotated file may be compressed
        complete = data[: data.rfind(b"\n") + 1]
        found.extend(JournalLine(raw, parse_line(raw)) for raw in complete.splitlines())
    return found


def journal_end(directory: Path) -> tuple[str, int] | None:
    """The journal's id (its first record's hash) and its last complete record's seq, reading
    only those two lines (None: no record yet): what ``FloorLab.wait_caught_up`` polls."""
    files = journal_files(directory) if directory.is_dir() else []
    if not files:
        return None
    with open_journal_file(files[0][1]) as first_file:
        first = first_file.readline()
    if not first.endswith(b"\n"):
        return None
    data = read_journal_file(files[-1][1])
    complete = data[: data.rfind(b"\n")]
    if not complete and len(files) > 1:  # the writer has just begun the next file
        data = read_journal_file(files[-2][1])
        complete = data[: data.rfind(b"\n")]
    last = complete[complete.rfind(b"\n") + 1 :]
    return parse_line(first.rstrip(b"\n")).hash, parse_line(last).seq


@dataclass(slots=True)
class Comparison:
    """One table: its journal against the floor's rows. ``same`` when the floor holds exactly
    the journal (every seq, the same exact line, nothing else), its chain walked whole, and the
    floor raised no alarm on it."""

    table_id: str
    journal_id: str | None
    records: int
    stored: int
    missing: list[int] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    rewritten: list[int] = field(default_factory=list)
    chain_problems: list[str] = field(default_factory=list)
    alarms: list[str] = field(default_factory=list)
    #: The floor's verdict on each stored journal of the table, in the one vocabulary
    #: (controller/journal/verdict.py; docs/journal.md, Verdicts), as floor verify says it.
    verdicts: list[Verdict] = field(default_factory=list)

    @property
    def chain_intact(self) -> bool:
        """A chain stored and nothing wrong found in it (links intact, no signature BAD)."""
        return self.stored > 0 and not self.chain_problems

    @property
    def vouched(self) -> bool:
        """Every stored journal's links intact and its signatures GOOD."""
        return self.chain_intact and all(v.verified for v in self.verdicts) and bool(self.verdicts)

    @property
    def same(self) -> bool:
        return (
            self.records == self.stored
            and not (self.missing or self.extra or self.rewritten)
            and self.chain_intact
            and not self.alarms
        )

    def differences(self) -> str:
        """What differs, in a few words (empty when ``same``)."""
        words: list[str] = []
        if self.missing:
            words.append(f"missing on the floor: seq {_seqs(self.missing)}")
        if self.rewritten:
            words.append(
                f"another line on the floor than in the journal: seq {_seqs(self.rewritten)}"
            )
        if self.extra:
            words.append(f"on the floor, not in the journal: {', '.join(self.extra[:5])}")
        words.extend(f"chain: {problem}" for problem in self.chain_problems)
        if self.stored == 0 and self.records:
            words.append("no chain stored")
        words.extend(f"alarm: {alarm}" for alarm in self.alarms)
        return "; ".join(words)


def _seqs(seqs: list[int]) -> str:
    shown = ", ".join(map(str, seqs[:10]))
    return shown + (f" and {len(seqs) - 10} more" if len(seqs) > 10 else "")


def compare_table(conn: Conn, table_id: str, directory: Path) -> Comparison:
    """The table's journal in ``directory`` against the floor's rows of ``table_id``."""
    lines = journal_lines(directory)
    journal_id = lines[0].record.hash if lines else None
    ours = {line.record.seq: line.raw for line in lines}
    result = Comparison(table_id, journal_id, len(lines), 0)
    rows = conn.execute(
        b"SELECT journal_id, seq, line FROM records WHERE table_id = %s ORDER BY journal_id, seq",
        (table_id,),
    )
    held: set[int] = set()
    for row_journal, seq, line in rows:
        number = int(str(seq))
        if row_journal != journal_id:
            result.extra.append(f"journal {row_journal} seq {number}")
            continue
        held.add(number)
        result.stored += 1
        if number not in ours:
            result.extra.append(f"seq {number}")
        elif bytes(line) != ours[number]:  # type: ignore[call-overload]
            result.rewritten.append(number)
    result.missing = sorted(set(ours) - held)
    found = report.verify(conn, table_id) if result.stored or result.extra else None
    if found is not None:
        for chain in found.chains:
            result.chain_problems.extend(f"journal {chain.journal_id}: {p}" for p in chain.problems)
            if chain.judged is not None:
                result.verdicts.append(chain.judged)
        result.alarms = [f"{a.kind} at seq {a.seq}: {a.message}" for a in found.alarms]
    return result


@dataclass(frozen=True, slots=True)
class Lag:
    """Seconds from a record's append (its ts, the table's clock) to the floor's receipt of
    the batch that stored it (received_at, the floor's clock; the commit follows at once)."""

    records: int
    p50: float
    p99: float
    max: float


def lag(conn: Conn) -> Lag:
    row = conn.execute(
        b"SELECT count(*), "
        b"percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM received_at - ts)), "
        b"percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM received_at - ts)), "
        b"max(extract(epoch FROM received_at - ts)) FROM records"
    ).fetchone()
    assert row is not None
    count, p50, p99, most = row
    if not count:
        return Lag(0, 0.0, 0.0, 0.0)
    return Lag(int(str(count)), float(str(p50)), float(str(p99)), float(str(most)))
