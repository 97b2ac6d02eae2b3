"""One batch of journal messages into the floor's store, in one transaction (docs/floor.md, The
floor): the records (each once: a record the store holds already is a duplicate, or the
witness's conflict), the chain heads, what the floor derives (hands, the tables' alarms,
devices), the witness's alarms and the tables' clock offsets.

The round trips do not grow with the batch, and are few (docs/performance.md, The floor: each
round trip is a wait on PostgreSQL's scheduling on a loaded host): the whole transaction runs in
one pipeline, so its set-wise reads (the tables and journals made known, the heads locked, the
records held beyond a gap) go in one round trip, the hashes the store holds at the batch's seqs
in another only when a seq is at or below its head (a redelivery), and the writes (the new
records as one ``INSERT ... SELECT FROM unnest``, heads, hands, devices, alarms, clock offsets)
with the commit in one more. A batch's pure work (each arrival labelled, each line parsed and
checked: ``prepare``) needs no database, so ``store`` lets the caller do the next batch's while
PostgreSQL commits this one (its ``meanwhile``: docs/performance.md, The floor); the writes and
the commit are sent first, and the commit is awaited before ``store`` returns, so a caller that
acknowledges after it still acknowledges only what is committed. Several floor processes may
share the consumer: each locks the heads of the journals in its batch (in one order, so two
cannot deadlock), so one journal's records are judged by one process at a time.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
from collections import defaultdict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Final, TypeVar

import msgspec
import psycopg

from controller.floor import derive, keys, software
from controller.floor.witness import (
    MISLABELED,
    Chain,
    Link,
    Verdict,
    WitnessAlarm,
    begun_anew,
    mislabeled,
    read,
)
from controller.forwarder.subjects import RecordId, SubjectError, record_id_of, table_of
from controller.journal import JsonValue, Record
from controller.journal.record import RecordError, parse_line

Key = tuple[str, str]
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Arrival:
    """One message as the floor took it from the stream."""

    subject: str
    message_id: str | None
    #: The journal line's exact bytes, without its newline.
    line: bytes
    #: The broker's time of the message (its JetStream metadata), None if not known.
    broker_at: datetime | None = None


@dataclass(slots=True)
class IngestResult:
    """What one batch did."""

    stored: int = 0
    duplicates: int = 0
    conflicts: int = 0
    #: (kind, table, journal, seq) of each floor alarm raised.
    alarms: list[tuple[str, str, str, int]] = field(default_factory=list)
    hands: int = 0


@dataclass(slots=True)
class _Batch:
    """The batch as the witness sorted it."""

    now: datetime
    rows: list[tuple[object, ...]] = field(default_factory=list)
    #: (table, record ts, broker's time) of each new record: the clock offsets' samples.
    stamps: list[tuple[str, datetime, datetime | None]] = field(default_factory=list)
    new: dict[Key, dict[int, Record]] = field(default_factory=lambda: defaultdict(dict))
    linked: dict[Key, list[int]] = field(default_factory=lambda: defaultdict(list))
    alarms: list[WitnessAlarm] = field(default_factory=list)
    result: IngestResult = field(default_factory=IngestResult)
    #: What the lock round trip read ahead for ``keys.check`` and ``software.check``.
    keys_in_force: dict[str, keys.TableKey | None] = field(default_factory=dict)
    digests: tuple[tuple[str, ...], set[str]] = ((), set())


#: One arrival as ``prepare`` left it: its label, the message, its line as ``witness.read`` read
#: it (the record, or why it is none).
Item = tuple[RecordId, Arrival, Record | RecordError]


@dataclass(frozen=True, slots=True)
class Prepared:
    """A batch's pure work, done before its transaction (``prepare``); ``store`` reads it and
    changes nothing in it, so a batch whose transaction failed is stored again from it."""

    #: The arrivals that are not records tablectl sends, or not the ones their labels say.
    alarms: tuple[WitnessAlarm, ...]
    #: Each journal's arrivals, lowest seq first (what arrived out of order in one batch needs
    #: no holding then), in the order of their keys: the order the heads are locked in.
    journals: dict[Key, tuple[Item, ...]]
    #: The tables with a record ``keys.check`` judges, and the digests of the software records
    #: (``software.check``): read with the locks, so the writes wait on no read after them.
    key_tables: tuple[str, ...] = ()
    digests: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.alarms) + sum(len(items) for items in self.journals.values())


def prepare(arrivals: Sequence[Arrival]) -> Prepared:
    """What ``arrivals`` are, before the store is asked anything (pure): each labelled, each
    line parsed and checked for its hash and canonical form."""
    alarms: list[WitnessAlarm] = []
    labelled: dict[Key, list[Item]] = defaultdict(list)
    labels = _Labels()
    for arrival in arrivals:
        record_id, alarm = labels.label(arrival)
        if alarm is not None:
            alarms.append(alarm)
        elif record_id is not None:
            key = (record_id.table_id, record_id.journal_id)
            labelled[key].append((record_id, arrival, read(arrival.line)))
    journals = {
        key: tuple(sorted(labelled[key], key=lambda item: item[0].seq)) for key in sorted(labelled)
    }
    records = [(key, p) for key, items in journals.items() for _, _, p in items]
    key_tables = sorted(
        {k[0] for k, p in records if isinstance(p, Record) and p.kind in keys.KINDS}
    )
    found = software.started([p for _, p in records if isinstance(p, Record)])
    digests = sorted({start.data.digest for start in found})
    return Prepared(tuple(alarms), journals, tuple(key_tables), tuple(digests))


class _Labels:
    """``_label`` for a batch: a batch holds tens of records of each journal, so a subject and
    message id prefix (table and journal) found good once is not checked again; only each
    seq is (and any other arrival is labelled by ``_label``, its verdict and error as ever)."""

    def __init__(self) -> None:
        self._known: dict[tuple[str, str], Key] = {}

    def label(self, arrival: Arrival) -> tuple[RecordId | None, WitnessAlarm | None]:
        message_id = arrival.message_id
        if message_id is not None:
            prefix, _, seq = message_id.rpartition(":")
            known = self._known.get((arrival.subject, prefix))
            if known is not None and seq.isdigit() and not seq.startswith("0"):
                return RecordId(known[0], known[1], int(seq)), None
        record_id, alarm = _label(arrival)
        if record_id is not None and message_id is not None:
            key = (record_id.table_id, record_id.journal_id)
            self._known[(arrival.subject, message_id.rpartition(":")[0])] = key
        return record_id, alarm


def _label(arrival: Arrival) -> tuple[RecordId | None, WitnessAlarm | None]:
    """The record an arrival says it is, or the alarm that it is not one tablectl sends."""
    try:
        table_id = table_of(arrival.subject)
        if arrival.message_id is None:
            raise SubjectError("no Nats-Msg-Id: expected <table id>:<journal id>:<seq>")
        record_id = record_id_of(arrival.message_id)
    except SubjectError as error:
        table = arrival.subject.removeprefix("tablectl.journal.")
        return None, WitnessAlarm(MISLABELED, table, "", 0, str(error), arrival.line)
    alarm = mislabeled(table_id, record_id, arrival.line)
    return (None, alarm) if alarm is not None else (record_id, None)


def _ts(text: str) -> datetime:
    """A record's ts (parse_line checked its form, ending in Z) as an aware time in UTC."""
    return datetime.fromisoformat(text)


async def ingest(
    conn: psycopg.AsyncConnection[tuple[object, ...]], arrivals: Sequence[Arrival]
) -> IngestResult:
    """Store ``arrivals`` in one transaction (committed when this returns)."""
    return await store(conn, prepare(arrivals))


async def store(
    conn: psycopg.AsyncConnection[tuple[object, ...]],
    prepared: Prepared,
    meanwhile: Callable[[], Awaitable[None]] | None = None,
) -> IngestResult:
    """Store the batch ``prepared`` in one transaction, committed when this returns (or not at
    all, if it raises). ``conn`` is in autocommit mode: the batch opens its own transaction.

    ``meanwhile`` (the next batch's fetch and ``prepare``) is run once, while PostgreSQL
    commits: from when the writes and the commit are sent, so the Python work of one batch and
    PostgreSQL's of the other overlap on two cores. If the transaction fails before its commit
    is sent, ``meanwhile`` runs then. Its end is awaited before this returns or raises."""
    if not conn.autocommit:
        raise ValueError(
            "ingest's connection: expected autocommit mode (the batch opens its own "
            "transaction, and commits it before the next batch's work)"
        )
    sent = asyncio.Event()
    other = None if meanwhile is None else asyncio.ensure_future(_after(sent, meanwhile))
    try:
        result = await _transaction(conn, prepared, sent)
    except BaseException as error:
        if other is not None:
            if isinstance(error, asyncio.CancelledError):
                other.cancel()
            sent.set()
            await asyncio.gather(other, return_exceptions=True)  # the store's error is told
        raise
    if other is not None:
        await other
    return result


async def store_all(
    take: Callable[[bool], Awaitable[tuple[T, Prepared] | None]],
    store_one: Callable[[Prepared, Callable[[], Awaitable[None]]], Awaitable[IngestResult | None]],
    stored: Callable[[T, IngestResult], Awaitable[None]],
    going: Callable[[], bool],
) -> None:
    """Batches taken and stored in turn, each batch's successor taken and prepared while it
    commits (``store``'s ``meanwhile``), until ``going()`` is false: ``floor serve``'s loop and
    the benchmark's (benchmarks/floor.py), one code.

    ``take(wait)`` gives a batch (what the caller keeps of it, and the batch prepared) or None:
    with ``wait``, after waiting for one; without, at once (while a batch commits). ``store_one``
    stores a batch, running its ``meanwhile`` once (``store``; a caller retrying it passes it to
    each try, and the taking happens once: a batch taken is held, and another is not taken while
    one is held); None: stopped before it committed, and the loop ends with nothing more stored.
    ``stored`` is told each batch after its commit (serve acknowledges it then), in the order
    taken. A batch held when ``going()`` turns false is stored before the loop ends."""
    held: tuple[T, Prepared] | None = None

    async def take_next() -> None:
        nonlocal held
        if held is None and going():
            held = await take(False)

    while True:
        taken, held = held, None
        if taken is None:
            if not going():
                return
            taken = await take(True)
            if taken is None:
                continue
        result = await store_one(taken[1], take_next)
        if result is None:
            return  # stopped: neither this batch nor a held one is told as stored
        await stored(taken[0], result)


async def _after(sent: asyncio.Event, meanwhile: Callable[[], Awaitable[None]]) -> None:
    await sent.wait()
    await meanwhile()


async def _transaction(
    conn: psycopg.AsyncConnection[tuple[object, ...]], prepared: Prepared, sent: asyncio.Event
) -> IngestResult:
    """The batch's transaction in one pipeline. Its BEGIN and COMMIT are sent as statements
    (``conn.transaction()`` would queue the COMMIT unsent until its result is awaited), so
    ``sent`` is set once the commit is on its way; on an error the transaction is rolled back
    before this raises."""
    batch = _Batch(datetime.now(UTC), alarms=list(prepared.alarms))
    try:
        async with conn.pipeline():
            await conn.execute("BEGIN")
            chains, current = await _lock_chains(conn, prepared, batch)
            stored = await _stored_hashes(conn, prepared.journals, chains)
            for key, items in prepared.journals.items():
                _witness(chains[key], items, stored, batch)
            await _write(conn, chains, current, batch)
            await conn.execute("COMMIT")
            sent.set()
        # Leaving the pipeline awaited every statement's result, the commit's among them.
    except BaseException:
        sent.set()
        if not conn.closed:
            # Out of the aborted pipeline and the failed transaction; an error here is a lost
            # connection, whose transaction PostgreSQL ends with it.
            with contextlib.suppress(psycopg.Error):
                await conn.rollback()
        raise
    batch.result.alarms[:0] = [(a.kind, a.table_id, a.journal_id, a.seq) for a in batch.alarms]
    return batch.result


async def _lock_chains(
    conn: psycopg.AsyncConnection[tuple[object, ...]], prepared: Prepared, batch: _Batch
) -> tuple[dict[Key, Chain], dict[Key, int | None]]:
    """Each journal's chain, its head locked for this transaction, with the records held beyond
    a gap; a journal new to a known table raises ``journal_begun_anew``. After the locks, the
    keys in force and the approved digests the batch's records ask for (into ``batch``)."""
    journals = list(prepared.journals)
    tables = sorted({table for table, _ in journals})
    pairs = ([t for t, _ in journals], [j for _, j in journals])
    # Queued in the pipeline, read back together: one round trip. The journals known before
    # this batch are read before its own are inserted (statements run in the order sent).
    async with (
        conn.cursor() as cur,
        conn.cursor() as known_cur,
        conn.cursor() as heads_cur,
        conn.cursor() as keys_cur,
        conn.cursor() as digests_cur,
        conn.cursor() as held_cur,
    ):
        # A cursor a statement read back: in a pipeline a fetch on a cursor that ran a write
        # before its SELECT can be given the write's result (psycopg: "the last operation
        # didn't produce records"), which stopped floor serve under load. ``cur`` only writes.
        # Each statement set-wise (unnest of arrays), never one per row: a row's adapting and
        # its protocol message cost the floor's Python more than PostgreSQL's work on it.
        await cur.execute(
            "INSERT INTO tables (table_id, first_seen, last_seen) "
            "SELECT t, %s, %s FROM unnest(%s::text[]) AS t "
            "ON CONFLICT (table_id) DO UPDATE SET last_seen = greatest(tables.last_seen, "
            "EXCLUDED.last_seen)",
            (batch.now, batch.now, tables),
        )
        await known_cur.execute(
            "SELECT table_id, journal_id FROM journals WHERE table_id = ANY(%s)", (tables,)
        )
        await cur.execute(
            "INSERT INTO journals (table_id, journal_id, first_seen) "
            "SELECT t, j, %s FROM unnest(%s::text[], %s::text[]) AS k(t, j) "
            "ON CONFLICT DO NOTHING",
            (batch.now, *pairs),
        )
        # Locked by the owner's function: floor serve's role may not UPDATE a head, so may
        # not lock one either (controller/floor/store.py, migration 3).
        await heads_cur.execute("SELECT * FROM floor_lock_heads(%s::text[], %s::text[])", pairs)
        await held_cur.execute(
            "SELECT r.table_id, r.journal_id, r.seq, r.hash, r.prev FROM records r "
            "JOIN unnest(%s::text[], %s::text[]) AS k(t, j) "
            "ON r.table_id = k.t AND r.journal_id = k.j WHERE NOT r.linked",
            pairs,
        )
        # After the locks, in the same round trip: what keys.check and software.check read
        # (read in the writes, each was a wait for PostgreSQL to finish the records' insert).
        if prepared.key_tables:
            await keys_cur.execute(keys.IN_FORCE, (list(prepared.key_tables),))
        if prepared.digests:
            await digests_cur.execute(software.APPROVED, (list(prepared.digests),))
        known: dict[str, set[str]] = defaultdict(set)
        for table, journal in await known_cur.fetchall():
            known[str(table)].add(str(journal))
        for table, journal in journals:
            alarm = begun_anew(table, journal, known[table], b"", 0)
            if alarm is not None:
                batch.alarms.append(alarm)
        chains: dict[Key, Chain] = {}
        current: dict[Key, int | None] = {}
        for table, journal, seq, hash_, hand, prev in await heads_cur.fetchall():
            key = (str(table), str(journal))
            head = Link(int(seq), str(hash_), str(prev)) if seq else None  # type: ignore[call-overload]
            chains[key] = Chain(key[0], key[1], head)
            current[key] = None if hand is None else int(hand)  # type: ignore[call-overload]
        for table, journal, seq, hash_, prev in await held_cur.fetchall():
            link = Link(int(seq), str(hash_), str(prev))  # type: ignore[call-overload]
            chains[(str(table), str(journal))].held[link.seq] = link
        if prepared.key_tables:
            batch.keys_in_force = keys.in_force_of(prepared.key_tables, await keys_cur.fetchall())
        if prepared.digests:
            approved = {str(row[0]) for row in await digests_cur.fetchall()}
            batch.digests = (prepared.digests, approved)
    return chains, current


async def _stored_hashes(
    conn: psycopg.AsyncConnection[tuple[object, ...]],
    journals: dict[Key, tuple[Item, ...]],
    chains: dict[Key, Chain],
) -> dict[tuple[str, str, int], str]:
    """The hash the store holds at each (table, journal, seq) of the batch, where it holds one.

    The store holds a journal's records 1 to its head and those held beyond a gap (the chain
    has them): only a seq at or below the head is looked up, so a batch of new records, the
    usual one, costs no round trip here."""
    ids = [
        record_id
        for key, items in journals.items()
        for record_id, _, _ in items
        if record_id.seq <= chains[key].head_seq
    ]
    if not ids:
        return {}
    async with conn.cursor() as cur:
        await cur.execute(
            "SELECT r.table_id, r.journal_id, r.seq, r.hash FROM records r "
            "JOIN unnest(%s::text[], %s::text[], %s::bigint[]) AS k(t, j, s) "
            "ON r.table_id = k.t AND r.journal_id = k.j AND r.seq = k.s",
            ([i.table_id for i in ids], [i.journal_id for i in ids], [i.seq for i in ids]),
        )
        return {
            (str(t), str(j), int(s)): str(h)  # type: ignore[call-overload]
            for t, j, s, h in await cur.fetchall()
        }


def _witness(
    chain: Chain,
    items: tuple[Item, ...],
    stored: dict[tuple[str, str, int], str],
    batch: _Batch,
) -> None:
    """Judge one journal's arrivals, lowest seq first (``prepare`` sorted them)."""
    key = (chain.table_id, chain.journal_id)
    for record_id, arrival, parsed in items:
        stored_key = (record_id.table_id, record_id.journal_id, record_id.seq)
        judgement = chain.judge(record_id, arrival.line, stored.get(stored_key), parsed)
        batch.alarms.extend(judgement.alarms)
        if judgement.verdict is Verdict.DUPLICATE:
            batch.result.duplicates += 1
        elif judgement.verdict is Verdict.CONFLICT:
            batch.result.conflicts += 1
        elif judgement.verdict is Verdict.STORE and judgement.record is not None:
            record = judgement.record
            stored[stored_key] = record.hash  # a second copy in this batch is a duplicate
            batch.new[key][record.seq] = record
            batch.rows.append(
                (
                    chain.table_id,
                    chain.journal_id,
                    record.seq,
                    record.ts,  # as the table wrote it: PostgreSQL reads it as timestamptz
                    record.kind,
                    arrival.line,
                    record.hash,
                    record.prev,
                    arrival.broker_at,
                    record.seq <= chain.head_seq,
                )
            )
            batch.stamps.append((chain.table_id, _ts(record.ts), arrival.broker_at))
            batch.result.stored += 1
        batch.linked[key].extend(judgement.linked)


async def _write(
    conn: psycopg.AsyncConnection[tuple[object, ...]],
    chains: dict[Key, Chain],
    current: dict[Key, int | None],
    batch: _Batch,
) -> None:
    async with conn.cursor() as cur:
        if batch.rows:
            await cur.execute(_RECORDS_INSERT, _record_columns(batch))
        relinked = await _relinked(cur, batch)
        hands: list[tuple[object, ...]] = []
        devices: list[tuple[object, ...]] = []
        table_alarms: list[tuple[object, ...]] = []
        linked: dict[Key, list[Record]] = {}
        for key, seqs in batch.linked.items():
            records = linked[key] = [
                batch.new[key].get(seq) or relinked[(key, seq)] for seq in seqs
            ]
            derived = derive.derive(records, current.get(key))
            hands.extend(_hand_row(key, row) for row in derived.hands.values())
            devices.extend(_device_row(key, row) for row in derived.devices)
            table_alarms.extend(_table_alarm_row(key, alarm) for alarm in derived.alarms)
            table_alarms.extend(_refused_row(key, refused) for refused in derived.refused)
            current[key] = derived.current_hand
        # The software each table started with, its keys and checkpoint signatures.
        raised = [
            *await software.check(cur, linked, batch.digests),
            *await keys.check(cur, linked, batch.now, batch.keys_in_force),
        ]
        table_alarms.extend(raised)
        # Logged at warning by floor serve as the witness's are (docs/floor.md, The witness):
        # (kind, table, journal, seq) of each row as _ALARM_INSERT takes it.
        batch.result.alarms.extend(
            (str(r[4]), str(r[0]), str(r[1]), int(str(r[2]))) for r in raised
        )
        # The owner's functions, which only move a record to linked and a head forward
        # (controller/floor/store.py, migration 3), each one statement for the batch.
        if relinked:
            await cur.execute(
                "SELECT floor_link_records(%s::text[], %s::text[], %s::bigint[])",
                (
                    [key[0] for key, _ in relinked],
                    [key[1] for key, _ in relinked],
                    [seq for _, seq in relinked],
                ),
            )
        await cur.execute(
            "SELECT floor_advance_heads(%s::text[], %s::text[], %s::bigint[], %s::text[], "
            "%s::integer[])",
            [
                [key[0] for key in chains],
                [key[1] for key in chains],
                [chain.head_seq for chain in chains.values()],
                [None if chain.head is None else chain.head.hash for chain in chains.values()],
                [current[key] for key in chains],
            ],
        )
        if hands:
            await cur.execute(_HAND_UPSERT, _hand_columns(hands))
        await cur.executemany(
            "INSERT INTO devices (table_id, journal_id, seq, at, device, event, outcome, boot, "
            "serial, reason, detail) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
            "ON CONFLICT DO NOTHING",
            devices,
        )
        await cur.executemany(
            _ALARM_INSERT, [*table_alarms, *(_floor_alarm_row(a, batch.now) for a in batch.alarms)]
        )
        offsets = _offsets(batch)
        if offsets:
            table, window, floor_ms, broker_ms, samples = zip(*offsets, strict=True)
            await cur.execute(
                _OFFSET_UPSERT,
                (window[0], list(table), list(floor_ms), list(broker_ms), list(samples)),
            )
        batch.result.hands = len(hands)


async def _relinked(
    cur: psycopg.AsyncCursor[tuple[object, ...]], batch: _Batch
) -> dict[tuple[Key, int], Record]:
    """The records of earlier batches that this batch's arrivals linked (they were held beyond
    a gap), read back from their stored lines to derive from."""
    wanted = [
        (key, seq)
        for key, seqs in batch.linked.items()
        for seq in seqs
        if seq not in batch.new[key]
    ]
    if not wanted:
        return {}
    # A cursor of its own: in a pipeline, ``cur`` still holds the records' INSERT unread, and
    # a fetch on it would be given that statement's result, not this one's.
    async with cur.connection.cursor() as read:
        await read.execute(
            "SELECT r.table_id, r.journal_id, r.seq, r.line FROM records r "
            "JOIN unnest(%s::text[], %s::text[], %s::bigint[]) AS k(t, j, s) "
            "ON r.table_id = k.t AND r.journal_id = k.j AND r.seq = k.s",
            ([k[0] for k, _ in wanted], [k[1] for k, _ in wanted], [s for _, s in wanted]),
        )
        rows = await read.fetchall()
    return {((str(t), str(j)), int(s)): parse_line(bytes(line)) for t, j, s, line in rows}


#: The batch's new records in one statement, queued in the pipeline (a COPY cannot be, and
#: would cost a round trip of its own). Each column travels as one text of its values, one a
#: line, split by PostgreSQL: adapting 500 rows of 10 values one by one costs the floor more
#: Python time than everything else in the batch but the hash checks (docs/performance.md,
#: The floor). No value so joined holds a newline: canonical JSON escapes it, a subject has no
#: white space, hashes and times are of fixed forms; a kind may hold any character, so the kinds
#: go as an array.
#: A line is the journal's UTF-8 text; convert_to gives back its exact bytes.
_RECORDS_INSERT = (
    "INSERT INTO records (table_id, journal_id, seq, ts, kind, line, hash, prev, broker_at, "
    "linked, received_at) SELECT t, j, s::bigint, ts::timestamptz, k, convert_to(l, 'UTF8'), "
    "h, p, nullif(b, '')::timestamptz, lk::boolean, %s::timestamptz FROM unnest("
    "string_to_array(%s, E'\\n'), string_to_array(%s, E'\\n'), string_to_array(%s, E'\\n'), "
    "string_to_array(%s, E'\\n'), %s::text[], string_to_array(%s, E'\\n'), "
    "string_to_array(%s, E'\\n'), string_to_array(%s, E'\\n'), string_to_array(%s, E'\\n'), "
    "string_to_array(%s, E'\\n')) AS r(t, j, s, ts, k, l, h, p, b, lk)"
)


def _record_columns(batch: _Batch) -> list[object]:
    """The parameters of ``_RECORDS_INSERT``: the batch's time, then each column as one text."""
    t, j, s, ts, k, lines, h, p, b, lk = zip(*batch.rows, strict=True)
    return [
        batch.now,
        "\n".join(t),
        "\n".join(j),
        "\n".join(map(str, s)),
        "\n".join(ts),
        list(k),
        b"\n".join(lines).decode(),
        "\n".join(h),
        "\n".join(p),
        "\n".join("" if at is None else at.isoformat() for at in b),
        "\n".join("t" if linked else "f" for linked in lk),
    ]


#: A hand's JSON columns' text (PostgreSQL reads it as jsonb, which keeps values, not text):
#: msgspec's encoding, in C, several times the standard library's speed.
_JSONB: Final = msgspec.json.Encoder()


def _jsonb(value: JsonValue) -> str | None:
    return None if value is None else _JSONB.encode(value).decode()


#: The batch's hands in one statement, each parameter a column (``_hand_columns``): a hand
#: appears once in a batch (derive gives a row a hand), so no row is updated twice. The JSON
#: columns go as one text each, a value a line ('-' for none: no JSON text is that, and none
#: holds a newline), as the records' lines do: as arrays, psycopg escaped each quote of each
#: value in Python, a fifth of the batch's Python time.
_HAND_UPSERT = (
    "SELECT floor_upsert_hands(%s::text[], %s::text[], %s::integer[], %s::text[], %s::bigint[], "
    "%s::timestamptz[], %s, %s, %s, %s::integer[], %s, %s, %s, %s, %s::boolean[], %s::boolean[], "
    "%s::bigint[])"
)


#: The JSON columns of ``_hand_row``: stakes, rules, seats, cards, actions, pots, settlement.
_HAND_JSON: Final = (6, 7, 8, 10, 11, 12, 13)


def _hand_columns(hands: list[tuple[object, ...]]) -> list[object]:
    """``_HAND_UPSERT``'s parameters: the rows' columns, each JSON column one text."""
    columns: list[object] = [list(column) for column in zip(*hands, strict=True)]
    for n in _HAND_JSON:
        values = columns[n]
        assert isinstance(values, list)
        columns[n] = "\n".join("-" if value is None else str(value) for value in values)
    return columns


def _hand_row(key: Key, row: derive.HandRow) -> tuple[object, ...]:
    return (
        *key,
        row.hand,
        row.game,
        row.started_seq,
        None if row.started_at is None else _ts(row.started_at),
        _jsonb(row.stakes),
        _jsonb(row.rules),
        _jsonb(row.seats),
        row.dealer,
        _jsonb(row.cards),
        _jsonb(row.actions),
        _jsonb(row.pots),
        _jsonb(row.settlement) or "{}",
        row.finished,
        row.voided,
        row.last_seq,
    )


def _device_row(key: Key, row: derive.DeviceRow) -> tuple[object, ...]:
    d = row.data
    detail = {"lost": None if d.lost is None else list(d.lost), "rejected": d.rejected}
    return (
        *key,
        row.seq,
        _ts(row.at),
        d.device,
        d.event,
        d.outcome,
        d.boot,
        d.serial,
        d.reason,
        json.dumps(detail),
    )


_ALARM_INSERT = (
    "INSERT INTO alarms (table_id, journal_id, seq, source, kind, message, evidence, held_hash, "
    "evidence_hash, raised_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
    "ON CONFLICT DO NOTHING"
)


async def raise_floor_alarms(
    conn: psycopg.AsyncConnection[tuple[object, ...]],
    alarms: Sequence[WitnessAlarm],
    now: datetime,
) -> int:
    """Floor alarms raised outside a batch (the chain walk's, controller/floor/chainwatch.py),
    by the batch's own statement and rows; ``conn`` in autocommit mode. How many were new."""
    raised = 0
    async with conn.cursor() as cur:
        for alarm in alarms:
            await cur.execute(_ALARM_INSERT, _floor_alarm_row(alarm, now))
            raised += max(cur.rowcount, 0)
    return raised


def _table_alarm_row(key: Key, alarm: derive.TableAlarm) -> tuple[object, ...]:
    return (*key, alarm.seq, "table", alarm.kind, alarm.message, None, None, "", _ts(alarm.at))


def _refused_row(key: Key, refused: derive.Refused) -> tuple[object, ...]:
    """A record the floor stores but cannot read (derive.Refused): a floor alarm."""
    return (
        *key,
        refused.seq,
        "floor",
        "schema_refused",
        refused.message,
        None,
        None,
        "",
        _ts(refused.at),
    )


def _floor_alarm_row(alarm: WitnessAlarm, now: datetime) -> tuple[object, ...]:
    return (
        alarm.table_id,
        alarm.journal_id,
        alarm.seq,
        "floor",
        alarm.kind,
        alarm.message,
        alarm.evidence,
        alarm.held,
        # Redelivered, the same evidence raises no second alarm (the unique key holds its hash).
        hashlib.sha256(alarm.evidence).hexdigest(),
        now,
    )


#: The batch's offsets in one statement: the window, then each column (``_offsets``'s).
_OFFSET_UPSERT = (
    "INSERT INTO clock_offsets (table_id, window_start, min_floor_ms, min_broker_ms, samples) "
    "SELECT t, %s, f, b, n FROM unnest(%s::text[], %s::float8[], %s::float8[], %s::bigint[]) "
    "AS o(t, f, b, n) ON CONFLICT (table_id, window_start) DO UPDATE SET "
    "min_floor_ms = least(clock_offsets.min_floor_ms, EXCLUDED.min_floor_ms), "
    "min_broker_ms = least(clock_offsets.min_broker_ms, EXCLUDED.min_broker_ms), "
    "samples = clock_offsets.samples + EXCLUDED.samples"
)


@dataclass(slots=True)
class _Offset:
    floor_ms: float
    broker_ms: float | None
    samples: int = 0

    def add(self, floor_ms: float, broker_ms: float | None) -> None:
        self.floor_ms = min(self.floor_ms, floor_ms)
        if broker_ms is not None:
            self.broker_ms = broker_ms if self.broker_ms is None else min(self.broker_ms, broker_ms)
        self.samples += 1


def _ms(later: datetime, earlier: datetime) -> float:
    return (later - earlier).total_seconds() * 1000


def _offsets(batch: _Batch) -> list[tuple[object, ...]]:
    """Per table, the least (receipt - record ts) of the batch's new records, in ms, in the
    hour's window (docs/floor.md, The store: what it bounds)."""
    least: dict[str, _Offset] = {}
    for table, ts, broker_at in batch.stamps:
        floor_ms = _ms(batch.now, ts)
        broker_ms = None if broker_at is None else _ms(broker_at, ts)
        least.setdefault(table, _Offset(floor_ms, broker_ms)).add(floor_ms, broker_ms)
    window = batch.now.replace(minute=0, second=0, microsecond=0)
    return [
        (table, window, o.floor_ms, o.broker_ms, o.samples) for table, o in sorted(least.items())
    ]
