"""The web view's tables in the floor's database (docs/floor-web.md, Users and roles): applied by
``tablectl floor setup`` after the store's own (controller/floor/store.py), in versions.

They live in a schema of their own, ``web``, so the store's grants ("every table in public") never
reach them: the writer ``tablectl_floor`` gets nothing here, the reader ``tablectl_reader`` (the
web process) may only read the users to check a login and a session. Users are added, changed
and disabled by the database's owner alone (``tablectl floor user``, on the floor host), so no
web process, and no table, can make itself an account.
"""

from __future__ import annotations

from typing import Final

import psycopg
from psycopg import sql

from controller.floor.store import READER, WRITER, StoreError

ROLES: Final = ("supervisor", "surveillance", "auditor", "admin")

#: One entry a version: never edit one applied, add the next.
MIGRATIONS: Final[tuple[str, ...]] = (
    # 1: the web view's local users, each with one role and an argon2id hash.
    """
    CREATE SCHEMA web;
    CREATE TABLE web.users (
        name text PRIMARY KEY CHECK (name ~ '^[a-z][a-z0-9_.-]{0,62}$'),
        role text NOT NULL CHECK (role IN ('supervisor', 'surveillance', 'auditor', 'admin')),
        password_hash text NOT NULL CHECK (password_hash LIKE '$argon2id$%'),
        disabled boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        -- A session made before this moment is void: a new password logs every browser out.
        password_changed_at timestamptz NOT NULL DEFAULT now()
    );
    """,
)


def _version(conn: psycopg.Connection[tuple[object, ...]]) -> int:
    row = conn.execute("SELECT to_regclass('web.schema_version') IS NOT NULL").fetchone()
    if not row or not row[0]:
        return 0
    found = conn.execute("SELECT coalesce(max(version), 0) FROM web.schema_version").fetchone()
    return int(str(found[0])) if found else 0


def setup(conn: psycopg.Connection[tuple[object, ...]]) -> list[int]:
    """Apply the versions the database has not got, then the grants: as the owner, in one
    transaction, idempotent. Returns the versions applied now."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext('tablectl floor web setup'))")
        start = _version(conn)
        if start > len(MIGRATIONS):
            raise StoreError(
                f"the database holds web schema version {start}, newer than this tablectl knows "
                f"({len(MIGRATIONS)}): run the setup of the tablectl that made it, or a newer one"
            )
        applied = []
        for version in range(start + 1, len(MIGRATIONS) + 1):
            conn.execute(MIGRATIONS[version - 1].encode())
            if version == 1:
                conn.execute(
                    "CREATE TABLE web.schema_version (version integer PRIMARY KEY,"
                    " applied_at timestamptz NOT NULL DEFAULT now())"
                )
            conn.execute("INSERT INTO web.schema_version (version) VALUES (%s)", (version,))
            applied.append(version)
        _grants(conn)
    return applied


def _grants(conn: psycopg.Connection[tuple[object, ...]]) -> None:
    writer, reader = sql.Identifier(WRITER), sql.Identifier(READER)
    for statement in (
        "REVOKE ALL ON SCHEMA web FROM PUBLIC",
        "REVOKE ALL ON SCHEMA web FROM {writer}",
        "REVOKE ALL ON ALL TABLES IN SCHEMA web FROM {writer}, {reader}",
        "GRANT USAGE ON SCHEMA web TO {reader}",
        "GRANT SELECT ON web.users, web.schema_version TO {reader}",
    ):
        conn.execute(sql.SQL(statement).format(writer=writer, reader=reader))


def check_version(conn: psycopg.Connection[tuple[object, ...]]) -> None:
    """StoreError unless the web's tables are at the version this tablectl reads."""
    found = _version(conn)
    if found != len(MIGRATIONS):
        raise StoreError(
            f"the floor's database {conn.info.dbname!r} holds web schema version {found}, this "
            f"tablectl needs {len(MIGRATIONS)}: run `tablectl floor setup --config ...` as the "
            "database's owner"
        )
