"""The floor's store in PostgreSQL (docs/floor.md, The store): its schema, applied in versions,
and its roles.

The schema is a list of migrations, applied in order by the owner (``tablectl floor setup``, run
once by the DBA; again after an upgrade: it applies only the versions the database has not got,
recorded in ``schema_version``, then grants anew). Two roles use it (docs/floor.md, The roles):

- ``tablectl_floor`` (``floor serve``) reads, and adds rows (records, heads, hands, alarms, the
  tables' starts and devices): no UPDATE, DELETE or TRUNCATE of them and no DDL, so the process
  that takes records from the tables cannot rewrite the evidence it keeps; what must move (a
  chain's head, a held record linked, a hand growing, a key rotated by the table) moves through
  the owner's functions of migration 3, which only move it forward. The key registry and the
  approved software are the owner's, changed through its functions by a named person, each
  change in a change log;
- ``tablectl_reader`` (``floor recall``, ``floor verify``, reporting) reads: SELECT.

Records keep the journal line's exact bytes (``line``), so the floor re-checks every hash from
what the table sent and ``floor verify`` walks the chain as the table wrote it.
"""

from __future__ import annotations

from typing import Final

import psycopg
from psycopg import sql

from controller.floor import migrations

WRITER: Final = "tablectl_floor"
READER: Final = "tablectl_reader"
#: The schema's versions (controller/floor/migrations.py), as ``floor setup`` applies them.
MIGRATIONS: Final = migrations.MIGRATIONS


class StoreError(Exception):
    """The store cannot be used as asked: says what and what to do."""


def applied_version(conn: psycopg.Connection[tuple[object, ...]]) -> int:
    """The last migration the database holds (0: none, or no schema_version yet)."""
    row = conn.execute("SELECT to_regclass('schema_version') IS NOT NULL").fetchone()
    if not row or not row[0]:
        return 0
    found = conn.execute("SELECT coalesce(max(version), 0) FROM schema_version").fetchone()
    return int(found[0]) if found else 0  # type: ignore[call-overload]


def setup(conn: psycopg.Connection[tuple[object, ...]]) -> list[int]:
    """Create the roles if missing, apply the migrations the database has not got, grant: as
    the owner, in one transaction; idempotent. Returns the versions applied now."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext('tablectl floor setup'))")
        _roles(conn)
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_version ("
            " version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        start = applied_version(conn)
        if start > len(MIGRATIONS):
            raise StoreError(
                f"the database holds schema version {start}, newer than this tablectl knows "
                f"({len(MIGRATIONS)}): run the setup of the tablectl that made it, or a newer one"
            )
        applied = []
        for version in range(start + 1, len(MIGRATIONS) + 1):
            conn.execute(MIGRATIONS[version - 1].encode())
            conn.execute("INSERT INTO schema_version (version) VALUES (%s)", (version,))
            applied.append(version)
        _grants(conn)
    return applied


def _roles(conn: psycopg.Connection[tuple[object, ...]]) -> None:
    for role in (WRITER, READER):
        exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone()
        if not exists:
            # LOGIN without a password: the DBA sets one (or maps a peer or certificate login),
            # docs/floor.md, Servers and credentials.
            conn.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(role)))


#: floor serve's functions (migration 3): what it may move, only forward.
WRITER_FUNCTIONS: Final = (
    "floor_lock_heads(text[], text[])",
    "floor_advance_heads(text[], text[], bigint[], text[], integer[])",
    "floor_link_records(text[], text[], bigint[])",
    "floor_upsert_hands(text[], text[], integer[], text[], bigint[], timestamptz[], text, text, "
    "text, integer[], text, text, text, text, boolean[], boolean[], bigint[])",
    "floor_key_rotate(text, text, bigint)",
)
#: The tables floor serve adds rows to: nothing else on them (docs/floor.md, The roles).
WRITER_INSERTS: Final = (
    "tables",
    "journals",
    "records",
    "hands",
    "alarms",
    "devices",
    "software",
    "clock_offsets",
)


def _grants(conn: psycopg.Connection[tuple[object, ...]]) -> None:
    """Everything taken back first, then only what each role needs: setup run again (after an
    upgrade) leaves no privilege of before (docs/floor.md, The roles)."""
    writer, reader = sql.Identifier(WRITER), sql.Identifier(READER)
    database = conn.info.dbname
    inserts = sql.SQL(", ").join(sql.Identifier(t) for t in WRITER_INSERTS)
    functions = sql.SQL(", ").join(sql.SQL(f) for f in WRITER_FUNCTIONS)
    for statement in (
        "REVOKE ALL ON SCHEMA public FROM PUBLIC",
        "GRANT CONNECT ON DATABASE {db} TO {writer}, {reader}",
        "GRANT USAGE ON SCHEMA public TO {writer}, {reader}",
        # A table's REVOKE takes its columns' privileges with it.
        "REVOKE ALL ON ALL TABLES IN SCHEMA public FROM PUBLIC, {writer}, {reader}",
        "REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM PUBLIC, {writer}, {reader}",
        "REVOKE ALL ON ALL FUNCTIONS IN SCHEMA public FROM PUBLIC, {writer}, {reader}",
        "GRANT SELECT ON ALL TABLES IN SCHEMA public TO {writer}, {reader}",
        # Added to, never changed nor taken away: the evidence, what the floor derives, its
        # alarms. The key registry, the approvals and their change logs are the owner's.
        "GRANT INSERT ON {inserts} TO {writer}",
        "GRANT USAGE ON SEQUENCE alarms_id_seq TO {writer}",
        # No evidence: when a table was last heard, and the least offset of its clock.
        "GRANT UPDATE (last_seen) ON tables TO {writer}",
        "GRANT UPDATE (min_floor_ms, min_broker_ms, samples) ON clock_offsets TO {writer}",
        "GRANT EXECUTE ON FUNCTION {functions} TO {writer}",
    ):
        conn.execute(
            sql.SQL(statement).format(
                db=sql.Identifier(database),
                writer=writer,
                reader=reader,
                inserts=inserts,
                functions=functions,
            )
        )


def check_version(conn: psycopg.Connection[tuple[object, ...]]) -> None:
    """StoreError unless the database holds the schema this tablectl writes."""
    version = applied_version(conn)
    if version != len(MIGRATIONS):
        raise StoreError(
            f"the floor's database {conn.info.dbname!r} holds schema version {version}, this "
            f"tablectl needs {len(MIGRATIONS)}: run `tablectl floor setup --config ...` as the "
            "database's owner"
        )


def set_password(conn: psycopg.Connection[tuple[object, ...]], role: str, secret: str) -> None:
    """Give ``role`` the password ``secret`` (setup, from the role's password file)."""
    conn.execute(
        sql.SQL("ALTER ROLE {} PASSWORD {}").format(sql.Identifier(role), sql.Literal(secret))
    )
