"""``tablectl floor verify`` walks each stored chain by the floor's one walk
(controller/floor/chainwalk.py, the web's verification page's too): the real command over a real
PostgreSQL holding a keyed table's real journal, its key registered as at install (docs/journal.md,
Signed checkpoints). What is changed in the store is changed as the database's owner, as only they
could: a line altered is caught at its seq; a chain re-hashed after a rewrite links again, and only
the checkpoints' signatures catch it."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest
from floorhelp import FloorDb, arrivals, floor_database, ingest_now, rewritten, tablectl
from keyedtable import store_as_owner
from test_floor_cli import floor_toml
from test_floor_dispute import TABLE_ID, keyed_table

from controller.floor import keys, software
from controller.journal import JournalReader, signing
from controller.journal import tablerecords as rec
from controller.journal.record import parse_line
from simulator.servers_pg import PostgresServer


def keyed_store(
    tmp_path: Path, postgres: PostgresServer, mp: pytest.MonkeyPatch
) -> tuple[FloorDb, Path, list[bytes]]:
    """The floor's store holding the keyed table's journal, its key registered and its software
    approved (no alarm: a clean floor); the store, floor.toml and the journal's lines."""
    table = keyed_table(tmp_path / "table", mp)
    lines = [r.line().rstrip(b"\n") for r in JournalReader(table.parent / "journal")]
    public = (table.parent / "keys" / "table.pub").read_text()
    db = floor_database(postgres)
    with psycopg.connect(db.owner, autocommit=True) as conn:
        keys.register(conn, TABLE_ID, signing.parse_public_text(public, source="table.pub"))
        [digest] = {r.data["digest"] for r in map(parse_line, lines) if r.kind == software.SOFTWARE}
        software.approve(conn, str(digest), "test", "the release under test")
    ingest_now(db.writer, arrivals(TABLE_ID, lines))
    return db, floor_toml(tmp_path, postgres, db), lines


def public_of(config: Path) -> str:
    """The keyed table's table.pub (keyed_store's table beside the floor's floor.toml)."""
    return (config.parent / "table" / "keys" / "table.pub").read_text()


def test_a_keyed_journal_verifies_signed_and_a_line_altered_in_the_store_is_named(
    tmp_path: Path, postgres: PostgresServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    db, config, lines = keyed_store(tmp_path, postgres, monkeypatch)
    signed = [
        r for r in map(parse_line, lines) if r.kind == rec.CHECKPOINT and r.data.get("signature")
    ]
    assert signed, "the keyed table signed no checkpoint"
    clean = tablectl("floor", "verify", "--config", config)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert (
        ": links intact; signatures GOOD, checked with the table's registered key "
        f"{signing.key_id(signing.parse_public_text(public_of(config), source='table.pub'))}; "
        f"{len(lines)} records, head {len(lines)}\n"
    ) in clean.stdout
    assert f"signatures: {len(signed)} checkpoint(s) signed by the table's registered key" in (
        clean.stdout
    )
    # Record 20's line altered in place, its hash column left as it was.
    altered = lines[19].replace(b'"seq":20', b'"seq":21', 1)
    assert altered != lines[19]
    with psycopg.connect(db.owner, autocommit=True) as conn:
        conn.execute(
            "UPDATE records SET line = %s WHERE table_id = %s AND seq = 20", (altered, TABLE_ID)
        )
    caught = tablectl("floor", "verify", "--config", config)
    assert caught.returncode == 1
    assert (
        ": links NOT INTACT at record 20; signatures not judged past the break; 19 records"
    ) in caught.stdout
    assert "record 20: its stored line is not an intact record" in caught.stdout
    assert caught.stdout.endswith("NOT CLEAN: 1 chain with a problem\n")


def test_a_rehashed_forged_chain_passes_the_links_and_fails_the_signatures(
    tmp_path: Path, postgres: PostgresServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    db, config, lines = keyed_store(tmp_path, postgres, monkeypatch)
    seq = [r.seq for r in map(parse_line, lines) if r.kind == rec.HAND_STARTED][-1]
    forged = rewritten(lines, seq)
    first = next(
        r.seq
        for r in map(parse_line, forged)
        if r.kind == rec.CHECKPOINT and r.data.get("signature") and r.seq > seq
    )
    store_as_owner(db.owner, TABLE_ID, forged[seq - 1 :])
    caught = tablectl("floor", "verify", "--config", config)
    assert caught.returncode == 1
    # Every line hashes to itself and links: the chain reads whole.
    # docs/journal.md, Verdicts: the links intact, the signatures BAD (never "NOT INTACT").
    assert "links NOT INTACT" not in caught.stdout
    assert (
        f": links intact; signatures BAD at record {first}; {len(lines)} records, head "
        f"{len(lines)}\n"
    ) in caught.stdout
    assert f"signature(s) refused, the first at record {first}: checkpoint: " in caught.stdout
    assert "the journal was rewritten without the private key" in caught.stdout
    # The registry emptied: nothing is vouched for, and the walk says so without failing it.
    with psycopg.connect(db.owner, autocommit=True) as conn:
        conn.execute("DELETE FROM table_keys WHERE table_id = %s", (TABLE_ID,))
    unvouched = tablectl("floor", "verify", "--config", config)
    assert unvouched.returncode == 0, "no proof of a forgery, only no proof of the table"
    assert (
        ": links intact; signatures NOT CHECKED: the floor has no key registered for table "
        f"{TABLE_ID} (tablectl floor key register); {len(lines)} records"
    ) in unvouched.stdout
    assert (
        f"signatures: not vouched for: the floor's registry holds no key of table {TABLE_ID}"
        in (unvouched.stdout)
    )
