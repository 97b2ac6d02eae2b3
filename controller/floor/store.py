"""The floor's store in PostgreSQL (docs/floor.md, The store): its schema, applied in versions,
and its roles.

The schema is a list of migrations, applied in order by the owner (``tablectl floor setup``, run
once by the DBA; again after an upgrade: it applies only the versions the database has not got,
recorded in ``schema_version``). Two roles use it:

- ``tablectl_floor`` (``floor serve``) writes: SELECT, INSERT and UPDATE, no DELETE and no DDL, so
  the process that takes records from the tables cannot erase the evidence it keeps;
- ``tablectl_reader`` (``floor recall``, ``floor verify``, reporting, the web view) reads: SELECT.

Records keep the journal line's exact bytes (``line``), so the floor re-checks every hash from
what the table sent and ``floor verify`` walks the chain as the table wrote it.
"""

from __future__ import annotations

from typing import Final

import psycopg
from psycopg import sql

WRITER: Final = "tablectl_floor"
READER: Final = "tablectl_reader"

#: The schema, one entry a version (1, 2, ...): never edit one applied, add the next.
MIGRATIONS: Final[tuple[str, ...]] = (
    # 1: the records, what the floor derives from them, its alarms and clock offsets.
    """
    CREATE TABLE tables (
        table_id text PRIMARY KEY,
        first_seen timestamptz NOT NULL,
        last_seen timestamptz NOT NULL
    );
    CREATE TABLE journals (
        table_id text NOT NULL REFERENCES tables,
        journal_id text NOT NULL,
        first_seen timestamptz NOT NULL,
        -- The chain head: the last record linked without a gap from seq 1 (0: none yet).
        head_seq bigint NOT NULL DEFAULT 0,
        head_hash text,
        -- The hand the records at the head are part of (NULL: none begun).
        current_hand integer,
        PRIMARY KEY (table_id, journal_id)
    );
    CREATE TABLE records (
        table_id text NOT NULL,
        journal_id text NOT NULL,
        seq bigint NOT NULL,
        ts timestamptz NOT NULL,
        kind text NOT NULL,
        line bytea NOT NULL,
        hash text NOT NULL,
        prev text NOT NULL,
        received_at timestamptz NOT NULL,
        broker_at timestamptz,
        -- False while held beyond a gap in the chain (docs/floor.md, The witness).
        linked boolean NOT NULL,
        PRIMARY KEY (table_id, journal_id, seq),
        FOREIGN KEY (table_id, journal_id) REFERENCES journals
    );
    CREATE INDEX records_held ON records (table_id, journal_id) WHERE NOT linked;
    CREATE TABLE hands (
        table_id text NOT NULL,
        journal_id text NOT NULL,
        hand integer NOT NULL,
        game text,
        started_seq bigint,
        started_at timestamptz,
        stakes jsonb,
        rules jsonb,
        seats jsonb,
        dealer integer,
        cards jsonb NOT NULL DEFAULT '[]',
        actions jsonb NOT NULL DEFAULT '[]',
        pots jsonb,
        settlement jsonb,
        finished boolean NOT NULL DEFAULT false,
        voided boolean NOT NULL DEFAULT false,
        last_seq bigint NOT NULL,
        PRIMARY KEY (table_id, journal_id, hand)
    );
    CREATE TABLE alarms (
        id bigserial PRIMARY KEY,
        table_id text NOT NULL,
        journal_id text NOT NULL,
        seq bigint NOT NULL,
        -- 'table': an Alarm event the table journaled; 'floor': the witness's.
        source text NOT NULL CHECK (source IN ('table', 'floor')),
        kind text NOT NULL,
        message text NOT NULL,
        evidence bytea,
        held_hash text,
        evidence_hash text NOT NULL,
        raised_at timestamptz NOT NULL,
        UNIQUE (table_id, journal_id, seq, source, kind, evidence_hash)
    );
    CREATE TABLE devices (
        table_id text NOT NULL,
        journal_id text NOT NULL,
        seq bigint NOT NULL,
        at timestamptz NOT NULL,
        device text NOT NULL,
        event text NOT NULL,
        outcome text,
        boot text,
        serial text,
        reason text,
        detail jsonb NOT NULL,
        PRIMARY KEY (table_id, journal_id, seq)
    );
    CREATE TABLE clock_offsets (
        table_id text NOT NULL REFERENCES tables,
        window_start timestamptz NOT NULL,
        -- min(receipt - record ts) over the window, in ms: the floor's clock, the broker's.
        min_floor_ms double precision NOT NULL,
        min_broker_ms double precision,
        samples bigint NOT NULL,
        PRIMARY KEY (table_id, window_start)
    );
    CREATE VIEW chain_heads AS
        SELECT DISTINCT ON (table_id) table_id, journal_id, head_seq, head_hash
        FROM journals ORDER BY table_id, first_seen DESC;
    """,
    # 2: which software each table ran, the digests approved, the tables' keys
    # (docs/floor.md, Software and keys; controller/floor/software.py, keys.py).
    """
    CREATE TABLE software (
        table_id text NOT NULL,
        journal_id text NOT NULL,
        seq bigint NOT NULL,
        at timestamptz NOT NULL,
        version text NOT NULL,
        digest text NOT NULL,
        -- The product's files and the configuration's: path -> SHA-256 hex.
        files jsonb NOT NULL,
        config jsonb NOT NULL,
        PRIMARY KEY (table_id, journal_id, seq),
        FOREIGN KEY (table_id, journal_id) REFERENCES journals
    );
    -- The owner's alone to change (floor software approve|revoke): the writer reads it.
    CREATE TABLE approved_software (
        digest text PRIMARY KEY,
        version text NOT NULL,
        note text NOT NULL,
        approved_by text NOT NULL,
        approved_at timestamptz NOT NULL,
        -- Kept when revoked, for the record of what was approved when.
        revoked_at timestamptz
    );
    CREATE TABLE table_keys (
        table_id text NOT NULL,
        key_id text NOT NULL,
        public_key text NOT NULL,
        registered_at timestamptz NOT NULL,
        -- The database user who registered it, or 'rotation by <key id>'.
        registered_by text NOT NULL,
        retired_at timestamptz,
        PRIMARY KEY (table_id, key_id)
    );
    -- One key in force a table.
    CREATE UNIQUE INDEX table_keys_in_force ON table_keys (table_id) WHERE retired_at IS NULL;
    """,
)


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


def _grants(conn: psycopg.Connection[tuple[object, ...]]) -> None:
    writer, reader = sql.Identifier(WRITER), sql.Identifier(READER)
    database = conn.info.dbname
    for statement in (
        "REVOKE ALL ON SCHEMA public FROM PUBLIC",
        "GRANT CONNECT ON DATABASE {db} TO {writer}, {reader}",
        "GRANT USAGE ON SCHEMA public TO {writer}, {reader}",
        "REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {writer}, {reader}",
        "GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA public TO {writer}",
        "REVOKE INSERT, UPDATE ON schema_version FROM {writer}",
        # Which releases are approved is the owner's to say, never floor serve's (docs/floor.md,
        # Software and keys).
        "REVOKE INSERT, UPDATE ON approved_software FROM {writer}",
        "GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO {writer}",
        "GRANT SELECT ON ALL TABLES IN SCHEMA public TO {reader}",
    ):
        conn.execute(
            sql.SQL(statement).format(db=sql.Identifier(database), writer=writer, reader=reader)
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
