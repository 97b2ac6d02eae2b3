"""controller/floor/store.py against a real PostgreSQL: the schema in versions, the two roles."""

from __future__ import annotations

import psycopg
import pytest
from floorhelp import floor_database

from controller.floor import store
from simulator.servers_pg import PostgresServer


def test_setup_applies_the_schema_once_and_again_applies_nothing(postgres: PostgresServer) -> None:
    dsn = postgres.new_database()
    with psycopg.connect(dsn, autocommit=True) as conn:
        assert store.applied_version(conn) == 0
        assert store.setup(conn) == list(range(1, len(store.MIGRATIONS) + 1))
        assert store.setup(conn) == []
        assert store.applied_version(conn) == len(store.MIGRATIONS)
        store.check_version(conn)


def test_a_database_without_the_schema_is_refused_naming_the_setup(
    postgres: PostgresServer,
) -> None:
    with (
        psycopg.connect(postgres.new_database()) as conn,
        pytest.raises(store.StoreError, match="tablectl floor setup"),
    ):
        store.check_version(conn)


def test_the_reader_role_reads_and_cannot_write(postgres: PostgresServer) -> None:
    db = floor_database(postgres)
    with psycopg.connect(db.reader) as conn:
        assert conn.execute("SELECT count(*) FROM records").fetchone() == (0,)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("INSERT INTO tables VALUES ('T1', now(), now())")


def test_the_writer_role_writes_and_cannot_delete_or_change_the_schema(
    postgres: PostgresServer,
) -> None:
    db = floor_database(postgres)
    with psycopg.connect(db.writer, autocommit=True) as conn:
        conn.execute("INSERT INTO tables VALUES ('T1', now(), now())")
        conn.execute("UPDATE tables SET last_seen = now()")
        for statement in (
            "DELETE FROM tables",  # the evidence the floor keeps is not the floor's to erase
            "CREATE TABLE mine (x int)",
            "DROP TABLE alarms",
            "ALTER TABLE records ADD COLUMN x int",
            "INSERT INTO schema_version (version) VALUES (99)",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement.encode())


def test_a_database_of_a_newer_schema_is_refused_by_the_setup(postgres: PostgresServer) -> None:
    with psycopg.connect(postgres.new_database(), autocommit=True) as conn:
        store.setup(conn)
        conn.execute(
            "INSERT INTO schema_version (version) VALUES (%s)", (len(store.MIGRATIONS) + 1,)
        )
        with pytest.raises(store.StoreError, match="newer than this tablectl"):
            store.setup(conn)
