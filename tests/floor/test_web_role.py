"""The web view's own database role and its two logs (docs/floor-web.md, The web's role
and logs): ``tablectl floor setup`` makes ``tablectl_web`` with the password of ``[web]
password_file``; it reads the store and the users and may only add to ``web.card_views`` and
``web.alarm_acks``: no line of either changed or deleted, the store never written, no user made.
A real PostgreSQL; the setup is the real command line."""

from __future__ import annotations

import tomllib
from pathlib import Path

import psycopg
import pytest
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
from psycopg import errors
from psycopg.conninfo import make_conninfo
from webhelp import WEB_PASSWORD

from controller.floor.floortoml import FloorConfigError, parse
from controller.floor.store import READER, WRITER, StoreError
from controller.floor.web import dbschema as web_schema
from controller.floor.web.webtoml import DEFAULT_USER
from simulator.servers_nats import NatsUser
from simulator.servers_pg import PostgresServer

_NATS = (
    '[nats]\nservers = ["nats://127.0.0.1:4222"]\nuser = "floor"\npassword_file = "n"\n'
    '[postgres]\ndbname = "tablectl"\n'
)


def _set_up(tmp_path: Path, postgres: PostgresServer) -> tuple[FloorDb, str]:
    """A floor database set up by ``floor setup`` with [web] password_file; the web's DSN."""
    db = floor_database(postgres)
    config = write_floor_toml(
        tmp_path, "nats://127.0.0.1:4222", NatsUser("floor", "x"), postgres, db
    )
    (tmp_path / "web.password").write_text(WEB_PASSWORD + "\n")
    with config.open("a") as out:
        out.write('[web]\nsecret_file = "web.secret"\npassword_file = "web.password"\n')
    done = tablectl("floor", "setup", "--config", config, "--owner-dsn", db.owner)
    assert done.returncode == 0, done.stderr
    assert "web schema version 5; applied now: 1, 2, 3, 4, 5" in done.stdout
    assert f"{DEFAULT_USER} (the web view)" in done.stdout
    again = tablectl("floor", "setup", "--config", config, "--owner-dsn", db.owner)
    assert again.returncode == 0, again.stderr
    assert "web schema version 5; applied now: none (up to date)" in again.stdout
    return db, make_conninfo(db.owner, user=DEFAULT_USER, password=WEB_PASSWORD)


def _an_alarm_and_a_user(db: FloorDb) -> int:
    """A real floor alarm (a journal rewritten after it was stored) and a supervisor."""
    lines = fixture_lines()
    ingest_now(db.writer, arrivals("T1", lines))
    ingest_now(db.writer, arrivals("T1", rewritten(lines, 100), [100]))
    with psycopg.connect(db.owner, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO web.users (name, role, password_hash) VALUES ('ana', 'supervisor', "
            "'$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA')"
        )
        row = conn.execute("SELECT min(id) FROM alarms").fetchone()
    assert row is not None
    assert row[0] is not None
    return int(str(row[0]))


def _refused(dsn: str, statement: str) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn, pytest.raises(errors.InsufficientPrivilege):
        conn.execute(statement.encode())


def test_the_web_role_adds_to_its_two_logs_and_can_change_nothing(
    tmp_path: Path, postgres: PostgresServer
) -> None:
    db, web = _set_up(tmp_path, postgres)
    alarm = _an_alarm_and_a_user(db)
    with psycopg.connect(web, autocommit=True) as conn:
        # It reads the store as the reader does, and the users (a login's check).
        for table in ("tables", "journals", "records", "hands", "alarms", "devices"):
            conn.execute(f"SELECT count(*) FROM {table}".encode())
        assert conn.execute("SELECT role FROM web.users").fetchall() == [("supervisor",)]
        assert conn.execute("SELECT max(version) FROM web.schema_version").fetchone() == (5,)
        # It adds to its two logs, with who and when.
        conn.execute(
            "INSERT INTO web.card_views (user_name, role, table_id, journal_id, hand, through)"
            " VALUES ('ana', 'surveillance', 'T1', 'j', 1, 'hand page')"
        )
        conn.execute(
            "INSERT INTO web.alarm_acks (alarm_id, user_name, note) VALUES (%s, 'ana', 'seen')",
            (alarm,),
        )
        acked = conn.execute("SELECT alarm_id, user_name, at IS NOT NULL FROM web.alarm_acks")
        assert acked.fetchall() == [(alarm, "ana", True)]
    # Append-only: no line of either log changed, deleted or truncated.
    for log in ("web.card_views", "web.alarm_acks"):
        _refused(web, f"UPDATE {log} SET user_name = 'eve'")
        _refused(web, f"DELETE FROM {log}")
        _refused(web, f"TRUNCATE {log}")
    # The store is read only; the users are the owner's (floor user) alone.
    _refused(web, "UPDATE alarms SET message = 'nothing happened'")
    _refused(web, "DELETE FROM alarms")
    _refused(web, "INSERT INTO tables VALUES ('T9', now(), now())")
    _refused(web, "UPDATE records SET linked = true")
    _refused(
        web,
        "INSERT INTO web.users (name, role, password_hash) VALUES ('eve', 'admin', '$argon2id$x')",
    )
    _refused(web, "UPDATE web.users SET role = 'admin'")
    _refused(web, "DELETE FROM web.users")
    _refused(web, "INSERT INTO web.schema_version (version) VALUES (5)")
    _refused(web, "CREATE TABLE web.mine (x int)")
    _refused(web, "CREATE TABLE public.mine (x int)")
    # The store's own roles get nothing of the web's: no password hash, no log.
    for role, password in ((READER, db.reader_password), (WRITER, db.writer_password)):
        other = make_conninfo(db.owner, user=role, password=password)
        _refused(other, "SELECT name FROM web.users")
        _refused(other, "SELECT * FROM web.card_views")
        _refused(
            other, "INSERT INTO web.alarm_acks (alarm_id, user_name, note) VALUES (1, 'a', 'b')"
        )


def test_an_alarm_is_acknowledged_once_with_a_note_by_a_known_user(
    tmp_path: Path, postgres: PostgresServer
) -> None:
    db, web = _set_up(tmp_path, postgres)
    alarm = _an_alarm_and_a_user(db)
    insert = "INSERT INTO web.alarm_acks (alarm_id, user_name, note) VALUES (%s, %s, %s)"
    with psycopg.connect(web, autocommit=True) as conn:
        for blank in ("", "   \n\t", "x" * 2001):
            with pytest.raises(errors.CheckViolation):
                conn.execute(insert, (alarm, "ana", blank))
        with pytest.raises(errors.ForeignKeyViolation):  # no such alarm
            conn.execute(insert, (alarm + 10_000, "ana", "seen"))
        with pytest.raises(errors.ForeignKeyViolation):  # no such user
            conn.execute(insert, (alarm, "eve", "seen"))
        conn.execute(insert, (alarm, "ana", "x" * 2000))
        with pytest.raises(errors.UniqueViolation):  # once
            conn.execute(insert, (alarm, "ana", "again"))


def test_the_web_role_cannot_be_the_stores_writer_or_reader(postgres: PostgresServer) -> None:
    with psycopg.connect(postgres.new_database(), autocommit=True) as conn:
        for role in (WRITER, READER):
            with pytest.raises(StoreError, match=f"\\[web\\] user '{role}': expected a role"):
                web_schema.setup(conn, role)


@pytest.mark.fast
def test_web_user_and_password_file_are_read_and_a_bad_name_is_named(tmp_path: Path) -> None:
    default = parse(tomllib.loads(_NATS + '[web]\nsecret_file = "s"\n'), tmp_path, "f")
    assert (default.web.user, default.web.password_file) == (DEFAULT_USER, None)
    assert "user=tablectl_web" in default.web_database.conninfo
    given = parse(
        tomllib.loads(_NATS + '[web]\nsecret_file = "s"\nuser = "web2"\npassword_file = "w"\n'),
        tmp_path,
        "f",
    )
    assert given.web_database.password_file == tmp_path / "w"
    assert "user=web2" in given.web_database.conninfo
    assert "dbname=tablectl" in given.web_database.conninfo
    with pytest.raises(FloorConfigError) as caught:
        parse(tomllib.loads(_NATS + '[web]\nsecret_file = "s"\nuser = "no way"\n'), tmp_path, "f")
    assert 'web.user = "no way": expected a PostgreSQL role name' in str(caught.value)
