"""The floor's registry of the tables' Ed25519 keys and its checks of their signatures
(docs/floor.md, Software and keys; the signed bytes are controller/journal/signing.py's).

Each table has at most one key in force (``table_keys`` with no ``retired_at``), registered by
the database's owner at install (``tablectl floor key register``) or handed over by a rotation
the previous key signed. As a journal's records join its chain:

- a ``table_key`` record with the key in force is the table saying it again at a start: nothing;
  a rotation from the key in force whose ``rotation_signature`` that key made registers the new
  key and retires the old; anything else (a key not registered for the table, a retired one, a
  rotation from another key or not signed by it) raises ``key_unregistered``;
- a ``checkpoint`` must carry a signature by the key in force over its own seq and prev, once
  the table has a key in force (an unsigned one, one signed by another key, a key rotated away
  among them, or a signature that does not verify raise ``checkpoint_signature``); a signed
  checkpoint of a table with no key in force cannot be checked, and raises it too.

Each alarm once per record (the alarms' unique key holds its seq). ``judge`` is pure; ``check``
reads the keys in force (unless the ingest read them ahead, with its locks: ``IN_FORCE``) and
writes the rotations, in the ingest's transaction.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Final

import psycopg

from controller.floor.software import Key, alarm_row, login
from controller.journal import Record, schema, signing

TABLE_KEY: Final = "table_key"
CHECKPOINT: Final = "checkpoint"
#: The floor alarms of the tables' keys and signatures (the store's ``alarms.kind``).
KEY_UNREGISTERED: Final = "key_unregistered"
CHECKPOINT_SIGNATURE: Final = "checkpoint_signature"
#: The kinds of record ``check`` judges: a batch with none costs no read of the keys.
KINDS: Final = frozenset({TABLE_KEY, CHECKPOINT})
#: The keys in force of the tables named (a text[]): read by ``check``, or by the ingest ahead,
#: in the round trip that locks the batch's heads (so the writes wait on no read after them).
IN_FORCE: Final = (
    "SELECT table_id, key_id, public_key FROM table_keys "
    "WHERE table_id = ANY(%s) AND retired_at IS NULL"
)
#: Every key the registry holds of one table, retired or in force: key id, public key, in
#: force (a ``chainwalk.Registry``), for the walks of a stored chain (floor verify, the web's).
REGISTRY: Final = (
    "SELECT key_id, public_key, retired_at IS NULL FROM table_keys WHERE table_id = %s"
)


@dataclass(frozen=True, slots=True)
class TableKey:
    """A table's key as the registry holds it."""

    key_id: str
    public_key: str


@dataclass(frozen=True, slots=True)
class Rotation:
    """A key handed over by a rotation its previous key signed."""

    seq: int
    new: TableKey
    previous: str


@dataclass(frozen=True, slots=True)
class Raised:
    seq: int
    at: str
    kind: str
    message: str


@dataclass(slots=True)
class Judged:
    """What one journal's records did to its table's key."""

    in_force: TableKey | None
    rotations: list[Rotation] = field(default_factory=list)
    alarms: list[Raised] = field(default_factory=list)


def judge(table: str, records: Sequence[Record], in_force: TableKey | None) -> Judged:
    """Judge ``records`` (in chain order) against the table's key in force (pure)."""
    out = Judged(in_force)
    for record in records:
        if record.kind == TABLE_KEY:
            try:
                data = schema.decode(record)
            except schema.SchemaError:
                continue  # derive's schema_refused alarm already
            assert isinstance(data, schema.TableKeyData)
            problem = _table_key(out, record, data)
            kind = KEY_UNREGISTERED
        elif record.kind == CHECKPOINT:
            problem = _signed(out.in_force, record)
            kind = CHECKPOINT_SIGNATURE
        else:
            continue
        if problem is not None:
            out.alarms.append(Raised(record.seq, record.ts, kind, f"table {table}: {problem}"))
    return out


def _table_key(out: Judged, record: Record, data: schema.TableKeyData) -> str | None:
    """Why the journaled key is not the table's (None: it is, or a valid rotation made it)."""
    said = f"record {record.seq} journals key {data.key_id}"
    try:
        named = signing.key_id(data.public_key)
    except signing.SigningError as error:
        return f"{said}: {error}"
    if named != data.key_id:
        return f"{said}, but its public key's id is {named}"
    current = out.in_force
    if current is not None and data.public_key == current.public_key:
        return None
    problem = _not_a_rotation(current, data)
    if problem is not None:
        return f"{said}{problem}"
    assert current is not None  # a rotation is from the key in force
    new = TableKey(data.key_id, data.public_key)
    out.rotations.append(Rotation(record.seq, new, current.key_id))
    out.in_force = new
    return None


def _not_a_rotation(current: TableKey | None, data: schema.TableKeyData) -> str | None:
    """Why a new key is not a rotation the key in force signed (None: it is one)."""
    if data.previous is None or data.rotation_signature is None:
        held = "no key" if current is None else f"key {current.key_id}"
        return (
            f", not registered for the table (the floor holds {held} in force): register it "
            "with tablectl floor key register after checking it at the table"
        )
    if current is None or data.previous != current.key_id:
        held = "none" if current is None else current.key_id
        return f" as a rotation from key {data.previous}, not the key in force ({held})"
    if not signing.verify_rotation(
        current.public_key, data.previous, data.public_key, data.rotation_signature
    ):
        return f" as a rotation from key {data.previous}, not signed by that key"
    return None


def _signed(in_force: TableKey | None, record: Record) -> str | None:
    """Why the checkpoint ``record`` is not signed by the key in force (None: it is)."""
    try:
        # The signature alone: the engine's state the checkpoint carries is the table's to read.
        signature = schema.checkpoint_signature(record)
    except schema.SchemaError as error:
        # The schema's reason without the value it quotes, as derive's schema_refused gives it.
        return str(error).split(", not ", 1)[0]
    return _checkpoint(in_force, record, signature)


def _checkpoint(
    in_force: TableKey | None, record: Record, signature: schema.CheckpointSignatureData | None
) -> str | None:
    """Why the checkpoint's signature is not the key in force's (None: it is, or the table has
    no key and signs nothing)."""
    where = f"checkpoint {record.seq}"
    if in_force is None:
        if signature is None:
            return None
        return f"{where} is signed by key {signature.key_id}, but no key is in force for the table"
    if signature is None:
        return f"{where} is not signed, though key {in_force.key_id} is in force for the table"
    if signature.key_id != in_force.key_id:
        return (
            f"{where} is signed by key {signature.key_id}, not the key in force {in_force.key_id}"
        )
    if not signing.verify_checkpoint(
        in_force.public_key, record.seq, record.prev, signature.signature
    ):
        return f"{where}: its signature does not verify with key {in_force.key_id}"
    return None


def in_force_of(
    tables: Iterable[str], rows: Iterable[tuple[object, ...]]
) -> dict[str, TableKey | None]:
    """Each of ``tables``' key in force (None: none) from ``IN_FORCE``'s rows for them."""
    found: dict[str, TableKey | None] = dict.fromkeys(tables)
    for table, key_id, public in rows:
        found[str(table)] = TableKey(str(key_id), str(public))
    return found


async def check(
    cur: psycopg.AsyncCursor[tuple[object, ...]],
    linked: Mapping[Key, Sequence[Record]],
    now: datetime,
    known: Mapping[str, TableKey | None] | None = None,
) -> list[tuple[object, ...]]:
    """Judge ``linked`` (each journal's records as they joined its chain) against the keys in
    force, register the rotations, and return the alarm rows. ``known``: the keys in force of
    some tables read ahead in this transaction (``IN_FORCE``). A batch without a checkpoint or a
    table_key record costs nothing; with one of a table not in ``known``, a round trip."""
    wanted = {key: [r for r in records if r.kind in KINDS] for key, records in linked.items()}
    wanted = {key: records for key, records in wanted.items() if records}
    if not wanted:
        return []
    tables = sorted({table for table, _ in wanted})
    in_force = {table: known[table] for table in tables if known is not None and table in known}
    missing = [table for table in tables if table not in in_force]
    if missing:
        # A cursor of its own: ``cur`` may hold a write unread in ingest's pipeline.
        async with cur.connection.cursor() as read:
            await read.execute(IN_FORCE, (missing,))
            in_force.update(in_force_of(missing, await read.fetchall()))
    alarms: list[tuple[object, ...]] = []
    for key in sorted(wanted):
        judged = judge(key[0], wanted[key], in_force.get(key[0]))
        alarms.extend(alarm_row(key, a.seq, a.at, a.kind, a.message) for a in judged.alarms)
        for rotation in judged.rotations:
            await _rotate(cur, key, rotation)
        if judged.in_force is not None:
            in_force[key[0]] = judged.in_force
    return alarms


async def _rotate(
    cur: psycopg.AsyncCursor[tuple[object, ...]], key: Key, rotation: Rotation
) -> None:
    """Retire the previous key and put the new one in force, through the owner's function,
    which reads the new key from the stored record (controller/floor/store.py, migration 3)."""
    await cur.execute("SELECT floor_key_rotate(%s, %s, %s)", (*key, rotation.seq))


# --- the owner's registry (tablectl floor key; controller/cli/commands/floor/software_run.py) -----


@dataclass(frozen=True, slots=True)
class Registered:
    table_id: str
    key_id: str
    public_key: str
    registered_at: datetime
    registered_by: str
    retired_at: datetime | None


def register(
    conn: psycopg.Connection[tuple[object, ...]], table: str, public_key: str, actor: str = ""
) -> tuple[str, str | None]:
    """Put ``public_key`` in force for ``table`` (the key in force before, if another, is
    retired), by ``actor``, the person named (default: the login running this): its key id
    and the id retired (None: none, or it was the same key). Through the owner's function,
    which logs it in ``key_changes``."""
    key_id = signing.key_id(public_key)
    row = conn.execute(
        "SELECT floor_key_register(%s, %s, %s, %s)", (actor or login(), table, key_id, public_key)
    ).fetchone()
    before = None if row is None or row[0] is None else str(row[0])
    return key_id, None if before == key_id else before


def registered(conn: psycopg.Connection[tuple[object, ...]]) -> list[Registered]:
    rows = conn.execute(
        "SELECT table_id, key_id, public_key, registered_at, registered_by, retired_at "
        "FROM table_keys ORDER BY table_id, registered_at"
    ).fetchall()
    return [Registered(*row) for row in rows]  # type: ignore[arg-type]
