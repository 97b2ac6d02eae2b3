"""benchmarks/floor_web.py still runs (two tables, a few hundred records: not a measurement),
against the real servers and processes its run starts: PostgreSQL, nats-server, floor serve,
the forwarders, floor web and a supervisor's SSE client."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from simulator.servers_pg import PostgresServer

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import floor_web as bench  # noqa: E402  benchmarks/ is not a package: found through the path

#: The warm-up of the lag here: the benchmark's 5 s keep the forwarders' start out of its
#: figures; this run checks that every paced record reaches the floor page, not the figures,
#: so 1 s does, and the paced part takes 4 s, not 8.
TEST_WARM_UP = 1.0


def test_the_web_benchmark_times_the_floor_page_and_reads_floor_webs_memory(
    postgres: PostgresServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bench.harness, "WARM_UP", TEST_WARM_UP)
    figures = bench.measure(postgres, tmp_path, 2, TEST_WARM_UP + 3, 400)
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
