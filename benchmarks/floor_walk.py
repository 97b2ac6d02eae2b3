"""The cost of floor serve's own walk of every stored chain (docs/performance.md, The chain walk).

    python benchmarks/floor_walk.py [--quick] [--tables 200] [--hands 30]

A throwaway PostgreSQL (fsync on, benchmarks/floor.py's) is filled by the floor's own ingest
with ``--tables`` tables' journals (a simulated table's records, re-chained for each table,
benchmarks/floor.py ``journal_lines``); then, on the same rows:

- **select**: a plain read of every journal's rows (seq, hash, line), in the walk's chunks by
  the primary key, with no Python work per row: what the reads alone cost;
- **walk**: ``chainwatch.walk_all`` as floor serve runs it (controller/floor/chainwatch.py):
  records walked a second, against the select's rate and the ingest's;
- **beside**: the ingest of another 20 tables' journals alone, then again while a walk of
  the stored ones runs in the same event loop, as in floor serve: the ingest's rate beside the
  walk as a share of its rate alone (what the walk takes from the ingest).

``--quick`` runs it small (tests/floor/test_floor_benchmark.py): its figures are no measurement.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # floor.py, the ingest harness

import floor as harness
import psycopg

from controller.floor import chainwatch
from controller.floor.ingest import Arrival
from controller.journal.record import parse_line
from simulator.servers_pg import PostgresServer

#: The tables whose journals the ingest stores beside the walk.
BESIDE = 20


async def _select(dsn: str) -> tuple[int, float]:
    """Every stored journal's rows read as the walk reads them, nothing done with them."""
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
        started = time.perf_counter()
        cur = await conn.execute("SELECT table_id, journal_id, head_seq FROM journals")
        rows = 0
        for table, journal, head in await cur.fetchall():
            after = 0
            while after < int(str(head)):
                read = await conn.execute(
                    "SELECT seq, hash, line FROM records WHERE table_id = %s AND journal_id = %s "
                    "AND seq > %s AND seq <= %s ORDER BY seq LIMIT %s",
                    (table, journal, after, head, chainwatch.WALK_ROWS),
                )
                chunk = await read.fetchall()
                if not chunk:
                    break
                rows += len(chunk)
                after = int(str(chunk[-1][0]))
        return rows, time.perf_counter() - started


async def _walk(dsn: str) -> chainwatch.WalkTotals:
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
        return await chainwatch.walk_all(conn)


async def _beside(dsn: str, work: list[Sequence[Arrival]]) -> tuple[float, chainwatch.WalkTotals]:
    """The ingest of ``work`` while a walk runs beside it: the ingest's seconds, the walk."""
    walking = asyncio.ensure_future(_walk(dsn))
    seconds = await harness._ingest_run(dsn, work)
    return seconds, await walking


def journals(made: harness.Sample, first: int, count: int) -> dict[str, list[bytes]]:
    return {
        harness.table_name(n): harness.journal_lines(made.records, n)
        for n in range(first, first + count)
    }


def measure(postgres: PostgresServer, tables: int, hands: int) -> list[str]:
    """The figures' lines (see the module's text)."""
    made = harness.sample(hands)
    stored = journals(made, 1, tables)
    db = harness.floor_database(postgres)
    work = harness.batches(harness.interleaved(stored))
    total = sum(len(batch) for batch in work)
    ingest_rate = total / asyncio.run(harness._ingest_run(db.writer, work))
    rows, select_seconds = asyncio.run(_select(db.writer))
    walked = asyncio.run(_walk(db.writer))
    if walked.records != rows or rows != total or walked.broken:
        raise RuntimeError(f"the walk did not walk every stored record intact: {walked}")
    select_rate = rows / select_seconds
    other = journals(made, tables + 1, BESIDE)
    more = harness.batches(harness.interleaved(other))
    more_total = sum(len(batch) for batch in more)
    alone_db = harness.floor_database(postgres)
    alone = more_total / asyncio.run(harness._ingest_run(alone_db.writer, more))
    beside_seconds, beside_walk = asyncio.run(_beside(db.writer, more))
    beside = more_total / beside_seconds
    roots = {parse_line(lines[0]).hash for lines in stored.values()}
    return [
        f"stored: {total} records of {tables} tables ({len(made.records)} a table, {hands} "
        f"hands), by the floor's ingest at {ingest_rate:.0f}/s",
        f"select: the same {rows} rows read in chunks of {chainwatch.WALK_ROWS}: "
        f"{select_rate:.0f}/s ({select_seconds:.1f} s)",
        f"walk: {walked.records} records of {walked.journals} journals ({len(roots)} tables) in "
        f"{walked.seconds:.1f} s: {walked.rate:.0f}/s, {walked.rate / select_rate:.0%} of the "
        f"select's rate, {walked.rate / ingest_rate:.0%} of the ingest's",
        f"beside: the ingest of {more_total} records of {BESIDE} more tables: {alone:.0f}/s alone, "
        f"{beside:.0f}/s beside a walk ({beside / alone:.0%} of alone; the walk had walked "
        f"{beside_walk.records} records by its end)",
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a short run: no measurement")
    parser.add_argument("--tables", type=int, default=200, help="tables stored (default 200)")
    parser.add_argument("--hands", type=int, default=30, help="hands a table (default 30)")
    args = parser.parse_args(argv)
    tables, hands = (4, 3) if args.quick else (args.tables, args.hands)
    print(f"load average at the start: {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores")
    with harness.durable_postgres() as postgres:
        for line in measure(postgres, tables, hands):
            print(line)
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
