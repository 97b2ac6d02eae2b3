"""The floor's side of signed checkpoints (docs/floor.md, Software and keys): the registry of the
tables' Ed25519 keys (``tablectl floor key register|list``), rotations signed by the previous key,
and the checks of the checkpoints' signatures (controller/floor/keys.py; the signed bytes are
controller/journal/signing.py's), on a real PostgreSQL. The keys are made here with cryptography's
Ed25519."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path

import psycopg
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from floorhelp import FIXTURES, FloorDb, arrivals, floor_database, ingest_now, tablectl
from test_floor_cli import floor_toml
from test_floor_software import MOMENT, alarms, lost

from controller.floor import keys
from controller.journal import schema, signing
from controller.journal.record import GENESIS, make_record_line, parse_line
from simulator.servers_pg import PostgresServer

#: A record, or a checkpoint made from its own seq and prev (to sign them).
Entry = object | Callable[[int, str], schema.CheckpointData]


def _fixture_checkpoint() -> schema.CheckpointData:
    lines = (FIXTURES / "mambo" / "journal-000001.jsonl").read_bytes().splitlines()
    record = next(parse_line(x) for x in lines if parse_line(x).kind == "checkpoint")
    data = schema.decode(record)
    assert isinstance(data, schema.CheckpointData)
    return data


CHECKPOINT = _fixture_checkpoint()


def journal(entries: Sequence[Entry]) -> list[bytes]:
    lines: list[bytes] = []
    prev = GENESIS
    for seq, entry in enumerate(entries, 1):
        value = entry(seq, prev) if callable(entry) else entry
        kind, data = schema.record(value)
        record, line = make_record_line(seq, MOMENT, kind, data, prev)
        lines.append(line.rstrip(b"\n"))
        prev = record.hash
    return lines


def public(key: Ed25519PrivateKey) -> str:
    return signing.public_hex(key)


def key_record(
    key: Ed25519PrivateKey,
    previous: Ed25519PrivateKey | None = None,
    signer: Ed25519PrivateKey | None = None,
) -> schema.TableKeyData:
    """The table_key record of ``key``; a rotation from ``previous``, signed by ``signer``
    (default: by ``previous``, as the contract asks)."""
    new = public(key)
    if previous is None:
        return schema.TableKeyData(new, signing.key_id(new))
    old_id = signing.key_id(public(previous))
    message = signing.rotation_message(old_id, new)
    signature = signing.sign(signer or previous, message)
    return schema.TableKeyData(new, signing.key_id(new), old_id, signature)


def checkpoint(
    key: Ed25519PrivateKey | None, *, claimed: Ed25519PrivateKey | None = None
) -> Callable[[int, str], schema.CheckpointData]:
    """A checkpoint signed by ``key`` (None: unsigned) naming the key id of ``claimed``
    (default: ``key``'s own)."""

    def make(seq: int, prev: str) -> schema.CheckpointData:
        if key is None:
            return CHECKPOINT
        named = signing.key_id(public(claimed or key))
        signed = schema.CheckpointSignatureData(named, signing.sign_checkpoint(key, seq, prev))
        return dataclasses.replace(CHECKPOINT, signature=signed)

    return make


def register(tmp_path: Path, db: FloorDb, config: Path, table: str, key: Ed25519PrivateKey) -> str:
    pub = tmp_path / f"{table}-{signing.key_id(public(key))}.pub"
    pub.write_text(public(key) + "\n")
    done = tablectl(
        "floor", "key", "--config", config, "--owner-dsn", db.owner,
        "register", "--table", table, "--public-key", pub,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def in_force(db: FloorDb, table: str) -> list[tuple[str, bool]]:
    with psycopg.connect(db.reader) as conn:
        rows = conn.execute(
            "SELECT key_id, retired_at IS NULL FROM table_keys WHERE table_id = %s "
            "ORDER BY registered_at",
            (table,),
        ).fetchall()
    return [(str(k), bool(f)) for k, f in rows]


def kinds(db: FloorDb) -> list[tuple[str, int]]:
    return [
        (kind, seq)
        for kind in ("key_unregistered", "checkpoint_signature")
        for _t, seq, _m in alarms(db, kind)
    ]


def test_checkpoints_signed_by_the_registered_key_pass_and_a_forged_or_missing_one_is_alarmed(
    tmp_path: Path, postgres: PostgresServer
) -> None:
    """The key registered at install (floor key register) is journaled at the start; a
    checkpoint it signed passes; one whose signature another key made under its key id, and an
    unsigned one after the key is in force, raise checkpoint_signature naming the seq."""
    db = floor_database(postgres)
    config = floor_toml(tmp_path, postgres, db)
    k1, forger = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    said = register(tmp_path, db, config, "T1", k1)
    assert f"key {signing.key_id(public(k1))} registered, in force" in said
    lines = journal(
        [
            key_record(k1),
            lost("shoe"),
            checkpoint(k1),
            checkpoint(forger, claimed=k1),  # seq 4: forged under k1's id
            checkpoint(None),  # seq 5: unsigned
            checkpoint(k1),
        ]
    )
    ingest_now(db.writer, arrivals("T1", lines))
    assert kinds(db) == [("checkpoint_signature", 4), ("checkpoint_signature", 5)]
    messages = [m for _t, _s, m in alarms(db, "checkpoint_signature")]
    assert "does not verify" in messages[0]
    assert "not signed" in messages[1]
    ingest_now(db.writer, arrivals("T1", lines))  # redelivered: no second alarm
    assert len(kinds(db)) == 2


def test_a_rotation_signed_by_the_old_key_registers_the_new_one_and_retires_the_old(
    tmp_path: Path, postgres: PostgresServer
) -> None:
    """The rotation record's signature by the previous key hands over: the new key in force,
    the old retired; a checkpoint signed by the new key passes, one by the key rotated away is
    refused (checkpoint_signature)."""
    db = floor_database(postgres)
    config = floor_toml(tmp_path, postgres, db)
    k1, k2 = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    register(tmp_path, db, config, "T1", k1)
    lines = journal(
        [key_record(k1), checkpoint(k1), key_record(k2, k1), checkpoint(k2), checkpoint(k1)]
    )
    ingest_now(db.writer, arrivals("T1", lines))
    assert kinds(db) == [("checkpoint_signature", 5)]
    assert "not the key in force" in alarms(db, "checkpoint_signature")[0][2]
    id1, id2 = signing.key_id(public(k1)), signing.key_id(public(k2))
    assert in_force(db, "T1") == [(id1, False), (id2, True)]
    listed = tablectl("floor", "key", "--config", config, "--owner-dsn", db.owner, "list")
    assert listed.returncode == 0, listed.stderr
    assert f"key {id2}\tin force" in listed.stdout
    assert f"key {id1}\tretired" in listed.stdout
    assert f"rotation by {id1}" in listed.stdout


def test_a_rotation_not_signed_by_the_old_key_or_an_unregistered_key_is_alarmed(
    tmp_path: Path, postgres: PostgresServer
) -> None:
    """A new key whose hand-over the key in force did not sign (here the new key signed it
    itself) raises key_unregistered and changes nothing: the old key stays in force and the
    new key's checkpoints are alarmed. A table with no key registered that journals one is
    alarmed the same."""
    db = floor_database(postgres)
    config = floor_toml(tmp_path, postgres, db)
    k1, k2 = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    register(tmp_path, db, config, "T1", k1)
    lines = journal([key_record(k1), key_record(k2, k1, signer=k2), checkpoint(k2)])
    result = ingest_now(db.writer, arrivals("T1", lines))
    assert kinds(db) == [("key_unregistered", 2), ("checkpoint_signature", 3)]
    # Returned with the witness's, so floor serve logs them at warning (floor_alarm).
    assert [(kind, seq) for kind, _t, _j, seq in result.alarms] == kinds(db)
    assert "not signed by that key" in alarms(db, "key_unregistered")[0][2]
    assert in_force(db, "T1") == [(signing.key_id(public(k1)), True)]
    ingest_now(db.writer, arrivals("T2", journal([key_record(k2), lost("shoe")])))
    unregistered = [(t, s) for t, s, _m in alarms(db, "key_unregistered")]
    assert unregistered == [("T1", 2), ("T2", 1)]


def test_floor_key_register_refuses_a_file_that_is_no_public_key(
    tmp_path: Path, postgres: PostgresServer
) -> None:
    db = floor_database(postgres)
    config = floor_toml(tmp_path, postgres, db)
    bad = tmp_path / "table.pub"
    bad.write_text("not a key\n")
    refused = tablectl(
        "floor", "key", "--config", config, "--owner-dsn", db.owner,
        "register", "--table", "T1", "--public-key", bad,
    )  # fmt: skip
    assert refused.returncode == 2
    assert "expected an Ed25519 public key as 64 hex digits" in refused.stderr
    assert "Traceback" not in refused.stderr


def test_a_checkpoint_signature_that_does_not_fit_the_schema_is_alarmed_without_its_value() -> None:
    """Only the signature is decoded (schema.checkpoint_signature); one that does not fit is a
    checkpoint_signature alarm naming the field, never quoting what it holds."""
    key = Ed25519PrivateKey.generate()
    kind, data = schema.record(CHECKPOINT)
    data = {**data, "signature": {"key_id": "As Kd", "signature": 7}}
    record, _line = make_record_line(4, MOMENT, kind, data, GENESIS)
    in_force = keys.TableKey(signing.key_id(public(key)), public(key))
    (raised,) = keys.judge("T1", [record], in_force).alarms
    assert raised.kind == keys.CHECKPOINT_SIGNATURE
    assert "journal record 4 (checkpoint).signature" in raised.message
    assert "As Kd" not in raised.message
    assert "7" not in raised.message.split("signature", 1)[1]
