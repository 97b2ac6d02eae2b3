"""What the verification page tells (docs/floor-web.md, Verification (the auditor)): every stored
journal's chain as the floor's witness holds it, and one journal walked again from the store.

``chain_states`` reads what the witness left: the head, the records held beyond a gap, the
conflicts it kept as alarms, the last checkpoint and whose key signed it, the software in force
and whether it is approved, the open alarms. Cheap enough for every page view: no walk.

``reverify`` walks one journal's stored lines in seq order, a chunk of rows at a time (its
memory does not grow with the journal), through the floor's one walk of a stored chain
(controller/floor/chainwalk.py, ``floor verify``'s too): each line re-hashed, each link
checked, every ``table_key`` and checkpoint's signature checked, and each key that came in
force held to the floor's registry (docs/journal.md, Signed checkpoints). Reads only.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import datetime
from typing import Final

import psycopg

from controller.floor import keys
from controller.floor.chainwalk import ChainWalk, Registry, checkpoint_signature, key_state
from controller.floor.chainwatch import CHAIN_BROKEN
from controller.floor.web.moments import shown, shown_ts
from controller.floor.witness import CONFLICT
from controller.journal import schema
from controller.journal import tablerecords as rec
from controller.journal.record import RecordError, parse_line

AsyncConn = psycopg.AsyncConnection[tuple[object, ...]]

#: Rows a walk fetches at a time (as ``floor verify``'s, controller/floor/report.py).
WALK_ROWS: Final = 2000
#: Walks at once in one web process: a long journal's walk is CPU work (on a worker thread,
#: ``_walk``); more walks wait their turn rather than share the interpreter with the pages.
WALKS_AT_ONCE: Final = 1
_WALKS = asyncio.Semaphore(WALKS_AT_ONCE)


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A journal's last checkpoint and what the registry says of its key."""

    seq: int
    #: Its ``ts`` as the pages say a moment (moments.shown_ts).
    at: str
    #: The key that signed it (None: unsigned, as before the table had a key).
    key_id: str | None
    #: "registered", "retired" (registered once, since replaced), "not registered".
    key_state: str


@dataclass(frozen=True, slots=True)
class Software:
    """The software record in force (the journal's last): its digest and whether approved."""

    seq: int
    version: str
    digest: str
    approved: bool


@dataclass(slots=True)
class ChainState:
    """One stored journal at the witness."""

    table_id: str
    journal_id: str
    #: The table's current journal (the one it last began), as against one it ended.
    current: bool
    head_seq: int
    head_hash: str | None
    #: Records held beyond a gap, not linked: their count and seqs.
    held: int
    held_first: int | None
    held_last: int | None
    #: Records the witness found rewritten after forwarding (its ``conflict`` alarms).
    conflicts: int
    checkpoint: Checkpoint | None
    software: Software | None
    #: Open (unacknowledged) alarms on the journal, by kind.
    open_alarms: dict[str, int] = field(default_factory=dict)
    #: Where floor serve's walk found the stored chain broken, and its verdict (the first
    #: chain_broken alarm, acknowledged or not: controller/floor/chainwatch.py); None: none.
    broken_seq: int | None = None
    broken: str | None = None

    @property
    def records(self) -> int:
        """Records the floor holds: every linked one (seq 1 to the head) and those held."""
        return self.head_seq + self.held

    @property
    def url(self) -> str:
        return f"/verify/{self.table_id}/{self.journal_id}"


def _int(value: object) -> int:
    return int(str(value))


def _at(value: object) -> str:
    assert isinstance(value, datetime)
    return shown(value)


def _state(row: tuple[object, ...]) -> ChainState:
    table, journal, head, head_hash, current, held, first, last = row
    return ChainState(
        str(table),
        str(journal),
        bool(current),
        _int(head),
        None if head_hash is None else str(head_hash),
        _int(held),
        None if first is None else _int(first),
        None if last is None else _int(last),
        conflicts=0,
        checkpoint=None,
        software=None,
    )


def _bytes(value: object) -> bytes:
    """A bytea column's value (psycopg gives bytes)."""
    assert isinstance(value, bytes), type(value)
    return value


async def chain_states(conn: AsyncConn, only: tuple[str, str] | None = None) -> list[ChainState]:
    """Every stored journal (or ``only`` that table's journal), table by table, the current
    journal first."""
    where, params = ("WHERE j.table_id = %s AND j.journal_id = %s", only) if only else ("", ())
    cur = await conn.execute(
        "SELECT j.table_id, j.journal_id, j.head_seq, j.head_hash, "
        "c.journal_id IS NOT NULL, count(r.seq), min(r.seq), max(r.seq) FROM journals j "
        "LEFT JOIN chain_heads c ON c.table_id = j.table_id AND c.journal_id = j.journal_id "
        "LEFT JOIN records r ON r.table_id = j.table_id AND r.journal_id = j.journal_id "
        f"AND NOT r.linked {where} "  # the partial index records_held: no linked one read
        "GROUP BY j.table_id, j.journal_id, j.head_seq, j.head_hash, c.journal_id, j.first_seen "
        "ORDER BY j.table_id, j.first_seen DESC",
        params,
    )
    states = [_state(row) for row in await cur.fetchall()]
    by_key = {(s.table_id, s.journal_id): s for s in states}
    await _alarms(conn, by_key)
    await _broken(conn, by_key)
    await _software(conn, by_key)
    for state in states:
        state.checkpoint = await last_checkpoint(conn, state.table_id, state.journal_id)
    return states


async def _alarms(conn: AsyncConn, by_key: dict[tuple[str, str], ChainState]) -> None:
    cur = await conn.execute(
        "SELECT a.table_id, a.journal_id, a.kind, count(*), "
        "count(*) FILTER (WHERE k.alarm_id IS NULL) FROM alarms a "
        "LEFT JOIN web.alarm_acks k ON k.alarm_id = a.id GROUP BY 1, 2, 3"
    )
    for table, journal, kind, every, still_open in await cur.fetchall():
        state = by_key.get((str(table), str(journal)))
        if state is None:
            continue  # an alarm on a journal the store holds no record of (mislabeled)
        if kind == CONFLICT:
            state.conflicts = _int(every)
        if _int(still_open):
            state.open_alarms[str(kind)] = _int(still_open)


async def _broken(conn: AsyncConn, by_key: dict[tuple[str, str], ChainState]) -> None:
    cur = await conn.execute(
        "SELECT DISTINCT ON (table_id, journal_id) table_id, journal_id, seq, message "
        "FROM alarms WHERE source = 'floor' AND kind = %s ORDER BY table_id, journal_id, seq, id",
        (CHAIN_BROKEN,),
    )
    for table, journal, seq, message in await cur.fetchall():
        state = by_key.get((str(table), str(journal)))
        if state is not None:
            state.broken_seq, state.broken = _int(seq), str(message)


async def _software(conn: AsyncConn, by_key: dict[tuple[str, str], ChainState]) -> None:
    cur = await conn.execute(
        "SELECT DISTINCT ON (s.table_id, s.journal_id) s.table_id, s.journal_id, s.seq, "
        "s.version, s.digest, a.digest IS NOT NULL FROM software s "
        "LEFT JOIN approved_software a ON a.digest = s.digest AND a.revoked_at IS NULL "
        "ORDER BY s.table_id, s.journal_id, s.seq DESC"
    )
    for table, journal, seq, version, digest, approved in await cur.fetchall():
        state = by_key.get((str(table), str(journal)))
        if state is not None:
            state.software = Software(_int(seq), str(version), str(digest), bool(approved))


async def registry(conn: AsyncConn, table_id: str) -> Registry:
    """The table's keys the floor's registry holds: key id -> (public key hex, in force)."""
    cur = await conn.execute(keys.REGISTRY, (table_id,))
    return {str(k): (str(p), bool(f)) for k, p, f in await cur.fetchall()}


async def last_checkpoint(conn: AsyncConn, table_id: str, journal_id: str) -> Checkpoint | None:
    """The journal's last linked checkpoint (the primary key read backwards to it: checkpoints
    come every few records)."""
    cur = await conn.execute(
        "SELECT seq, line FROM records WHERE table_id = %s AND journal_id = %s AND linked "
        "AND kind = %s ORDER BY seq DESC LIMIT 1",
        (table_id, journal_id, rec.CHECKPOINT),
    )
    found = await cur.fetchone()
    if found is None:
        return None
    try:
        record = parse_line(_bytes(found[1]))
    except RecordError:  # changed in the store: the chain walk alarms it (chain_broken)
        return Checkpoint(_int(found[0]), "", None, "NOT INTACT: its stored line fails its hash")
    try:
        signature = checkpoint_signature(record)
    except schema.SchemaError:
        return Checkpoint(
            record.seq, shown_ts(record.ts), None, "not readable by this tablectl's schema"
        )
    if signature is None:
        return Checkpoint(record.seq, shown_ts(record.ts), None, "unsigned")
    state = key_state(await registry(conn, table_id), signature.key_id, None)
    return Checkpoint(record.seq, shown_ts(record.ts), signature.key_id, state)


# --- one journal walked again ----------------------------------------------------------------


class NoSuchJournal(Exception):
    """The store holds no such journal: the message says which it holds of the table."""


async def reverify(conn: AsyncConn, table_id: str, journal_id: str) -> ChainWalk:
    """Walk the journal's stored lines from seq 1 (see the module's docstring); NoSuchJournal
    if the store holds no such journal."""
    cur = await conn.execute(
        "SELECT head_seq, head_hash FROM journals WHERE table_id = %s AND journal_id = %s",
        (table_id, journal_id),
    )
    head = await cur.fetchone()
    if head is None:
        held = await conn.execute(
            "SELECT journal_id FROM journals WHERE table_id = %s ORDER BY first_seen", (table_id,)
        )
        names = ", ".join(str(j) for (j,) in await held.fetchall()) or "none"
        raise NoSuchJournal(
            f"the floor holds no journal {journal_id!r} of table {table_id!r} (its journals: "
            f"{names})"
        )
    walk = ChainWalk(
        table_id,
        journal_id,
        stored_head=_int(head[0]),
        stored_head_hash=None if head[1] is None else str(head[1]),
        registry=await registry(conn, table_id),
    )
    async with _WALKS:
        await _walk(conn, walk)
    walk.end()
    held = await conn.execute(
        "SELECT count(*) FROM records WHERE table_id = %s AND journal_id = %s AND NOT linked",
        (table_id, journal_id),
    )
    counted = await held.fetchone()
    walk.held = 0 if counted is None else _int(counted[0])
    return walk


async def _walk(conn: AsyncConn, walk: ChainWalk) -> None:
    """Fetch a chunk on the event loop, walk it on a worker thread: the hashing is CPU work,
    and the loop, which serves every page and feed, takes the interpreter back from the walk
    within its switch interval (5 ms) rather than waiting out a chunk."""
    async with conn.transaction(), conn.cursor(name="tablectl_web_verify") as cur:
        await cur.execute(
            "SELECT seq, hash, line FROM records WHERE table_id = %s AND journal_id = %s "
            "AND linked ORDER BY seq",
            (walk.table_id, walk.journal_id),
        )
        while rows := await cur.fetchmany(WALK_ROWS):
            if not await asyncio.to_thread(_take_rows, walk, rows):
                return


def _take_rows(walk: ChainWalk, rows: list[tuple[object, ...]]) -> bool:
    """The rows through the walk, in order, until one breaks it; whether it goes on."""
    return all(walk.take(_int(seq), str(stored), _bytes(line)) for seq, stored, line in rows)
