"""The store's roles on a real PostgreSQL (docs/floor.md, The store; The roles): every line of
the docs' two tables is tried, each statement as each role, on a store made new and on one
migrated from the schema before least privilege (version 2, with its grants of then); what
floor serve may move it moves only forward, through the owner's functions, and the owner's
changes of the key registry and the approvals are each logged with the person named."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Final

import psycopg
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from floorhelp import (
    FloorDb,
    arrivals,
    fixture_lines,
    floor_database,
    ingest_now,
    journal_id,
    tablectl,
)
from psycopg import sql
from psycopg.conninfo import make_conninfo
from test_floor_cli import floor_toml

from controller.floor import keys, software, store
from controller.floor.web import dbschema as web_schema
from controller.floor.web.webtoml import DEFAULT_USER
from controller.journal import signing
from simulator.servers_pg import PostgresServer

DOC: Final = Path(__file__).parent.parent.parent / "docs" / "floor.md"
ROLES: Final = (store.WRITER, store.READER, DEFAULT_USER)
VERBS: Final = ("SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE")
WEB_PASSWORD: Final = "the web role's password in this test"
DIGEST: Final = "ab" * 32


def _cells(line: str) -> list[str]:
    return [cell.strip().strip("`") for cell in line.strip().strip("|").split("|")]


def _doc_tables() -> tuple[dict[str, dict[str, str]], dict[str, dict[str, str]]]:
    """The docs' roles table (table -> role -> what it may) and functions table (function ->
    role -> EXECUTE or no)."""
    text = DOC.read_text(encoding="utf-8")
    part = text[text.index("**The roles.**") : text.index("## Software and keys")]
    tables: dict[str, dict[str, str]] = {}
    functions: dict[str, dict[str, str]] = {}
    header: list[str] = []
    for line in part.splitlines():
        if not line.startswith("|") or line.startswith("| ---"):
            continue
        cells = _cells(line)
        if cells[0] in ("table", "function"):
            header = cells if store.WRITER in cells else []  # the roles' tables alone
            continue
        if not header:
            continue
        if header[0] == "table":
            tables[cells[0]] = dict(zip(header[1:], cells[1:], strict=True))
        else:
            functions[cells[0]] = dict(zip(header[2:], cells[2:], strict=True))
    return tables, functions


def _allowed(said: str) -> dict[str, set[str] | None]:
    """'SELECT, INSERT, UPDATE (a, b)' -> {SELECT: None, INSERT: None, UPDATE: {a, b}}
    (None: the whole table)."""
    out: dict[str, set[str] | None] = {}
    for verb, columns in re.findall(r"([A-Z]+)(?: \(([^)]*)\))?", said):
        out[verb] = {c.strip() for c in columns.split(",")} if columns else None
    return out


def _columns(owner: str, table: str) -> list[str]:
    with psycopg.connect(owner) as conn:
        rows = conn.execute(
            "SELECT column_name FROM information_schema.columns "
            "WHERE table_schema = 'public' AND table_name = %s ORDER BY ordinal_position",
            (table,),
        ).fetchall()
    return [str(r[0]) for r in rows]


def _statements(table: str, verb: str, columns: list[str]) -> Iterator[tuple[str, sql.Composed]]:
    """Each statement of ``verb`` on ``table`` to try: an UPDATE of each column alone."""
    name = sql.Identifier(table)
    if verb == "SELECT":
        yield "", sql.SQL("SELECT * FROM {} LIMIT 1").format(name)
    elif verb == "INSERT":
        yield "", sql.SQL("INSERT INTO {} DEFAULT VALUES").format(name)
    elif verb == "DELETE":
        yield "", sql.SQL("DELETE FROM {}").format(name)
    elif verb == "TRUNCATE":
        yield "", sql.SQL("TRUNCATE {} CASCADE").format(name)
    else:
        for column in columns:
            yield (
                column,
                sql.SQL("UPDATE {} SET {} = {}").format(
                    name, sql.Identifier(column), sql.Identifier(column)
                ),
            )


def _try(
    to: str | psycopg.Connection[tuple[object, ...]], statement: sql.Composable
) -> psycopg.Error | None:
    """The statement's error (None: it ran), in a transaction of its own, always rolled back:
    on a connection of its own (``to`` a connection string) or on ``to``, a role's connection
    that ``_every_line_holds`` keeps for its hundreds of statements (a privilege is checked a
    statement, whatever the connection; a new one a statement was a PostgreSQL backend started
    and a password checked each time, most of the test's time)."""
    if isinstance(to, str):
        with psycopg.connect(to) as conn:
            return _try(conn, statement)
    try:
        to.execute(statement)
    except psycopg.Error as error:
        return error
    finally:
        to.rollback()
    return None


def _dsns(db: FloorDb) -> dict[str, str]:
    return {
        store.WRITER: db.writer,
        store.READER: db.reader,
        DEFAULT_USER: make_conninfo(db.owner, user=DEFAULT_USER, password=WEB_PASSWORD),
    }


def _every_line_holds(db: FloorDb) -> int:
    """Try every verb on every table the docs list, and every function, as each role: refused
    (permission denied) exactly where the docs do not list it. Returns the statements tried."""
    tables, functions = _doc_tables()
    with ExitStack() as stack:
        conns = {role: stack.enter_context(psycopg.connect(dsn)) for role, dsn in _dsns(db).items()}
        return _every_line_holds_on(db, tables, functions, conns)


def _every_line_holds_on(
    db: FloorDb,
    tables: dict[str, dict[str, str]],
    functions: dict[str, dict[str, str]],
    dsns: dict[str, psycopg.Connection[tuple[object, ...]]],
) -> int:
    with psycopg.connect(db.owner) as conn:
        held = {
            str(r[0])
            for r in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
            ).fetchall()
        }
        defined = {
            str(r[0]): str(r[1])
            for r in conn.execute(
                "SELECT p.proname, pg_get_function_identity_arguments(p.oid) FROM pg_proc p "
                "JOIN pg_namespace n ON n.oid = p.pronamespace "
                "WHERE n.nspname = 'public' AND p.prosecdef"
            ).fetchall()
        }
    # Every table and every owner's function is a line of the docs, and only those.
    assert set(tables) == held
    assert set(functions) == set(defined)
    tried = 0
    for table, said in tables.items():
        columns = _columns(db.owner, table)
        for role in ROLES:
            allowed = _allowed(said[role])
            for verb in VERBS:
                for column, statement in _statements(table, verb, columns):
                    grant = allowed.get(verb, set())
                    may = verb in allowed and (grant is None or column in grant)
                    error = _try(dsns[role], statement)
                    denied = isinstance(error, psycopg.errors.InsufficientPrivilege)
                    where = f"{role}: {statement.as_string(None)}"
                    assert denied != may, f"{where}: {'refused' if denied else 'allowed'} ({error})"
                    tried += 1
        # Locking a row for a change is a change's privilege: refused where no UPDATE is.
        for role in ROLES:
            if "UPDATE" in _allowed(said[role]):
                continue
            locking = sql.SQL("SELECT 1 FROM {} FOR UPDATE").format(sql.Identifier(table))
            error = _try(dsns[role], locking)
            assert isinstance(error, psycopg.errors.InsufficientPrivilege), (role, table, error)
            tried += 1
    for function, said in functions.items():
        nulls = ", ".join(f"NULL::{a.split(' ', 1)[1]}" for a in defined[function].split(", "))
        call = sql.SQL(f"SELECT {function}({nulls})")  # type: ignore[arg-type]
        for role in ROLES:
            error = _try(dsns[role], call)
            denied = isinstance(error, psycopg.errors.InsufficientPrivilege)
            assert denied == (said[role] != "EXECUTE"), (role, function, error)
            tried += 1
    return tried


def _web(db: FloorDb) -> None:
    with psycopg.connect(db.owner, autocommit=True) as conn:
        web_schema.setup(conn)
        store.set_password(conn, DEFAULT_USER, WEB_PASSWORD)


def _filled(db: FloorDb) -> None:
    """A table's journal stored by floor serve's role, a key, an approval, an alarm."""
    lines = fixture_lines()
    ingest_now(db.writer, arrivals("T1", lines))
    with psycopg.connect(db.owner, autocommit=True) as conn:
        keys.register(conn, "T1", signing.public_hex(Ed25519PrivateKey.generate()), "A. Smith")
        software.approve(conn, DIGEST, "0.1.0", "the laboratory's letter", "A. Smith")
    with psycopg.connect(db.writer, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO alarms (table_id, journal_id, seq, source, kind, message, evidence_hash,"
            " raised_at) VALUES ('T1', %s, 1, 'floor', 'chain_broken', 'a test', '', now())",
            (journal_id(lines),),
        )


def test_a_new_store_grants_each_role_exactly_what_the_docs_say(postgres: PostgresServer) -> None:
    db = floor_database(postgres)
    _web(db)
    _filled(db)
    assert _every_line_holds(db) > 300


#: The grants of the store at version 2, as its setup gave them (before least privilege).
_GRANTS_V2: Final = (
    "REVOKE ALL ON SCHEMA public FROM PUBLIC",
    "GRANT CONNECT ON DATABASE {db} TO {writer}, {reader}",
    "GRANT USAGE ON SCHEMA public TO {writer}, {reader}",
    "REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {writer}, {reader}",
    "GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA public TO {writer}",
    "REVOKE INSERT, UPDATE ON schema_version FROM {writer}",
    "REVOKE INSERT, UPDATE ON approved_software FROM {writer}",
    "GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO {writer}",
    "GRANT SELECT ON ALL TABLES IN SCHEMA public TO {reader}",
)


def _store_at_version_2(postgres: PostgresServer) -> FloorDb:
    """A store as the setup of version 2 left it, holding a journal, a key and an approval
    written as they were then."""
    db = floor_database(postgres)  # the roles and their passwords; the schema is made anew
    with psycopg.connect(db.owner, autocommit=True) as conn:
        conn.execute("DROP SCHEMA public CASCADE")
        conn.execute("CREATE SCHEMA public")
        conn.execute(
            "CREATE TABLE schema_version ("
            " version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        for version in (1, 2):
            conn.execute(store.MIGRATIONS[version - 1].encode())
            conn.execute("INSERT INTO schema_version (version) VALUES (%s)", (version,))
        for statement in _GRANTS_V2:
            conn.execute(
                sql.SQL(statement).format(  # type: ignore[arg-type]
                    db=sql.Identifier(db.dbname),
                    writer=sql.Identifier(store.WRITER),
                    reader=sql.Identifier(store.READER),
                )
            )
        conn.execute("INSERT INTO tables VALUES ('T1', now(), now())")
        conn.execute(
            "INSERT INTO journals (table_id, journal_id, first_seen) VALUES ('T1', 'J', now())"
        )
        conn.execute(
            "INSERT INTO table_keys VALUES ('T1', '0123456789abcdef', %s, now(), 'postgres', NULL)",
            ("cd" * 32,),
        )
        conn.execute(
            "INSERT INTO approved_software VALUES (%s, '0.1.0', 'then', 'postgres', now(), NULL)",
            (DIGEST,),
        )
    return db


def test_the_migration_brings_a_store_of_before_to_the_grants(postgres: PostgresServer) -> None:
    db = _store_at_version_2(postgres)
    # As it was: floor serve's role could rewrite the evidence and the key registry.
    assert _try(db.writer, sql.SQL("UPDATE journals SET head_seq = 7")) is None
    assert _try(db.writer, sql.SQL("UPDATE table_keys SET retired_at = now()")) is None
    with psycopg.connect(db.owner, autocommit=True) as conn:
        assert store.setup(conn) == list(range(3, len(store.MIGRATIONS) + 1))
        # What the registry and the approvals held is the change logs' first lines.
        assert conn.execute("SELECT actor, table_id, change FROM key_changes").fetchall() == [
            ("postgres", "T1", "registered (before the change log)")
        ]
        assert conn.execute("SELECT actor, digest, change FROM software_changes").fetchall() == [
            ("postgres", DIGEST, "approved (before the change log)")
        ]
    _web(db)
    _filled(db)
    assert _every_line_holds(db) > 300


def _refused(dsn: str, statement: str, *params: object) -> psycopg.Error:
    with psycopg.connect(dsn) as conn, pytest.raises(psycopg.Error) as caught:
        conn.execute(statement.encode(), params)
    return caught.value


def test_floor_serve_moves_a_head_and_a_key_only_forward(postgres: PostgresServer) -> None:
    db = floor_database(postgres)
    lines = fixture_lines()
    root = journal_id(lines)
    ingest_now(db.writer, arrivals("T1", lines[:5]))
    with psycopg.connect(db.owner) as conn:
        head = conn.execute("SELECT head_seq, head_hash FROM journals").fetchone()
        hash_3 = conn.execute("SELECT hash FROM records WHERE seq = 3").fetchone()
    assert head is not None
    assert hash_3 is not None
    assert head[0] == 5
    advance = "SELECT floor_advance_heads(%s, %s, %s, %s, NULL::integer[])"
    # Backwards, onto another hash at the head, past the stored records, or onto a record with
    # another hash: each refused, the head as it was.
    for seq, hash_ in ((3, hash_3[0]), (5, hash_3[0]), (9, head[1]), (4, head[1])):
        error = _refused(db.writer, advance, ["T1"], [root], [seq], [hash_])
        assert isinstance(error, psycopg.errors.CheckViolation), error
        assert "moves only forward" in str(error)
    # A record is marked linked, never unlinked; the writer cannot lock a head itself.
    with psycopg.connect(db.writer) as conn:
        conn.execute(
            "SELECT floor_link_records(%s, %s, %s)", (["T1"], [root], [1])
        )  # linked already: nothing
    error = _refused(db.writer, "SELECT 1 FROM journals FOR UPDATE")
    assert isinstance(error, psycopg.errors.InsufficientPrivilege)
    # A rotation only from a stored table_key record naming the key in force as its previous.
    error = _refused(db.writer, "SELECT floor_key_rotate('T1', %s, 2)", root)
    assert isinstance(error, psycopg.errors.InvalidParameterValue), error
    with psycopg.connect(db.owner) as conn:
        assert conn.execute("SELECT head_seq FROM journals").fetchone() == (5,)
        assert conn.execute("SELECT count(*) FROM table_keys").fetchone() == (0,)
    # The rest of the journal stored after all that: the head moves on.
    assert ingest_now(db.writer, arrivals("T1", lines)).stored == len(lines) - 5


def test_the_owners_changes_are_logged_with_the_person_named(postgres: PostgresServer) -> None:
    db = floor_database(postgres)
    first = signing.public_hex(Ed25519PrivateKey.generate())
    second = signing.public_hex(Ed25519PrivateKey.generate())
    with psycopg.connect(db.owner, autocommit=True) as conn:
        id1, retired = keys.register(conn, "T1", first, "A. Smith")
        assert retired is None
        assert keys.register(conn, "T1", first, "A. Smith") == (id1, None)  # nothing changed
        id2, retired = keys.register(conn, "T1", second, "B. Jones")
        assert retired == id1
        assert software.approve(conn, DIGEST, "0.1.0", "the letter", "A. Smith")
        assert not software.approve(conn, DIGEST, "0.1.0", "again", "A. Smith")
        software.revoke(conn, DIGEST, "B. Jones")
        with pytest.raises(software.ApprovalError, match="not approved"):
            software.revoke(conn, DIGEST, "B. Jones")
        with pytest.raises(psycopg.errors.InvalidParameterValue, match="a person's name"):
            keys.register(conn, "T1", first, " ")
        log = conn.execute("SELECT actor, key_id, change FROM key_changes ORDER BY id").fetchall()
        assert log == [
            ("A. Smith", id1, "registered"),
            ("B. Jones", id1, f"retired by the registration of {id2}"),
            ("B. Jones", id2, "registered"),
        ]
        changes = conn.execute(
            "SELECT actor, change, db_user = session_user FROM software_changes ORDER BY id"
        ).fetchall()
        assert changes == [("A. Smith", "approved", True), ("B. Jones", "revoked", True)]
        assert conn.execute(
            "SELECT registered_by FROM table_keys WHERE retired_at IS NULL"
        ).fetchone() == ("B. Jones",)


def test_the_commands_name_the_person_and_refuse_a_blank_name(
    tmp_path: Path, postgres: PostgresServer
) -> None:
    db = floor_database(postgres)
    config = floor_toml(tmp_path, postgres, db)
    pub = tmp_path / "table.pub"
    pub.write_text(signing.public_hex(Ed25519PrivateKey.generate()) + "\n", encoding="utf-8")
    owner = ("--config", config, "--owner-dsn", db.owner)
    done = tablectl("floor", "key", *owner, "register", "--table", "T1", "--public-key", pub,
                    "--by", "C. Doe")  # fmt: skip
    assert done.returncode == 0, done.stderr
    approved = tablectl("floor", "software", *owner, "approve", DIGEST, "--version", "0.1.0",
                        "--note", "the letter", "--by", "C. Doe")  # fmt: skip
    assert approved.returncode == 0, approved.stderr
    for blank in (
        ("key", *owner, "register", "--table", "T1", "--public-key", pub, "--by", " "),
        ("software", *owner, "revoke", DIGEST, "--by", ""),
    ):
        refused = tablectl("floor", *blank)
        assert refused.returncode == 2
        assert refused.stderr.count("\n") == 1, refused.stderr
        assert "expected a person's name" in refused.stderr
    listed = tablectl("floor", "key", *owner, "list")
    assert "by C. Doe" in listed.stdout
    with psycopg.connect(db.owner) as conn:
        assert conn.execute("SELECT actor, change FROM key_changes").fetchall() == [
            ("C. Doe", "registered")
        ]
        assert conn.execute("SELECT actor, change FROM software_changes").fetchall() == [
            ("C. Doe", "approved")
        ]


def test_acknowledgements_are_added_to_never_changed_and_the_functions_are_pinned(
    postgres: PostgresServer,
) -> None:
    db = floor_database(postgres)
    _web(db)
    _filled(db)
    dsns = _dsns(db)
    with psycopg.connect(db.owner, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO web.users (name, role, password_hash) VALUES ('ana', 'supervisor', "
            "'$argon2id$x')"
        )
    web = dsns[DEFAULT_USER]
    with psycopg.connect(web, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO web.alarm_acks (alarm_id, user_name, note) "
            "SELECT id, 'ana', 'seen' FROM alarms"
        )
    for statement in (
        "UPDATE web.alarm_acks SET note = 'nothing'",
        "UPDATE web.alarm_acks SET user_name = 'ana'",
        "DELETE FROM web.alarm_acks",
        "TRUNCATE web.alarm_acks",
        "UPDATE alarms SET kind = 'nothing'",
        "DELETE FROM alarms",
    ):
        for role, dsn in dsns.items():
            error = _try(dsn, sql.SQL(statement))  # type: ignore[arg-type]
            assert isinstance(error, psycopg.errors.InsufficientPrivilege), (role, statement)
    for role in (store.WRITER, store.READER):
        insert = "INSERT INTO web.alarm_acks (alarm_id, user_name, note) VALUES (1, 'ana', 'n')"
        error = _try(dsns[role], sql.SQL(insert))  # type: ignore[arg-type]
        assert isinstance(error, psycopg.errors.InsufficientPrivilege), role
    with psycopg.connect(db.owner) as conn:
        assert conn.execute("SELECT count(*), min(note) FROM web.alarm_acks").fetchone() == (
            1,
            "seen",
        )
        rows = conn.execute(
            "SELECT p.proname, r.rolname, p.proconfig, n.nspowner::regrole::text FROM pg_proc p "
            "JOIN pg_namespace n ON n.oid = p.pronamespace JOIN pg_roles r ON r.oid = p.proowner "
            "WHERE n.nspname = 'public' AND p.prosecdef"
        ).fetchall()
    assert len(rows) == 8
    for name, by, config, _schema_owner in rows:  # the owner's, search_path fixed
        assert by == "postgres", name
        assert config == ["search_path=pg_catalog, pg_temp"], name
