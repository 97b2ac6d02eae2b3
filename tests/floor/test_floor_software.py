"""Which software runs, on the floor (13:69E-1.28B(d); docs/floor.md, Software and keys): a table's
``software`` record is kept, and a start with a digest the database's owner has not approved raises
``software_unapproved`` (once per record); the owner's
``tablectl floor software approve|revoke|list``, on a real PostgreSQL."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import psycopg
from floorhelp import FloorDb, arrivals, count, floor_database, ingest_now, tablectl
from psycopg.conninfo import make_conninfo
from test_floor_cli import floor_toml

from controller.floor import store
from controller.journal import schema
from controller.journal.record import GENESIS, make_record_line
from simulator.servers_pg import PostgresServer

APPROVED = "a" * 64
OTHER = "b" * 64
MOMENT = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)


def journal(records: Sequence[object]) -> list[bytes]:
    """A journal of these records (schema dataclasses, or (kind, data) pairs), chained."""
    lines: list[bytes] = []
    prev = GENESIS
    for seq, value in enumerate(records, 1):
        kind, data = value if isinstance(value, tuple) else schema.record(value)
        record, line = make_record_line(seq, MOMENT, kind, data, prev)
        lines.append(line.rstrip(b"\n"))
        prev = record.hash
    return lines


def started(digest: str) -> schema.SoftwareData:
    return schema.SoftwareData(
        "0.1.0",
        {"controller/history/attest.py": "c" * 64},
        {"/etc/tablectl/table.toml": "d" * 64},
        digest,
    )


def lost(device: str) -> schema.DeviceData:
    return schema.DeviceData(device, "lost", reason="not heard since the controller started")


def alarms(db: FloorDb, kind: str) -> list[tuple[str, int, str]]:
    with psycopg.connect(db.reader) as conn:
        rows = conn.execute(
            "SELECT table_id, seq, message FROM alarms WHERE source = 'floor' AND kind = %s "
            "ORDER BY table_id, seq",
            (kind,),
        ).fetchall()
    return [(str(t), int(s), str(m)) for t, s, m in rows]


def approve(db: FloorDb, digest: str) -> None:
    with psycopg.connect(db.owner, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO approved_software (digest, version, note, approved_by, approved_at) "
            "VALUES (%s, '0.1.0', 'test', current_user, now())",
            (digest,),
        )


def test_a_start_with_unapproved_software_is_alarmed_once_and_an_approved_one_is_not(
    postgres: PostgresServer,
) -> None:
    """13:69E-1.28B(d): T1 starts with the approved digest, then again with another: one
    software_unapproved naming the table, journal, seq and digest, none for the approved start;
    both kept in ``software``; a redelivered batch raises it no second time."""
    db = floor_database(postgres)
    approve(db, APPROVED)
    lines = journal([started(APPROVED), lost("shoe"), lost("panel"), started(OTHER), lost("shoe")])
    result = ingest_now(db.writer, arrivals("T1", lines))
    assert result.stored == 5
    # Returned with the witness's, so floor serve logs it at warning (floor_alarm).
    journal_id = arrivals("T1", lines)[0].message_id
    assert journal_id is not None
    assert result.alarms == [("software_unapproved", "T1", journal_id.split(":")[1], 4)]
    found = alarms(db, "software_unapproved")
    assert [(table, seq) for table, seq, _ in found] == [("T1", 4)]
    message = found[0][2]
    assert OTHER in message
    assert "table T1" in message
    assert "record 4" in message
    journal_id = arrivals("T1", lines)[0].message_id
    assert journal_id is not None
    assert journal_id.split(":")[1] in message
    assert count(db.reader, "SELECT count(*) FROM software WHERE table_id = 'T1'") == 2
    with psycopg.connect(db.reader) as conn:
        files = conn.execute("SELECT files, config FROM software WHERE seq = 1").fetchone()
    assert files == (
        {"controller/history/attest.py": "c" * 64},
        {"/etc/tablectl/table.toml": "d" * 64},
    )
    ingest_now(db.writer, arrivals("T1", lines))  # redelivered
    assert len(alarms(db, "software_unapproved")) == 1


def test_the_writer_reads_the_approvals_but_only_the_owner_changes_them(
    postgres: PostgresServer,
) -> None:
    db = floor_database(postgres)
    with psycopg.connect(db.writer, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM approved_software").fetchone() == (0,)
        try:
            conn.execute(
                "INSERT INTO approved_software VALUES (%s, 'v', 'n', 'me', now(), NULL)",
                (APPROVED,),
            )
        except psycopg.errors.InsufficientPrivilege:
            pass
        else:
            raise AssertionError("floor serve's role approved software")
    with psycopg.connect(make_conninfo(db.owner), autocommit=True) as conn:
        assert store.applied_version(conn) == len(store.MIGRATIONS) >= 2


def test_floor_software_approve_list_and_revoke_by_the_owner(
    tmp_path: Path, postgres: PostgresServer
) -> None:
    """The owner's commands: approve (a started table is no longer alarmed at its next start),
    list (what each table last started with), revoke (the next start with it is alarmed);
    a digest that is not 64 hex digits is refused with the usage exit code."""
    db = floor_database(postgres)
    config = floor_toml(tmp_path, postgres, db)
    owner = ("--config", config, "--owner-dsn", db.owner)
    done = tablectl(
        "floor", "software", *owner, "approve", APPROVED, "--version", "0.1.0", "--note", "GLI"
    )
    assert done.returncode == 0, done.stderr
    assert f"software {APPROVED} approved" in done.stdout
    again = tablectl(
        "floor", "software", *owner, "approve", APPROVED, "--version", "0.1.0", "--note", "GLI"
    )
    assert "approved already" in again.stdout
    ingest_now(db.writer, arrivals("T1", journal([started(APPROVED), lost("shoe")])))
    assert alarms(db, "software_unapproved") == []
    listed = tablectl("floor", "software", *owner, "list")
    assert listed.returncode == 0, listed.stderr
    assert f"{APPROVED}\ttablectl 0.1.0\tapproved" in listed.stdout
    assert "table T1\t" in listed.stdout
    assert "\tapproved" in listed.stdout.splitlines()[-1]
    revoked = tablectl("floor", "software", *owner, "revoke", APPROVED)
    assert revoked.returncode == 0, revoked.stderr
    ingest_now(db.writer, arrivals("T2", journal([started(APPROVED), lost("shoe")])))
    assert [t for t, _s, _m in alarms(db, "software_unapproved")] == ["T2"]
    assert "revoked" in tablectl("floor", "software", *owner, "list").stdout
    bad = tablectl("floor", "software", *owner, "revoke", "xyz")
    assert bad.returncode == 2
    assert "digest 'xyz': expected 64 hex digits" in bad.stderr
    unknown = tablectl("floor", "software", *owner, "revoke", OTHER)
    assert unknown.returncode == 2
    assert "not approved" in unknown.stderr
