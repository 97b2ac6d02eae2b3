"""The floor on the 3-node cluster (docs/floor.md, Production layout): `floor serve`
makes the stream with `[nats] replicas = 3`; the floor and three tables' forwarders connect with
all three servers' URLs; the stream's leader is SIGKILLed mid-run while the journals (a real
journal of each game, written out as a table writes it) grow, and started again; at the end
the floor holds every table's journal exactly once, byte for byte, every chain verified, no
alarm. Marked slow: the leaders' elections take tens of seconds."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import nats
import psycopg
import pytest
from floorhelp import (
    FloorProcess,
    count,
    fixture_lines,
    floor_database,
    tablectl,
    write_floor_toml,
)
from forwardhelp import eventually, start_forward, stop, table_toml

from controller.forwarder.subjects import STREAM
from simulator.servers_nats import NatsCluster, NatsServer
from simulator.servers_pg import PostgresServer

TABLES = ("C1", "C2", "C3")
#: Each table's journal: a real one of each game (tests/fixtures), written out as it grows: 40%
#: before the kill, to 80% while the node is down, the rest once it is back.
GAMES_OF = {
    table: fixture_lines(game)
    for table, game in zip(TABLES, ("mambo", "five-card-stud", "triple-draw"), strict=True)
}


def stream_state(cluster: NatsCluster) -> tuple[int, str | None]:
    """The stream's replica count and its leader's name, as the floor's user sees them."""

    async def read() -> tuple[int, str | None]:
        user = cluster.floor_user
        running = [node.url for node in cluster.nodes if node.running()]
        client = await nats.connect(servers=running, user=user.user, password=user.password)
        try:
            info = await client.jetstream().stream_info(STREAM)
        finally:
            await client.close()
        leader = info.cluster.leader if info.cluster is not None else None
        return info.config.num_replicas or 1, leader

    return asyncio.run(read())


def stored_lines(dsn: str, table_id: str) -> list[bytes]:
    with psycopg.connect(dsn) as conn:
        rows = conn.execute(
            "SELECT line FROM records WHERE table_id = %s ORDER BY seq", (table_id,)
        ).fetchall()
    return [bytes(row[0]) for row in rows]


def stored(dsn: str, table_id: str) -> int:
    return count(dsn, "SELECT count(*) FROM records WHERE table_id = %s", table_id)


def leader_of(cluster: NatsCluster) -> NatsServer:
    _, leader = stream_state(cluster)
    [node] = [node for node in cluster.nodes if node.name == leader]
    return node


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_streams_leader_killed_mid_run_loses_nothing_and_doubles_nothing(
    tmp_path: Path, postgres: PostgresServer
) -> None:
    cluster = NatsCluster(tmp_path / "cluster", TABLES)
    cluster.start()
    forwarders: list[subprocess.Popen[str]] = []
    floor: FloorProcess | None = None
    try:
        db = floor_database(postgres)
        config = write_floor_toml(
            tmp_path,
            cluster.urls[0],
            cluster.floor_user,
            postgres,
            db,
            batch=10,
            servers=cluster.urls,
            replicas=3,
        )
        floor = FloorProcess(config)
        floor.wait_for_log("floor_serving")
        assert stream_state(cluster)[0] == 3  # [nats] replicas took effect
        journals = {t: tmp_path / t / "journal" for t in TABLES}
        for table_id, journal in journals.items():
            journal.mkdir(parents=True)
            table = table_toml(tmp_path, cluster.nodes[0], table_id, journal, servers=cluster.urls)
            forwarders.append(start_forward(table))

        def grow(share: float) -> None:
            """Each table's journal grown to ``share`` of its game's real journal."""
            for table_id, journal in journals.items():
                lines = GAMES_OF[table_id]
                file = journal / "journal-000001.jsonl"
                have = len(file.read_bytes().splitlines()) if file.exists() else 0
                with file.open("ab") as out:
                    out.writelines(line + b"\n" for line in lines[have : int(len(lines) * share)])

        grow(0.4)
        eventually(lambda: stored(db.reader, "C1") >= 10, "records stored")
        node = leader_of(cluster)
        node.kill()  # mid-run: the journals grow on while the stream's leader is down
        grow(0.8)
        for table_id in TABLES:
            share = int(len(GAMES_OF[table_id]) * 0.8)
            floor.wait(lambda t=table_id, n=share: stored(db.reader, t) == n, f"{table_id} stored")
        node.start()
        grow(1.0)
        for table_id in TABLES:
            total = len(GAMES_OF[table_id])
            floor.wait(lambda t=table_id, n=total: stored(db.reader, t) == n, f"{table_id} stored")
        for process in forwarders:
            assert stop(process) == 0
        forwarders.clear()
        assert floor.stop() == 0, floor.text()
        for table_id in TABLES:
            assert stored_lines(db.reader, table_id) == GAMES_OF[table_id]  # once, byte for byte
        assert count(db.reader, "SELECT count(*) FROM alarms") == 0
        verified = tablectl("floor", "verify", "--config", config)
        assert verified.returncode == 0, verified.stdout + verified.stderr
    finally:
        for process in forwarders:
            process.kill()
            process.wait()
        if floor is not None and floor.process.poll() is None:
            floor.stop()
        cluster.stop()
