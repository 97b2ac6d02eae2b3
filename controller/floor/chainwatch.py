"""``floor serve``'s own walk of every stored chain (docs/floor.md, The chain walk): a line
changed in the store after the witness stored it is found by the floor, not by chance.

After each start and then every ``[serve] walk_every`` seconds, each stored journal is walked
from record 1 to the head it had when its walk began, by the floor's one walk of a stored chain
(controller/floor/chainwalk.py, ``floor verify``'s and the web's). A break (a line that does not
hash to itself or to the store's index of it, a link, a gap, the head), or a signature the
check refuses, raises one ``chain_broken`` floor alarm naming the table, the journal and the
record, inserted as the ingest inserts the witness's alarms (controller/floor/ingest.py
``raise_floor_alarms``). A break already alarmed is not alarmed again at the next walk, nor
after a restart: the store's alarms say it is known.

The walk does not stall the ingest: it has its own connection; it reads ``WALK_ROWS`` rows at a
time by the primary key (no transaction held open across the journal), and walks each chunk on
a worker thread, so the event loop, which fetches, stores and acknowledges the batches, takes
the interpreter back within its switch interval (docs/performance.md, The chain walk).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Final

import psycopg
import structlog

from controller.floor import keys
from controller.floor.chainwalk import ChainWalk, Registry
from controller.floor.ingest import raise_floor_alarms
from controller.floor.witness import WitnessAlarm

AsyncConn = psycopg.AsyncConnection[tuple[object, ...]]

#: The floor alarm a broken stored chain raises (docs/floor.md, The witness's alarms).
CHAIN_BROKEN: Final = "chain_broken"
#: Rows read and walked at a time: what the walk holds in memory, and at most what one worker
#: turn hashes before the chunk's end lets the loop's turn come round.
WALK_ROWS: Final = 500

log = structlog.get_logger("controller.floor")


@dataclass(slots=True)
class WalkTotals:
    """One walk of every stored chain: what it walked and what it found."""

    journals: int = 0
    records: int = 0
    seconds: float = 0.0
    #: (table, journal, seq) of every chain found broken, alarmed now or before.
    broken: list[tuple[str, str, int]] = field(default_factory=list)
    #: The chain_broken alarms this walk raised (a break alarmed before is not raised again).
    raised: int = 0

    @property
    def rate(self) -> float:
        """Records walked a second."""
        return self.records / self.seconds if self.seconds > 0 else 0.0


async def walk_all(conn: AsyncConn, stopping: Callable[[], bool] = lambda: False) -> WalkTotals:
    """Every stored journal walked from record 1 to its head, each break alarmed once.
    ``conn`` is in autocommit mode (each read its own statement); ``stopping()`` true ends the
    walk between two chunks (a stop of floor serve is not held up by a long journal)."""
    totals = WalkTotals()
    started = time.perf_counter()
    cur = await conn.execute(
        "SELECT table_id, journal_id, head_seq, head_hash FROM journals "
        "ORDER BY table_id, first_seen"
    )
    journals = await cur.fetchall()
    registries: dict[str, Registry] = {}
    for table, journal, head, head_hash in journals:
        if stopping():
            break
        table_id = str(table)
        if table_id not in registries:
            found = await conn.execute(keys.REGISTRY, (table_id,))
            registries[table_id] = {str(k): (str(p), bool(f)) for k, p, f in await found.fetchall()}
        walk = ChainWalk(
            table_id,
            str(journal),
            stored_head=int(str(head)),
            stored_head_hash=None if head_hash is None else str(head_hash),
            registry=registries[table_id],
        )
        evidence = await _walk(conn, walk, stopping)
        if evidence is None:
            break  # stopped mid-journal: its walk is not a verdict
        totals.journals += 1
        totals.records += walk.records
        alarm = break_alarm(walk, evidence)
        if alarm is not None:
            totals.broken.append((alarm.table_id, alarm.journal_id, alarm.seq))
            totals.raised += await _raise_once(conn, alarm)
    totals.seconds = time.perf_counter() - started
    return totals


async def _walk(conn: AsyncConn, walk: ChainWalk, stopping: Callable[[], bool]) -> bytes | None:
    """Walk the journal to its head (``walk.end`` called); the stored line where it broke
    (b"": no line there, or no break); None if stopped first."""
    after = 0
    while after < walk.stored_head:
        if stopping():
            return None
        cur = await conn.execute(
            "SELECT seq, hash, line FROM records WHERE table_id = %s AND journal_id = %s "
            "AND seq > %s AND seq <= %s ORDER BY seq LIMIT %s",
            (walk.table_id, walk.journal_id, after, walk.stored_head, WALK_ROWS),
        )
        rows = await cur.fetchall()
        if not rows:
            break  # a gap up to the head: ``end`` names it
        broke_at = await asyncio.to_thread(_take_rows, walk, rows)
        if broke_at is not None:
            walk.end()
            return broke_at
        after = int(str(rows[-1][0]))
    walk.end()
    return b""


def _take_rows(walk: ChainWalk, rows: list[tuple[object, ...]]) -> bytes | None:
    """The rows through the walk in order; the stored line that broke it (None: none did)."""
    for seq, stored_hash, line in rows:
        assert isinstance(line, bytes), type(line)
        if not walk.take(int(str(seq)), str(stored_hash), line):
            return line
    return None


def break_alarm(walk: ChainWalk, line: bytes) -> WitnessAlarm | None:
    """The walk's ``chain_broken`` alarm (None: the chain is intact). Its evidence is the stored
    line where it broke (the break's reason when there is no line there: a gap, the head);
    ``held`` the hash the store indexes it by."""
    if walk.broken_seq is not None and walk.broken is not None:
        seq, why = walk.broken_seq, walk.broken
    elif walk.bad and walk.first_bad_seq is not None:
        seq, why = walk.first_bad_seq, f"a signature fails: {walk.first_bad}"
        line = b""  # the signed record itself hashes and links: the reason is the evidence
    else:
        return None
    message = (
        f"the stored chain of journal {walk.journal_id} breaks at record {seq}: {why} "
        f"({walk.records} records before it intact; {walk.verdict})"
    )
    return WitnessAlarm(
        CHAIN_BROKEN, walk.table_id, walk.journal_id, seq, message, line or why.encode()
    )


async def _raise_once(conn: AsyncConn, alarm: WitnessAlarm) -> int:
    """The alarm inserted unless a chain_broken alarm already names that record (the break was
    alarmed by an earlier walk, before a restart or not): 1 if raised now, else 0."""
    cur = await conn.execute(
        "SELECT 1 FROM alarms WHERE table_id = %s AND journal_id = %s AND seq = %s "
        "AND source = 'floor' AND kind = %s LIMIT 1",
        (alarm.table_id, alarm.journal_id, alarm.seq, CHAIN_BROKEN),
    )
    if await cur.fetchone() is not None:
        return 0
    raised = await raise_floor_alarms(conn, [alarm], datetime.now(UTC))
    if raised:
        log.warning(
            "floor_alarm",
            alarm=CHAIN_BROKEN,
            table_id=alarm.table_id,
            journal=alarm.journal_id,
            seq=alarm.seq,
        )
    return raised
