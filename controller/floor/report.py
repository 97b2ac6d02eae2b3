"""What the floor's store tells, read through the read-only role (docs/floor.md, The store):
a table's last hands (``floor recall``) and every stored chain walked from its first record to
its head (``floor verify``).

A recall reads the hand's records back from the lines the table sent and tells them with the
table's own recall (controller/app/recall.py), so the floor shows a hand exactly as
``tablectl recall`` on the table does, to the same audience, and cannot drift from it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import psycopg

from controller.app.recall import HandRecord, hands
from controller.journal.record import GENESIS, Record, RecordError, parse_line

Conn = psycopg.Connection[tuple[object, ...]]
#: Rows a walk fetches at a time: its memory does not grow with the journal.
WALK_ROWS = 2000


class ReportError(Exception):
    """What was asked is not in the store: says what is there."""


@dataclass(frozen=True, slots=True)
class FloorAlarm:
    """An alarm the witness raised (docs/floor.md, The witness)."""

    table_id: str
    journal_id: str
    seq: int
    kind: str
    message: str
    raised_at: str


@dataclass(slots=True)
class ChainReport:
    """One stored journal, walked."""

    table_id: str
    journal_id: str
    records: int = 0
    head_seq: int = 0
    head_hash: str | None = None
    problems: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class VerifyReport:
    chains: list[ChainReport]
    alarms: list[FloorAlarm]

    @property
    def clean(self) -> bool:
        return not self.alarms and not any(chain.problems for chain in self.chains)


def current_journal(conn: Conn, table_id: str) -> str:
    """The journal the floor last began for ``table_id`` (ReportError naming the tables held)."""
    row = conn.execute(
        "SELECT journal_id FROM chain_heads WHERE table_id = %s", (table_id,)
    ).fetchone()
    if row is None:
        known = [str(r[0]) for r in conn.execute("SELECT table_id FROM tables ORDER BY 1")]
        held = ", ".join(known) if known else "none yet"
        raise ReportError(f"table {table_id!r}: the floor holds no journal of it (tables: {held})")
    return str(row[0])


def recall(conn: Conn, table_id: str, count: int) -> list[HandRecord]:
    """The last ``count`` hands of the table's current journal, oldest first."""
    journal_id = current_journal(conn, table_id)
    row = conn.execute(
        "SELECT min(started_seq) FROM (SELECT started_seq FROM hands WHERE table_id = %s "
        "AND journal_id = %s AND started_seq IS NOT NULL ORDER BY hand DESC LIMIT %s) AS last",
        (table_id, journal_id, count),
    ).fetchone()
    if row is None or row[0] is None:
        return []
    records = list(_records(conn, table_id, journal_id, int(row[0])))  # type: ignore[call-overload]
    return hands(records, count)


def _records(conn: Conn, table_id: str, journal_id: str, start: int) -> Iterator[Record]:
    """The journal's records in the chain from seq ``start``, read a few thousand at a time."""
    with conn.transaction(), conn.cursor(name="tablectl_recall") as cur:
        cur.itersize = WALK_ROWS
        cur.execute(
            "SELECT line FROM records WHERE table_id = %s AND journal_id = %s AND seq >= %s "
            "AND linked ORDER BY seq",
            (table_id, journal_id, start),
        )
        for (line,) in cur:
            yield parse_line(bytes(line))  # type: ignore[call-overload]


def verify(conn: Conn, table_id: str | None = None) -> VerifyReport:
    """Every stored journal (of ``table_id`` only, if given) walked from seq 1 to its head, and
    the witness's alarms."""
    where, params = ("WHERE table_id = %s", (table_id,)) if table_id is not None else ("", ())
    journals = conn.execute(
        f"SELECT table_id, journal_id, head_seq, head_hash FROM journals {where} "
        "ORDER BY table_id, first_seen",
        params,
    ).fetchall()
    if table_id is not None and not journals:
        current_journal(conn, table_id)  # raises, naming the tables held
    chains = [
        _walk(conn, ChainReport(str(t), str(j), head_seq=int(str(s)), head_hash=_text(h)))
        for t, j, s, h in journals
    ]
    alarms = [
        FloorAlarm(str(t), str(j), int(s), str(k), str(m), str(at))  # type: ignore[call-overload]
        for t, j, s, k, m, at in conn.execute(
            f"SELECT table_id, journal_id, seq, kind, message, raised_at FROM alarms {where} "
            + ("AND" if where else "WHERE")
            + " source = 'floor' ORDER BY id",
            params,
        )
    ]
    return VerifyReport(chains, alarms)


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def _walk(conn: Conn, chain: ChainReport) -> ChainReport:
    """Walk one chain as the table wrote it: each line re-hashed, each link checked."""
    prev, expected = GENESIS, 1
    with conn.transaction(), conn.cursor(name="tablectl_verify") as cur:
        cur.itersize = WALK_ROWS
        cur.execute(
            "SELECT seq, hash, line, linked FROM records WHERE table_id = %s AND journal_id = %s "
            "ORDER BY seq",
            (chain.table_id, chain.journal_id),
        )
        for seq, stored_hash, line, linked in cur:
            chain.records += 1
            where = f"record {seq}"
            if not linked:
                chain.problems.append(
                    f"{where} is held beyond a gap: the floor has not got record {expected}"
                )
                break
            if seq != expected:
                chain.problems.append(f"{where} follows record {expected - 1}: a gap")
                break
            try:
                record = parse_line(bytes(line))  # type: ignore[call-overload]
            except RecordError as error:
                chain.problems.append(f"{where}: {error}")
                break
            if record.hash != stored_hash or record.seq != seq:
                chain.problems.append(f"{where}: its line is not the record the store indexes")
            if seq == 1 and record.hash != chain.journal_id:
                chain.problems.append("record 1 is not the journal's root (its id)")
            if record.prev != prev:
                chain.problems.append(f"{where} does not link: prev {record.prev}, expected {prev}")
            prev, expected = record.hash, expected + 1
    if not chain.problems and (expected - 1, prev if expected > 1 else None) != (
        chain.head_seq,
        chain.head_hash,
    ):
        chain.problems.append(
            f"the walk ends at record {expected - 1}, the floor's head is {chain.head_seq}"
        )
    return chain
