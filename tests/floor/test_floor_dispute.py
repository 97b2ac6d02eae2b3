"""``tablectl floor dispute`` (13:69E-1.31(b); docs/floor.md, Disputes): a hand's
dispute bundle from the floor's store on a real PostgreSQL, the key from the floor's registry,
equals the table's own bundle of the hand (the same records, the same recall) and verifies with
``tablectl dispute verify``; a key the registry does not hold is refused."""

from __future__ import annotations

import json
from pathlib import Path

import keyedtable
import psycopg
import pytest
from floorhelp import arrivals, floor_database, ingest_now, tablectl
from test_floor_cli import floor_toml

from controller.floor import keys
from controller.history import dispute
from controller.journal import JournalReader, signing
from simulator.servers_pg import PostgresServer

TABLE_ID = "DISPUTE-F"


def keyed_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This module's keyed table (tests/keyedtable.py): four hands over two starts."""
    return keyedtable.keyed_table(tmp_path, monkeypatch, TABLE_ID, seed=2)


def test_the_floors_bundle_equals_the_tables_and_verifies(
    tmp_path: Path, postgres: PostgresServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = keyed_table(tmp_path / "table", monkeypatch)
    public_file = table.parent / "keys" / "table.pub"
    public = signing.parse_public_text(public_file.read_text(), source="table.pub")
    lines = [r.line().rstrip(b"\n") for r in JournalReader(table.parent / "journal")]
    db = floor_database(postgres)
    config = floor_toml(tmp_path, postgres, db)
    with psycopg.connect(db.owner, autocommit=True) as conn:
        keys.register(conn, TABLE_ID, public)  # at install (docs/deploy.md, The table's key)
    ingest_now(db.writer, arrivals(TABLE_ID, lines))

    # Hand 4: the second start's second hand, its records from hand 2's signed checkpoint, the
    # last before that start's software record.
    made = tablectl("dispute", "--hand", "4", "--config", table, "--out", tmp_path / "t")
    assert made.returncode == 0, made.stderr
    floor = tablectl(
        "floor", "dispute", "--table", TABLE_ID, "--hand", "4", "--out", tmp_path / "f",
        "--config", config,
    )  # fmt: skip
    assert floor.returncode == 0, floor.stderr
    assert "from a signed checkpoint to the signed checkpoint after it" in floor.stdout
    for name in (dispute.RECORDS, dispute.RECALL, dispute.RECALL_JSON, dispute.PHH):
        assert (tmp_path / "f" / name).read_bytes() == (tmp_path / "t" / name).read_bytes(), name
    on_table = dispute.read_manifest((tmp_path / "t" / dispute.MANIFEST).read_bytes())
    on_floor = dispute.read_manifest((tmp_path / "f" / dispute.MANIFEST).read_bytes())
    assert on_floor.made_from.startswith("the floor's store (table DISPUTE-F")
    assert on_table.made_from.startswith("the journal ")
    same = ("files", "first_seq", "last_seq", "keys", "journal", "software_seq", "begins")
    assert [getattr(on_floor, name) for name in same] == [getattr(on_table, name) for name in same]
    checked = tablectl("dispute", "verify", tmp_path / "f", "--public-key", public_file, "--json")
    assert checked.returncode == 0, checked.stdout
    verdict = json.loads(checked.stdout)
    assert verdict["verified"] is True
    assert verdict["key_source"] == "file"

    # A hand the store has not got is named, with the hands it holds (exit 2).
    missing = tablectl(
        "floor", "dispute", "--table", TABLE_ID, "--hand", "9", "--out", tmp_path / "x",
        "--config", config,
    )  # fmt: skip
    assert missing.returncode == 2
    assert "hand 9 of table DISPUTE-F is not in the floor's store (it holds hands 1 to 4)" in (
        missing.stderr
    )
    # The key retired from the registry by hand: the floor no longer vouches for it.
    with psycopg.connect(db.owner, autocommit=True) as conn:
        conn.execute("DELETE FROM table_keys WHERE table_id = %s", (TABLE_ID,))
    refused = tablectl(
        "floor", "dispute", "--table", TABLE_ID, "--hand", "3", "--out", tmp_path / "y",
        "--config", config,
    )  # fmt: skip
    assert refused.returncode == 2
    assert "is not in the floor's registry" in refused.stderr
    assert not (tmp_path / "y").exists()
