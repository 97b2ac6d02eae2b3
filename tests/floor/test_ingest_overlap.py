"""controller/floor/ingest.py's split and overlap (docs/performance.md, The
floor): ``prepare`` (the pure work) and ``store`` (the transaction) give what the one-piece ingest
gave, the next batch's work runs while a batch commits, and ``store_all`` (floor serve's loop)
tells a batch as stored, to be acknowledged, only after its commit: a commit that fails is
stored again, once, and told once."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

import psycopg
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from floorhelp import arrivals, count, fixture_lines, floor_database, ingest_now, rewritten
from test_floor_cli import floor_toml
from test_floor_keys import checkpoint, journal, key_record, kinds, register
from test_floor_software import lost

from controller.floor import ingest
from controller.floor.floortoml import parse
from controller.floor.ingest import Arrival, IngestResult, Prepared
from controller.floor.serve import Floor
from controller.floor.witness import MISLABELED
from controller.forwarder.subjects import RecordId, subject_of
from controller.journal.record import RecordError, parse_line
from simulator.servers_pg import PostgresServer

Conn = psycopg.AsyncConnection[tuple[object, ...]]

#: What the store holds, but the times of receipt (which differ between two runs).
_CONTENT = (
    "SELECT table_id, journal_id, seq, kind, line, hash, prev, linked FROM records "
    "ORDER BY table_id, journal_id, seq",
    "SELECT table_id, journal_id, hand, game, started_seq, stakes, rules, seats, dealer, cards, "
    "actions, pots, settlement, finished, voided, last_seq FROM hands ORDER BY 1, 2, 3",
    "SELECT table_id, journal_id, seq, source, kind, message, evidence, held_hash FROM alarms "
    "ORDER BY 1, 2, 3, 4, 5",
    "SELECT table_id, journal_id, head_seq, head_hash, current_hand FROM journals ORDER BY 1, 2",
    "SELECT table_id, journal_id, seq, device, event, outcome FROM devices ORDER BY 1, 2, 3",
)


def content(dsn: str) -> list[list[tuple[object, ...]]]:
    with psycopg.connect(dsn) as conn:
        return [conn.execute(query.encode()).fetchall() for query in _CONTENT]


def shuffled_batches(lines: Sequence[bytes]) -> list[list[Arrival]]:
    """Two tables' journals (the second rewritten at seq 9 after the first 12 were sent, so a
    conflict and its evidence), in batches of 7 whose records come out of order within and
    across batches, with a redelivered batch among them."""
    one = arrivals("T1", lines)
    two = arrivals("T2", lines)
    later = arrivals("T2", rewritten(lines, 9), range(9, 13))
    mixed = [item for pair in zip(one, two, strict=True) for item in pair]
    ordered = mixed[:30] + later + mixed[30:]
    swapped = [*ordered[7:14], *ordered[:7], *ordered[14:]]  # across a batch boundary
    batches = [swapped[n : n + 7] for n in range(0, len(swapped), 7)]
    for batch in batches[::3]:
        batch.reverse()  # within a batch
    return [*batches[:4], batches[1], *batches[4:]]  # batch 1 again: a redelivery


async def _store_all(dsn: str, work: Sequence[Sequence[Arrival]]) -> list[IngestResult]:
    """``work`` through ``store_all`` (each batch prepared while the one before commits)."""
    results: list[IngestResult] = []
    left = iter(enumerate(work))
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:

        async def take(wait: bool) -> tuple[int, Prepared] | None:
            taken = next(left, None)
            return None if taken is None else (taken[0], ingest.prepare(taken[1]))

        async def store_one(
            batch: Prepared, meanwhile: Callable[[], Awaitable[None]]
        ) -> IngestResult:
            return await ingest.store(conn, batch, meanwhile)

        async def stored(n: int, result: IngestResult) -> None:
            assert n == len(results)  # told in the order taken
            results.append(result)

        await ingest.store_all(take, store_one, stored, lambda: len(results) < len(work))
    return results


def test_prepare_reads_each_line_as_parse_line_does_and_sorts_each_journal_by_seq() -> None:
    lines = fixture_lines()
    tampered = lines[4].replace(b'"seq":5', b'"seq":6')
    batch = [
        *arrivals("T1", lines, [3, 1, 2]),
        Arrival(
            subject_of("T1"), RecordId("T1", parse_line(lines[0]).hash, 5).message_id(), tampered
        ),
        Arrival(
            subject_of("T2"), RecordId("T1", parse_line(lines[0]).hash, 4).message_id(), lines[3]
        ),
        Arrival("tablectl.journal.T3", None, lines[0]),
    ]
    prepared = ingest.prepare(batch)
    ((key, items),) = prepared.journals.items()
    assert key == ("T1", parse_line(lines[0]).hash)
    assert [record_id.seq for record_id, _, _ in items] == [1, 2, 3, 5]
    for _, arrival, parsed in items[:3]:
        assert parsed == parse_line(arrival.line)
    with pytest.raises(RecordError) as expected:
        parse_line(tampered)
    assert isinstance(items[3][2], RecordError)
    assert str(items[3][2]) == str(expected.value)
    # The message id naming another table than its subject, and no message id at all.
    assert [alarm.kind for alarm in prepared.alarms] == [MISLABELED, MISLABELED]
    assert len(prepared) == len(batch)


def test_the_overlapped_loop_stores_what_one_batch_at_a_time_stored(
    postgres: PostgresServer,
) -> None:
    lines = fixture_lines()
    work = shuffled_batches(lines)
    one_at_a_time, overlapped = floor_database(postgres), floor_database(postgres)
    before = [ingest_now(one_at_a_time.writer, batch) for batch in work]
    after = asyncio.run(_store_all(overlapped.writer, work))
    assert after == before
    assert sum(result.duplicates for result in after) >= 7  # the redelivered batch
    assert sum(result.conflicts for result in after) >= 1  # T2's rewrite
    assert content(overlapped.reader) == content(one_at_a_time.reader)
    assert content(overlapped.reader)[0]  # records, at all


def test_the_next_batchs_work_runs_while_the_commit_is_in_flight(
    postgres: PostgresServer,
) -> None:
    """``meanwhile`` starts once the commit is sent, before its result is read: PostgreSQL
    commits the batch while the floor's Python works (the test sees the rows committed from
    another connection while ``meanwhile`` holds the writer's loop)."""
    db = floor_database(postgres)
    lines = fixture_lines()
    seen: list[int] = []

    async def run() -> IngestResult:
        async with await psycopg.AsyncConnection.connect(db.writer, autocommit=True) as conn:

            async def meanwhile() -> None:
                deadline = time.monotonic() + 30
                # Blocking reads on purpose: the writer's coroutine cannot read its results
                # meanwhile, so the rows can only be there if the commit went out first.
                while (stored := count(db.reader, "SELECT count(*) FROM records")) < len(lines):
                    assert time.monotonic() < deadline, f"{stored} rows committed, not all"
                seen.append(stored)

            return await ingest.store(conn, ingest.prepare(arrivals("T1", lines)), meanwhile)

    result = asyncio.run(run())
    assert result.stored == len(lines)
    assert seen == [len(lines)]


def test_a_connection_not_in_autocommit_mode_is_refused_naming_it(
    postgres: PostgresServer,
) -> None:
    db = floor_database(postgres)

    async def run() -> None:
        async with await psycopg.AsyncConnection.connect(db.writer) as conn:
            await ingest.store(conn, ingest.prepare(arrivals("T1", fixture_lines())))

    with pytest.raises(ValueError, match="autocommit"):
        asyncio.run(run())
    assert count(db.reader, "SELECT count(*) FROM records") == 0


#: Fails the first commit of a records row in the database, with a connection failure's
#: SQLSTATE (what a PostgreSQL lost at the commit gives floor serve): a deferred constraint
#: trigger fires at the COMMIT; the sequence is not rolled back with the transaction.
_FAIL_FIRST_COMMIT = """
CREATE SEQUENCE commits_tried;
CREATE FUNCTION fail_first_commit() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
    IF nextval('commits_tried') = 1 THEN
        RAISE EXCEPTION 'the test fails this commit' USING ERRCODE = '08006';
    END IF;
    RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER fail_first_commit AFTER INSERT ON records
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION fail_first_commit();
"""


def test_a_batch_whose_commit_fails_is_not_told_stored_and_is_stored_again_once(
    postgres: PostgresServer, tmp_path: Path
) -> None:
    """floor serve's own store (its retry while PostgreSQL fails) in ``store_all``: the first
    batch's commit fails; the batch is told as stored (acknowledged) once, after the commit
    that held, and every record is stored once."""
    db = floor_database(postgres)
    with psycopg.connect(db.owner, autocommit=True) as conn:
        conn.execute(_FAIL_FIRST_COMMIT.encode())
    lines = fixture_lines()
    work = [
        arrivals("T1", lines, range(n + 1, min(n + 20, len(lines)) + 1))
        for n in range(0, len(lines), 20)
    ]
    data: dict[str, object] = {
        "nats": {"servers": ["nats://127.0.0.1:4222"], "user": "floor", "password_file": "n"},
        "postgres": {"dsn": db.writer},
    }
    floor = Floor(parse(data, tmp_path, "floor.toml"))
    left = iter(enumerate(work))
    told: list[tuple[int, int, int]] = []

    async def take(wait: bool) -> tuple[int, Prepared] | None:
        taken = next(left, None)
        return None if taken is None else (taken[0], ingest.prepare(taken[1]))

    async def stored(n: int, result: IngestResult) -> None:
        committed = count(db.reader, "SELECT count(*) FROM records")
        told.append((n, result.stored, committed))

    async def run() -> None:
        try:
            await ingest.store_all(take, floor._store, stored, lambda: len(told) < len(work))
        finally:
            await floor._drop_database()

    asyncio.run(run())
    sizes = [len(batch) for batch in work]
    assert [n for n, _, _ in told] == list(range(len(work)))
    assert [stored for _, stored, _ in told] == sizes
    # Each told after its own commit: what the store held then is every batch up to it.
    assert [committed for _, _, committed in told] == [
        sum(sizes[: n + 1]) for n in range(len(work))
    ]
    assert count(db.reader, "SELECT count(*) FROM records") == len(lines)
    assert count(db.owner, "SELECT last_value FROM commits_tried") > len(lines)  # one failed


def _loop(stop_after: int, fail_at: int | None = None) -> tuple[list[str], list[int]]:
    """``store_all`` over batches 0, 1, 2, ... with a store that runs its ``meanwhile`` and
    stores nothing: the events in order, and the batches told as stored. The loop is stopped
    once ``stop_after`` are told; ``fail_at``: the store of that batch is stopped (None)."""
    events: list[str] = []
    told: list[int] = []
    taken = iter(range(100))

    async def take(wait: bool) -> tuple[int, Prepared] | None:
        n = next(taken)
        events.append(f"take {n}" + (" waiting" if wait else " while committing"))
        return n, ingest.prepare([])

    async def store_one(
        batch: Prepared, meanwhile: Callable[[], Awaitable[None]]
    ) -> IngestResult | None:
        n = len(told)
        events.append(f"store {n}")
        await meanwhile()
        if n == fail_at:
            return None
        events.append(f"committed {n}")
        return IngestResult()

    async def stored(n: int, result: IngestResult) -> None:
        events.append(f"told {n}")
        told.append(n)

    asyncio.run(ingest.store_all(take, store_one, stored, lambda: len(told) < stop_after))
    return events, told


def test_store_all_takes_the_next_batch_while_one_commits_and_tells_each_after_its_commit() -> None:
    events, told = _loop(stop_after=2)
    assert events == [
        "take 0 waiting",
        "store 0",
        "take 1 while committing",
        "committed 0",
        "told 0",
        "store 1",
        "take 2 while committing",
        "committed 1",
        "told 1",
        # Stopped with batch 2 taken: it is stored and told, and nothing more is taken.
        "store 2",
        "committed 2",
        "told 2",
    ]
    assert told == [0, 1, 2]


def test_store_all_stopped_before_a_commit_tells_neither_that_batch_nor_the_one_taken() -> None:
    events, told = _loop(stop_after=5, fail_at=1)
    assert told == [0]
    assert events[-2:] == ["store 1", "take 2 while committing"]


def test_the_keys_and_digests_a_batch_asks_for_are_found_before_its_transaction() -> None:
    """``prepare`` names what ``keys.check`` and ``software.check`` will read, so the lock round
    trip reads it (the checks make no read of their own in the writes)."""
    lines = fixture_lines()
    prepared = ingest.prepare(arrivals("T1", lines))
    assert prepared.key_tables == ("T1",)  # the fixture's checkpoints
    assert ingest.prepare(arrivals("T1", lines[:1])).key_tables == ()
    assert prepared.digests == ()  # a journal from before the software record


def test_a_checkpoint_linked_by_a_later_batch_is_still_checked_against_the_key_in_force(
    tmp_path: Path, postgres: PostgresServer
) -> None:
    """Checkpoints held beyond a gap are judged when a later batch, with no record of a key
    or a checkpoint itself, links them: ``keys.check`` reads the keys in force then."""
    db = floor_database(postgres)
    k1, forger = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    register(tmp_path, db, floor_toml(tmp_path, postgres, db), "T1", k1)
    lines = journal(
        [
            key_record(k1),
            lost("shoe"),
            lost("shoe"),
            checkpoint(forger, claimed=k1),
            checkpoint(None),
        ]
    )
    first = ingest_now(db.writer, arrivals("T1", lines, [1, 2, 4, 5]))  # 3 missing: 4, 5 held
    assert first.stored == 4
    assert kinds(db) == []
    second = ingest.prepare(arrivals("T1", lines, [3]))
    assert second.key_tables == ()
    ingest_now(db.writer, arrivals("T1", lines, [3]))
    assert kinds(db) == [("checkpoint_signature", 4), ("checkpoint_signature", 5)]
