"""``tablectl floor serve`` end to end: a real nats-server and a real PostgreSQL, a table's real
journal published as its forwarder publishes it, the floor as a subprocess of the real CLI."""

from __future__ import annotations

import signal
from dataclasses import replace
from pathlib import Path

import psycopg
from floorhelp import (
    FIXTURES,
    FloorProcess,
    count,
    fixture_lines,
    floor_database,
    make_stream,
    publish,
    republish_until_taken,
    rewritten,
    tablectl,
    write_floor_toml,
)
from servershelp import NatsFactory

from controller.floor.serve import stream_config
from simulator.servers_pg import PostgresServer


def head_of(dsn: str) -> int:
    return count(dsn, "SELECT coalesce(max(head_seq), 0) FROM journals")


def test_a_tables_journal_is_stored_once_its_hands_recalled_and_its_chain_verified(
    tmp_path: Path, nats_factory: NatsFactory, postgres: PostgresServer
) -> None:
    nats = nats_factory(("T1",))
    db = floor_database(postgres)
    config = write_floor_toml(tmp_path, nats.url, nats.floor_user, postgres, db)
    lines = fixture_lines()
    floor = FloorProcess(config)
    try:
        floor.wait_for_log("floor_serving")  # the stream is made: the table may publish
        publish(nats.url, nats.table_user("T1"), "T1", lines)
        floor.wait(lambda: head_of(db.reader) == len(lines), "every record stored")
    finally:
        assert floor.stop() == 0, floor.text()
    assert count(db.reader, "SELECT count(*) FROM records") == len(lines)
    assert f'"stored": {len(lines)}' in floor.text()  # floor_stopped, with what it stored
    assert b"7c" not in floor.log.read_bytes()  # a hole card of hand 1: no record's data logged
    verified = tablectl("floor", "verify", "--config", config)
    assert verified.returncode == 0, verified.stderr
    assert verified.stdout.endswith("clean\n")
    recalled = tablectl("floor", "recall", "--table", "T1", "--config", config)
    assert recalled.returncode == 0, recalled.stderr
    assert recalled.stdout == (FIXTURES / "mambo.recall.txt").read_text()


def test_a_floor_killed_mid_stream_and_restarted_stores_every_record_once(
    tmp_path: Path, nats_factory: NatsFactory, postgres: PostgresServer
) -> None:
    nats = nats_factory(("T1",))
    db = floor_database(postgres)
    config = write_floor_toml(tmp_path, nats.url, nats.floor_user, postgres, db, batch=7)
    lines = fixture_lines()
    # The table publishes on while the floor is down: its last hundred records only after the
    # kill. Published all at once, the floor could store every record before the kill landed
    # (the test descheduled for half a second), and the restart then had nothing to do.
    early = lines[:-100]
    first = FloorProcess(config)
    try:
        first.wait_for_log("floor_serving")
        publish(nats.url, nats.table_user("T1"), "T1", early)
        first.wait(lambda: head_of(db.reader) > 0, "a first batch stored")
    finally:
        first.stop(signal.SIGKILL)
    publish(nats.url, nats.table_user("T1"), "T1", lines, first=len(early) + 1)
    second = FloorProcess(config)
    try:
        second.wait(lambda: head_of(db.reader) == len(lines), "every record stored")
    finally:
        assert second.stop() == 0, second.text()
    assert count(db.reader, "SELECT count(*) FROM records") == len(lines)
    assert count(db.reader, "SELECT count(*) FROM alarms") == 0
    verified = tablectl("floor", "verify", "--config", config, "--table", "T1")
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_postgresql_down_holds_the_batch_unacknowledged_until_it_is_back(
    tmp_path: Path, nats_factory: NatsFactory, postgres: PostgresServer
) -> None:
    nats = nats_factory(("T1",))
    db = floor_database(postgres)
    config = write_floor_toml(tmp_path, nats.url, nats.floor_user, postgres, db)
    lines = fixture_lines()
    floor = FloorProcess(config)
    try:
        floor.wait_for_log("floor_serving")
        postgres.stop()
        try:
            publish(nats.url, nats.table_user("T1"), "T1", lines)
            floor.wait_for_log("store_unavailable")
        finally:
            postgres.start()
        floor.wait(lambda: head_of(db.reader) == len(lines), "every record stored")
    finally:
        assert floor.stop() == 0, floor.text()
    assert count(db.reader, "SELECT count(*) FROM records") == len(lines)


def test_a_floor_started_while_postgresql_is_down_waits_for_it_then_serves(
    tmp_path: Path, nats_factory: NatsFactory, postgres: PostgresServer
) -> None:
    """As a systemd restart during a database restart meets it (tests/floor/test_floor_faults.py):
    retried with one warning line each, not an exit."""
    nats = nats_factory(("T1",))
    db = floor_database(postgres)
    config = write_floor_toml(tmp_path, nats.url, nats.floor_user, postgres, db)
    lines = fixture_lines()
    postgres.stop()
    try:
        floor = FloorProcess(config)
        floor.wait_for_log("store_unavailable")
        assert "floor_serving" not in floor.text()
    finally:
        postgres.start()
    try:
        floor.wait_for_log("floor_serving")
        publish(nats.url, nats.table_user("T1"), "T1", lines)
        floor.wait(lambda: head_of(db.reader) == len(lines), "every record stored")
    finally:
        assert floor.stop() == 0, floor.text()
    assert "Traceback" not in floor.text()


def test_a_floor_toml_with_a_problem_exits_2_naming_the_key(tmp_path: Path) -> None:
    config = tmp_path / "floor.toml"
    config.write_text('[nats]\nservers = ["nats://127.0.0.1:1"]\n[postgres]\ndbname = "x"\n')
    done = tablectl("floor", "serve", "--config", config)
    assert done.returncode == 2
    assert "nats.user" in done.stderr
    assert "Traceback" not in done.stderr


def test_two_floor_processes_sharing_the_consumer_store_two_tables_once_in_chain_order(
    tmp_path: Path, nats_factory: NatsFactory, postgres: PostgresServer
) -> None:
    nats = nats_factory(("T1", "T2"))
    db = floor_database(postgres)
    config = write_floor_toml(tmp_path, nats.url, nats.floor_user, postgres, db, batch=5)
    mambo, stud = fixture_lines("mambo"), fixture_lines("five-card-stud")
    first = FloorProcess(config)
    first.wait_for_log("floor_serving")
    second = FloorProcess(config)
    try:
        second.wait_for_log("floor_serving")
        publish(nats.url, nats.table_user("T1"), "T1", mambo)
        publish(nats.url, nats.table_user("T2"), "T2", stud)
        total = len(mambo) + len(stud)
        first.wait(
            lambda: count(db.reader, "SELECT sum(head_seq) FROM journals") == total,
            "both journals stored",
        )
    finally:
        assert first.stop() == 0, first.text()
        assert second.stop() == 0, second.text()
    assert count(db.reader, "SELECT count(*) FROM records") == total
    assert count(db.reader, "SELECT count(*) FROM alarms") == 0
    verified = tablectl("floor", "verify", "--config", config)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    for table, game in (("T1", "mambo"), ("T2", "five-card-stud")):
        recalled = tablectl("floor", "recall", "--table", table, "--config", config)
        assert recalled.stdout == (FIXTURES / f"{game}.recall.txt").read_text()


def test_a_floor_with_no_broker_answering_keeps_trying_in_one_line_each_and_stops_on_sigterm(
    tmp_path: Path,
) -> None:
    (tmp_path / "nats.password").write_text("x\n")
    config = tmp_path / "floor.toml"
    config.write_text(
        '[nats]\nservers = ["nats://127.0.0.1:9"]\nuser = "floor"\n'
        'password_file = "nats.password"\n'
        '[postgres]\ndbname = "tablectl"\n'
    )
    floor = FloorProcess(config)
    try:
        floor.wait_for_log("nats_error")
    finally:
        assert floor.stop() == 0, floor.text()
    assert "Traceback" not in floor.text()
    assert '"exception"' not in floor.text()
    assert "floor_stopped" in floor.text()


def test_a_record_rewritten_and_republished_after_the_duplicate_window_is_caught_as_a_conflict(
    tmp_path: Path, nats_factory: NatsFactory, postgres: PostgresServer
) -> None:
    nats = nats_factory(("T1",))
    db = floor_database(postgres)
    config = write_floor_toml(tmp_path, nats.url, nats.floor_user, postgres, db)
    lines = fixture_lines()
    forged = rewritten(lines, 40)
    # The stream as the floor makes it, but with a 1 s duplicate window: the floor leaves an
    # existing stream as it is.
    make_stream(nats.url, nats.floor_user, replace(stream_config(), duplicate_window=1.0))
    floor = FloorProcess(config)
    try:
        floor.wait_for_log("floor_serving")
        publish(nats.url, nats.table_user("T1"), "T1", lines)
        floor.wait(lambda: head_of(db.reader) == len(lines), "every record stored")
        # The broker drops the forged record as a duplicate until its window has passed.
        republish_until_taken(nats.url, nats.table_user("T1"), "T1", forged, 40)
        floor.wait(
            lambda: count(db.reader, "SELECT count(*) FROM alarms WHERE kind = 'conflict'") == 1,
            "the conflict raised",
        )
    finally:
        assert floor.stop() == 0, floor.text()
    assert "floor_alarm" in floor.text()
    verified = tablectl("floor", "verify", "--config", config)
    assert verified.returncode == 1
    assert "ALARM conflict (open): table T1" in verified.stdout
    with psycopg.connect(db.reader) as conn:
        kept = conn.execute("SELECT line FROM records WHERE seq = 40").fetchone()
        evidence = conn.execute("SELECT evidence FROM alarms WHERE kind = 'conflict'").fetchone()
    assert kept is not None
    assert bytes(kept[0]) == lines[39]
    assert evidence is not None
    assert bytes(evidence[0]) == forged[39]
