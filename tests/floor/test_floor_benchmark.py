"""benchmarks/floor.py still runs (a few tables and records: not a measurement), against the
real servers its parts start: PostgreSQL, nats-server, floor serve, the forwarders."""

from __future__ import annotations

import sys
from pathlib import Path

import psycopg
import pytest
from floorhelp import arrivals, count, fixture_lines, ingest_now

from controller.journal.record import GENESIS, parse_line
from simulator.servers_pg import PostgresServer

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import floor as bench  # noqa: E402  benchmarks/ is not a package: found through the path set above


def _records() -> list[tuple[str, dict[str, object]]]:
    return [(r.kind, r.data) for r in map(parse_line, fixture_lines())]  # type: ignore[misc]


def test_each_tables_journal_is_a_chain_of_its_own_and_the_stream_interleaves_them() -> None:
    """The ingest's journals: the same records re-chained per table (each its own journal id,
    each line hashing to itself and naming the one before); the stream takes ``run`` records
    of each table in turn, each table's in order."""
    records = _records()[:40]
    journals = {"T001": bench.journal_lines(records, 1), "T002": bench.journal_lines(records, 2)}
    roots = {parse_line(lines[0]).hash for lines in journals.values()}
    assert len(roots) == 2
    for lines in journals.values():
        prev = GENESIS
        for seq, line in enumerate(lines, 1):
            record = parse_line(line)
            assert (record.seq, record.prev) == (seq, prev)
            prev = record.hash
    stream = bench.interleaved(journals, run=10)
    assert len(stream) == 80
    assert [a.subject for a in stream[:20:10]] == ["tablectl.journal.T001", "tablectl.journal.T002"]
    for table in journals:
        seqs = [a.message_id.rsplit(":", 1)[1] for a in stream if a.subject.endswith(table)]  # type: ignore[union-attr]
        assert seqs == [str(n) for n in range(1, 41)]


def test_a_commits_notification_marks_each_seq_it_names_committed_once() -> None:
    committed = bench.Committed()
    committed.take("T001 1 3,T.2 1 1", 10.0)
    committed.take("T001 3 4", 11.0)  # a seq seen again keeps its first commit
    assert committed.at == {
        ("T001", 1): 10.0,
        ("T001", 2): 10.0,
        ("T001", 3): 10.0,
        ("T.2", 1): 10.0,
        ("T001", 4): 11.0,
    }
    assert committed.highest == {"T001": 4, "T.2": 1}


def test_the_ingest_benchmark_stores_every_record_and_times_the_copy_of_the_same_rows(
    postgres: PostgresServer,
) -> None:
    records = _records()
    journals = {bench.table_name(n): bench.journal_lines(records, n) for n in (1, 2)}
    (figures,) = bench.measure_ingest(postgres, journals, 1)
    assert figures.records == 2 * len(records)
    assert figures.ingest_per_second > 0
    assert figures.copy_per_second > 0
    rows = bench.copy_rows(bench.interleaved(journals)[:5])
    assert [row[2] for row in rows] == [1, 1, 2, 2, 3]  # seq
    assert rows[0][5] == journals["T001"][0]  # the line's exact bytes


#: The warm-up of a lag run here: the benchmark's 5 s keep the forwarders' start out of its
#: figures; this run checks that every record is committed, not the figures (a lag of the start
#: is counted, still under the patience), so 1 s does, and the paced part takes 4 s, not 8.
TEST_WARM_UP = 1.0


def test_the_lag_benchmark_times_each_record_from_its_append_to_its_commit(
    postgres: PostgresServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two tables at a dealer's pace for a few seconds through their real forwarders and the
    real floor serve: every record the tables wrote is seen committed (else it raises), each
    lag positive and well under the benchmark's patience."""
    monkeypatch.setattr(bench, "WARM_UP", TEST_WARM_UP)
    figures = bench.measure_lag(postgres, tmp_path, 2, TEST_WARM_UP + 3, "dealer")
    assert figures.records >= 4
    assert figures.lags
    assert all(0 < lag < bench.PATIENCE for lag in figures.lags)
    assert "p99" in figures.line("lag")


def test_the_memory_benchmark_reads_the_floors_rss_at_each_checkpoint(
    postgres: PostgresServer, tmp_path: Path
) -> None:
    readings = bench.measure_memory(postgres, tmp_path, _records(), 2, (100, 400))
    assert [records for records, _ in readings] == [100, 400]
    assert all(kib > 10_000 for _, kib in readings)  # a Python process with psycopg and nats


def test_the_probe_names_each_tables_seqs_a_commit_stored(postgres: PostgresServer) -> None:
    """The lag's clock: the trigger's NOTIFY, delivered at the commit, names each table's
    first and last seq the transaction stored."""
    db = bench.floor_database(postgres)
    lines = fixture_lines()[:30]
    with psycopg.connect(db.owner, autocommit=True) as conn:
        conn.execute(bench._PROBE.encode())
        conn.execute("LISTEN bench_stored")
        ingest_now(db.writer, arrivals("T1", lines[:12]) + arrivals("T.2", lines))
        (note,) = conn.notifies(timeout=30, stop_after=1)
    assert sorted(note.payload.split(",")) == ["T.2 1 30", "T1 1 12"]
    assert count(db.owner, "SELECT count(*) FROM records") == 42
