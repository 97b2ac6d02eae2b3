"""What the verification page tells (docs/floor-web.md, Verification (the auditor)): every stored
journal's chain as the floor's witness holds it, and one journal walked again from the store.

``chain_states`` reads what the witness left: the head, the records held beyond a gap, the
conflicts it kept as alarms, the last checkpoint and whose key signed it, the software in force
and whether it is approved, the open alarms. Cheap enough for every page view: no walk.

``reverify`` walks one journal's stored lines in seq order, a chunk of rows at a time (its
memory does not grow with the journal), by the journal's own rules: ``parse_line`` re-hashes
each line from its exact bytes, the reader's link rule (controller/journal/store.py) checks each
link, and ``SignatureCheck`` (controller/app/signatures.py, ``journal verify --public-key``'s)
checks every ``table_key`` and checkpoint; the keys that came in force must be the ones the
floor's registry holds for the table (issue 19, Signed checkpoints). Reads only.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import datetime
from typing import Final

import psycopg

from controller.app import records as rec
from controller.app import schema
from controller.app.signatures import SignatureCheck
from controller.app.tablekey import TABLE_KEY
from controller.floor.web.alarms import shown
from controller.floor.witness import CONFLICT
from controller.journal.record import GENESIS, Record, RecordError, parse_line
from controller.journal.store import _link_problem as link_problem

AsyncConn = psycopg.AsyncConnection[tuple[object, ...]]

#: Rows a walk fetches at a time (as ``floor verify``'s, controller/floor/report.py).
WALK_ROWS: Final = 2000
#: Walks at once in one web process: a long journal's walk is CPU work on the event loop
#: between fetches; more walks wait their turn rather than slow every page and feed.
WALKS_AT_ONCE: Final = 1
_WALKS = asyncio.Semaphore(WALKS_AT_ONCE)


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A journal's last checkpoint and what the registry says of its key."""

    seq: int
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


async def registry(conn: AsyncConn, table_id: str) -> dict[str, tuple[str, bool]]:
    """The table's keys the floor's registry holds: key id -> (public key hex, in force)."""
    cur = await conn.execute(
        "SELECT key_id, public_key, retired_at IS NULL FROM table_keys WHERE table_id = %s",
        (table_id,),
    )
    return {str(k): (str(p), bool(f)) for k, p, f in await cur.fetchall()}


def key_state(keys: dict[str, tuple[str, bool]], key_id: str, public_key: str | None) -> str:
    """What the registry says of a key (its public key, when known, must be the one held)."""
    held = keys.get(key_id)
    if held is None or (public_key is not None and held[0] != public_key):
        return "not registered"
    return "registered" if held[1] else "retired"


async def last_checkpoint(conn: AsyncConn, table_id: str, journal_id: str) -> Checkpoint | None:
    """The journal's last linked checkpoint (the primary key read backwards to it: checkpoints
    come every few records)."""
    cur = await conn.execute(
        "SELECT line FROM records WHERE table_id = %s AND journal_id = %s AND linked "
        "AND kind = %s ORDER BY seq DESC LIMIT 1",
        (table_id, journal_id, rec.CHECKPOINT),
    )
    found = await cur.fetchone()
    if found is None:
        return None
    record = parse_line(_bytes(found[0]))
    try:
        signature = _signature(record)
    except schema.SchemaError:
        return Checkpoint(record.seq, record.ts, None, "not readable by this tablectl's schema")
    if signature is None:
        return Checkpoint(record.seq, record.ts, None, "unsigned")
    state = key_state(await registry(conn, table_id), signature.key_id, None)
    return Checkpoint(record.seq, record.ts, signature.key_id, state)


def _signature(record: Record) -> schema.CheckpointSignatureData | None:
    data = schema.decode(record)
    assert isinstance(data, schema.CheckpointData)
    return data.signature


# --- one journal walked again ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class KeyUse:
    """A key that came in force in the journal, and what the registry says of it."""

    key_id: str
    state: str


@dataclass(slots=True)
class Reverified:
    """The verdict of one journal walked from the store."""

    table_id: str
    journal_id: str
    #: Records checked and found intact (before the break, if any).
    records: int = 0
    last_seq: int = 0
    last_hash: str | None = None
    #: The first record that breaks the chain, and why (None: none).
    broken_seq: int | None = None
    broken: str | None = None
    #: Records held beyond a gap: stored, not linked, so not walked.
    held: int = 0
    signed: int = 0
    unsigned: int = 0
    #: Checkpoints or table_key records whose signature the check refused.
    bad: int = 0
    first_bad_seq: int | None = None
    first_bad: str | None = None
    keys: list[KeyUse] = field(default_factory=list)
    #: What is wrong with the keys as a whole (none came in force, one not registered).
    key_problem: str | None = None
    #: The floor's head as the witness stored it; the walk must end there.
    stored_head: int = 0
    #: The public key of each key id that came in force, as its table_key record gives it.
    public_keys: dict[str, str] = field(default_factory=dict)

    @property
    def verified(self) -> bool:
        return self.broken is None and self.bad == 0 and self.key_problem is None

    @property
    def verdict(self) -> str:
        if self.broken is not None:
            return f"NOT INTACT: the chain breaks at record {self.broken_seq}"
        if self.bad:
            return f"FORGED OR DAMAGED: a signature fails at record {self.first_bad_seq}"
        if self.key_problem is not None:
            return "NOT VOUCHED FOR: no key the floor registered for the table signs it"
        return "intact and signed by the table's registered key"


class NoSuchJournal(Exception):
    """The store holds no such journal: the message says which it holds of the table."""


async def reverify(conn: AsyncConn, table_id: str, journal_id: str) -> Reverified:
    """Walk the journal's stored lines from seq 1 (see the module's docstring); NoSuchJournal
    if the store holds no such journal."""
    cur = await conn.execute(
        "SELECT head_seq FROM journals WHERE table_id = %s AND journal_id = %s",
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
    out = Reverified(table_id, journal_id, stored_head=_int(head[0]))
    keys = await registry(conn, table_id)
    check = _check_for(keys)
    async with _WALKS:
        await _walk(conn, out, check)
    held = await conn.execute(
        "SELECT count(*) FROM records WHERE table_id = %s AND journal_id = %s AND NOT linked",
        (table_id, journal_id),
    )
    counted = await held.fetchone()
    out.held = 0 if counted is None else _int(counted[0])
    _judge_keys(out, check, keys)
    return out


def _check_for(keys: dict[str, tuple[str, bool]]) -> SignatureCheck | None:
    """The signature check, given a registered key (the one in force, else any): it follows the
    keys the journal names; ``_judge_keys`` then holds each one to the registry."""
    if not keys:
        return None
    in_force = [public for public, current in keys.values() if current]
    return SignatureCheck((in_force or [p for p, _ in keys.values()])[0])


async def _walk(conn: AsyncConn, out: Reverified, check: SignatureCheck | None) -> None:
    prev, expected = GENESIS, 1
    async with conn.transaction(), conn.cursor(name="tablectl_web_verify") as cur:
        cur.itersize = WALK_ROWS
        await cur.execute(
            "SELECT seq, hash, line FROM records WHERE table_id = %s AND journal_id = %s "
            "AND linked ORDER BY seq",
            (out.table_id, out.journal_id),
        )
        async for seq, stored_hash, line in cur:
            wrong = _record_problem(out.journal_id, _int(seq), str(stored_hash), line, prev)
            if isinstance(wrong, str):
                out.broken_seq, out.broken = _int(seq), wrong
                return
            if check is not None:
                _signatures(out, check, wrong)
            out.records, out.last_seq, out.last_hash = out.records + 1, wrong.seq, wrong.hash
            prev, expected = wrong.hash, expected + 1
    if out.last_seq != out.stored_head:
        out.broken_seq = out.last_seq + 1
        out.broken = (
            f"the walk ends at record {out.last_seq}, but the floor's head is record "
            f"{out.stored_head}"
        )


def _record_problem(
    journal_id: str, seq: int, stored_hash: str, line: object, prev: str
) -> Record | str:
    """The record stored at ``seq`` if it is the one the chain needs there, else what is wrong:
    its line re-hashed (``parse_line``), the store's index of it, the root, the link."""
    try:
        record = parse_line(_bytes(line))
    except RecordError as error:
        return f"its stored line is not an intact record: {error}"
    if record.seq != seq or record.hash != stored_hash:
        return (
            f"its stored line is record {record.seq} with hash {record.hash}, but the store "
            f"indexes it as record {seq} with hash {stored_hash}"
        )
    if seq == 1 and record.hash != journal_id:
        return f"record 1 hashes to {record.hash}, not to the journal's id {journal_id}"
    return link_problem(record, seq, prev) or record


def _signatures(out: Reverified, check: SignatureCheck, record: Record) -> None:
    """One record through the signature check; a refusal is counted and the walk goes on (the
    check's state is as before the refused record), so every bad checkpoint is counted."""
    if record.kind not in (TABLE_KEY, rec.CHECKPOINT):
        return
    wrong = check(record)
    if wrong is None and record.kind == TABLE_KEY:
        data = schema.decode(record)
        assert isinstance(data, schema.TableKeyData)
        out.public_keys.setdefault(data.key_id, data.public_key)
    if wrong is None and record.kind == rec.CHECKPOINT:
        if _signature(record) is None:
            out.unsigned += 1
        else:
            out.signed += 1
    if wrong is not None:
        out.bad += 1
        if out.first_bad is None:
            out.first_bad_seq, out.first_bad = record.seq, f"{record.kind}: {wrong}"


def _judge_keys(
    out: Reverified, check: SignatureCheck | None, keys: dict[str, tuple[str, bool]]
) -> None:
    """Each key that came in force must be one the floor's registry holds for the table."""
    if check is None:
        out.key_problem = (
            f"the floor's registry holds no key of table {out.table_id} (tablectl floor key "
            "register): no signature can be vouched for"
        )
        return
    out.keys = [KeyUse(k, key_state(keys, k, out.public_keys.get(k))) for k in check.keys]
    if not out.keys:
        out.key_problem = "no table_key record: the journal is not signed"
        return
    strangers = [use.key_id for use in out.keys if use.state == "not registered"]
    if strangers:
        out.key_problem = (
            f"key {', '.join(strangers)} came in force in the journal, but the floor's registry "
            f"does not hold it for table {out.table_id}: whoever wrote these records need not "
            "be the table"
        )
