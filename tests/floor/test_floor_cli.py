"""``tablectl floor setup``, ``recall`` and ``verify`` as the DBA and a supervisor run them: the
real command line against a real PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
from floorhelp import (
    FloorDb,
    arrivals,
    fixture_lines,
    floor_database,
    ingest_now,
    rewritten,
    tablectl,
    write_floor_toml,
)
from psycopg.conninfo import make_conninfo

from controller.floor import store
from controller.floor.web import dbschema as web_schema
from simulator.servers_nats import NatsUser
from simulator.servers_pg import PostgresServer


def floor_toml(tmp_path: Path, postgres: PostgresServer, db: FloorDb) -> Path:
    # recall and verify reach no NATS server: the [nats] section is only read.
    return write_floor_toml(tmp_path, "nats://127.0.0.1:4222", NatsUser("floor", "x"), postgres, db)


def test_setup_by_the_dba_makes_the_schema_and_the_roles_passwords_and_again_changes_nothing(
    tmp_path: Path, postgres: PostgresServer
) -> None:
    owner = postgres.new_database()
    db = FloorDb(owner, "", "", "writer-secret", "reader-secret")
    config = floor_toml(tmp_path, postgres, db)
    done = tablectl("floor", "setup", "--config", config, "--owner-dsn", owner)
    assert done.returncode == 0, done.stderr
    assert "applied now: 1" in done.stdout
    again = tablectl("floor", "setup", "--config", config, "--owner-dsn", owner)
    assert again.returncode == 0, again.stderr
    assert "none (up to date)" in again.stdout
    # The roles log in with the passwords of their files.
    with psycopg.connect(make_conninfo(owner, user=store.READER, password="reader-secret")) as c:
        assert c.execute("SELECT count(*) FROM records").fetchone() == (0,)


def test_verify_of_a_clean_store_exits_0_and_of_a_witnessed_rewrite_exits_1_naming_it(
    tmp_path: Path, postgres: PostgresServer
) -> None:
    db = floor_database(postgres)
    config = floor_toml(tmp_path, postgres, db)
    lines = fixture_lines()
    ingest_now(db.writer, arrivals("T1", lines))
    clean = tablectl("floor", "verify", "--config", config, "--json")
    assert clean.returncode == 0, clean.stderr
    found = json.loads(clean.stdout)
    assert found["clean"] is True
    assert found["chains"][0]["records"] == len(lines)
    ingest_now(db.writer, arrivals("T1", rewritten(lines, 100), [100]))
    caught = tablectl("floor", "verify", "--config", config, "--table", "T1")
    assert caught.returncode == 1
    assert "ALARM conflict (open): table T1 journal" in caught.stdout
    assert "record 100" in caught.stdout
    assert caught.stdout.endswith("NOT CLEAN: 1 open alarm\n")


def test_verify_exits_on_open_alarms_only_and_says_who_acknowledged_the_others(
    tmp_path: Path, postgres: PostgresServer
) -> None:
    """docs/floor.md, floor verify: an alarm a supervisor acknowledged (docs/floor-web.md,
    Alarms) is listed as such, by whom and when, and does not fail verify; an open one does."""
    db = floor_database(postgres)
    config = floor_toml(tmp_path, postgres, db)
    lines = fixture_lines()
    ingest_now(db.writer, arrivals("T1", lines))
    ingest_now(db.writer, arrivals("T1", rewritten(lines, 100), [100]))
    ingest_now(db.writer, arrivals("T1", rewritten(lines, 120), [120]))
    with psycopg.connect(db.owner, autocommit=True) as conn:
        web_schema.setup(conn)  # the web's tables, as floor setup makes them
        conn.execute(
            "INSERT INTO web.users (name, role, password_hash) VALUES ('sue', 'supervisor', "
            "'$argon2id$not-a-login')"
        )
        ids = [int(str(r[0])) for r in conn.execute("SELECT id FROM alarms ORDER BY id")]
        assert len(ids) == 2
        conn.execute(
            "INSERT INTO web.alarm_acks (alarm_id, user_name, note) VALUES (%s, 'sue', %s)",
            (ids[0], "the table's technician restored the journal"),
        )
    one_open = tablectl("floor", "verify", "--config", config)
    assert one_open.returncode == 1, one_open.stdout + one_open.stderr
    said = one_open.stdout.splitlines()
    assert said[-3].startswith("ALARM conflict (open): table T1 journal")
    assert "record 120" in said[-3]
    assert said[-2].startswith("alarm conflict (acknowledged by sue at ")
    assert ": the table's technician restored the journal): table T1" in said[-2]
    assert "record 100" in said[-2]
    assert said[-1] == "NOT CLEAN: 1 open alarm; 1 alarm acknowledged"
    with psycopg.connect(db.owner, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO web.alarm_acks (alarm_id, user_name, note) VALUES (%s, 'sue', 'seen')",
            (ids[1],),
        )
    all_acked = tablectl("floor", "verify", "--config", config, "--json")
    assert all_acked.returncode == 0, all_acked.stdout + all_acked.stderr
    found = json.loads(all_acked.stdout)
    assert (found["clean"], found["open_alarms"]) == (True, 0)
    assert [a["acknowledged"]["user"] for a in found["alarms"]] == ["sue", "sue"]
    text = tablectl("floor", "verify", "--config", config)
    assert text.returncode == 0
    assert text.stdout.endswith("\nclean; 2 alarms acknowledged\n")


def test_recall_json_gives_the_hands_as_the_tables_recall_json_does(
    tmp_path: Path, postgres: PostgresServer
) -> None:
    db = floor_database(postgres)
    config = floor_toml(tmp_path, postgres, db)
    ingest_now(db.writer, arrivals("T1", fixture_lines()))
    done = tablectl("floor", "recall", "--table", "T1", "2", "--config", config, "--json")
    assert done.returncode == 0, done.stderr
    hands = json.loads(done.stdout)["hands"]
    assert [hand["number"] for hand in hands] == [4, 5]
    table_recall = Path(__file__).parent.parent / "fixtures" / "journal-before-schema"
    expected = json.loads((table_recall / "mambo.recall.json").read_text())
    assert [hand["lines"] for hand in hands] == [hand["lines"] for hand in expected[-2:]]


def test_recall_of_a_table_the_floor_has_not_got_exits_2_naming_the_tables_it_has(
    tmp_path: Path, postgres: PostgresServer
) -> None:
    db = floor_database(postgres)
    config = floor_toml(tmp_path, postgres, db)
    ingest_now(db.writer, arrivals("T1", fixture_lines()[:5]))
    done = tablectl("floor", "recall", "--table", "T9", "--config", config)
    assert done.returncode == 2
    assert "table 'T9': the floor holds no journal of it (tables: T1)" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_store_that_does_not_answer_is_a_clear_error_not_a_traceback(
    tmp_path: Path, postgres: PostgresServer
) -> None:
    db = floor_database(postgres)
    config = floor_toml(tmp_path, postgres, db)
    (tmp_path / "reader.password").write_text("wrong\n")
    done = tablectl("floor", "verify", "--config", config)
    assert done.returncode == 1
    assert "password authentication failed" in done.stderr
    assert "Traceback" not in done.stderr
