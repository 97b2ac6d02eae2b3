"""The web view's tables in the floor's database (docs/floor-web.md, Users and roles; The web's
role and logs): applied by ``tablectl floor setup`` after the store's own
(controller/floor/store.py), in versions, with the web view's own role.

They live in a schema of their own, ``web``, so the store's grants ("every table in public") never
reach them: the writer ``tablectl_floor`` and the reader ``tablectl_reader`` get nothing here (no
password hash leaves for a report). The web process connects as its own role, ``tablectl_web``
(``[web] user``): it reads the store, the users (to check a login and a session) and its two logs,
and may only add to the logs: every response that carried a face-down card's value
(``card_views``) and every alarm acknowledged (``alarm_acks``), who and when; no UPDATE and no
DELETE, so what the logs hold stays as written. Users are added, changed and disabled by the
database's owner alone (``tablectl floor user``, on the floor host), so no web process, and no
table, can make itself an account.
"""

from __future__ import annotations

from typing import Final

import psycopg
from psycopg import sql

from controller.floor.store import READER, WRITER, StoreError
from controller.floor.web.settings import DEFAULT_USER

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
    # 2: the web's two logs, append-only for the web's role. card_views: every response that
    # carried a face-down card's value (the hand page, a feed), issue 18; alarm_acks: an alarm
    # acknowledged by a supervisor with a note, once (the key is the alarm).
    """
    CREATE TABLE web.card_views (
        id bigserial PRIMARY KEY,
        at timestamptz NOT NULL DEFAULT now(),
        user_name text NOT NULL,
        role text NOT NULL,
        table_id text NOT NULL,
        journal_id text NOT NULL,
        hand integer NOT NULL,
        -- The page or feed, e.g. 'hand page', 'feed surveillance'.
        through text NOT NULL
    );
    CREATE TABLE web.alarm_acks (
        alarm_id bigint PRIMARY KEY REFERENCES public.alarms (id),
        user_name text NOT NULL REFERENCES web.users (name),
        at timestamptz NOT NULL DEFAULT now(),
        -- Required: more than blanks (a space, tab or line break alone is no note).
        note text NOT NULL CHECK (btrim(note, E' \\t\\r\\n') <> '' AND length(note) <= 2000)
    );
    """,
)


def _version(conn: psycopg.Connection[tuple[object, ...]]) -> int:
    row = conn.execute("SELECT to_regclass('web.schema_version') IS NOT NULL").fetchone()
    if not row or not row[0]:
        return 0
    found = conn.execute("SELECT coalesce(max(version), 0) FROM web.schema_version").fetchone()
    return int(str(found[0])) if found else 0


def setup(conn: psycopg.Connection[tuple[object, ...]], role: str = DEFAULT_USER) -> list[int]:
    """Make the web's ``role`` if missing, apply the versions the database has not got, then the
    grants: as the owner, after the store's setup, in one transaction, idempotent. Returns the
    versions applied now."""
    if role in (WRITER, READER):
        raise StoreError(
            f"floor.toml [web] user {role!r}: expected a role of the web view's own, not the "
            f"store's writer or reader (default {DEFAULT_USER})"
        )
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext('tablectl floor web setup'))")
        exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone()
        if not exists:
            # LOGIN without a password: setup sets [web] password_file's, or the DBA maps a
            # peer or certificate login (docs/floor.md, Servers and credentials).
            conn.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(role)))
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
        _grants(conn, role)
    return applied


def _grants(conn: psycopg.Connection[tuple[object, ...]], role: str) -> None:
    """Everything taken back first, then only what the web view needs: setup run again (after
    an upgrade, or another [web] user) leaves no privilege of before."""
    writer, reader, web = sql.Identifier(WRITER), sql.Identifier(READER), sql.Identifier(role)
    for statement in (
        "REVOKE ALL ON SCHEMA web FROM PUBLIC",
        "REVOKE ALL ON SCHEMA web FROM {writer}, {reader}, {web}",
        "REVOKE ALL ON ALL TABLES IN SCHEMA web FROM {writer}, {reader}, {web}",
        "REVOKE ALL ON ALL SEQUENCES IN SCHEMA web FROM {writer}, {reader}, {web}",
        "REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {web}",
        "REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM {web}",
        "GRANT CONNECT ON DATABASE {db} TO {web}",
        "GRANT USAGE ON SCHEMA public, web TO {web}",
        # The store read as the reader reads it: the floor page, the hands, the alarms.
        "GRANT SELECT ON ALL TABLES IN SCHEMA public TO {web}",
        "GRANT SELECT ON web.users, web.schema_version, web.card_views, web.alarm_acks TO {web}",
        # The logs: added to, never changed (no UPDATE, no DELETE, no TRUNCATE).
        "GRANT INSERT ON web.card_views, web.alarm_acks TO {web}",
        "GRANT USAGE ON SEQUENCE web.card_views_id_seq TO {web}",
    ):
        conn.execute(
            sql.SQL(statement).format(
                db=sql.Identifier(conn.info.dbname), writer=writer, reader=reader, web=web
            )
        )


def check_version(conn: psycopg.Connection[tuple[object, ...]]) -> None:
    """StoreError unless the web's tables are at the version this tablectl reads."""
    found = _version(conn)
    if found != len(MIGRATIONS):
        raise StoreError(
            f"the floor's database {conn.info.dbname!r} holds web schema version {found}, this "
            f"tablectl needs {len(MIGRATIONS)}: run `tablectl floor setup --config ...` as the "
            "database's owner"
        )
