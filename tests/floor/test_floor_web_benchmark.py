"""benchmarks/floor_web.py still runs (two tables, a few hundred records: not a measurement),
against the real servers and processes its run starts: PostgreSQL, nats-server, floor serve,
the forwarders, floor web and a supervisor's SSE client."""

from __future__ import annotations

import sys
from pathlib import Path

from simulator.servers_pg import PostgresServer

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import floor_web as bench  # noqa: E402  benchmarks/ is not a package: found through the path


def test_the_web_benchmark_times_the_floor_page_and_reads_floor_webs_memory(
    postgres: PostgresServer, tmp_path: Path
) -> None:
    figures = bench.measure(postgres, tmp_path, 2, bench.harness.WARM_UP + 3, 400)
    assert figures.lags
    assert all(0 < lag < bench.harness.PATIENCE for lag in figures.lags)
    assert len(figures.readings) == bench.READINGS
    assert [shown for shown, _ in figures.readings] == sorted(
        shown for shown, _ in figures.readings
    )
    assert figures.readings[-1][0] == 400
    assert all(kib > 10_000 for _, kib in figures.readings)  # Python with Starlette and psycopg
    text = "\n".join(figures.lines())
    assert "p99" in text
    assert "compressed into" in text
