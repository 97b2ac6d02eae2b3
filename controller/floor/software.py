"""Which software each table started with, and the floor's alarm for a release it has not
approved (N.J.A.C. 13:69E-1.28B(d); docs/floor.md, Software and keys).

A table journals a ``software`` record at every start (controller/history/attest.py's digest over
every file of the installed product and its configuration). The floor keeps each one (``software``)
and compares its digest with the ones the database's owner approved (``approved_software``,
``tablectl floor software approve``): any other raises ``software_unapproved``, once per record
(the alarms' unique key holds its seq). The ingest (controller/floor/ingest.py) calls ``check``
with each journal's records as they join the chain, in the batch's transaction.
"""

from __future__ import annotations

import getpass
import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final

import psycopg

from controller.journal import Record, schema

SOFTWARE: Final = "software"
#: The floor alarm of a start with a digest not approved (the store's ``alarms.kind``).
SOFTWARE_UNAPPROVED: Final = "software_unapproved"
#: Which of the digests named (a text[]) are approved: read by ``check``, or by the ingest
#: ahead, in the round trip that locks the batch's heads.
APPROVED: Final = (
    "SELECT digest FROM approved_software WHERE digest = ANY(%s) AND revoked_at IS NULL"
)

Key = tuple[str, str]


@dataclass(frozen=True, slots=True)
class Started:
    """A table's start, as its ``software`` record says."""

    seq: int
    at: str
    data: schema.SoftwareData


def started(records: Sequence[Record]) -> list[Started]:
    """The ``software`` records among ``records``, read through the schema (one the schema
    refuses is derive's ``schema_refused`` alarm already: passed over here)."""
    found = []
    for record in records:
        if record.kind != SOFTWARE:
            continue
        try:
            data = schema.decode(record)
        except schema.SchemaError:
            continue
        assert isinstance(data, schema.SoftwareData)
        found.append(Started(record.seq, record.ts, data))
    return found


def unapproved_message(table: str, journal: str, start: Started) -> str:
    """What the alarm says: the table, journal, seq and digest, and what to do."""
    return (
        f"table {table} (journal {journal}, record {start.seq}) started with software "
        f"{start.data.digest} (tablectl {start.data.version}), which the floor has not approved "
        "(13:69E-1.28B(d)): check the table with tablectl attest --seed, then approve the "
        "digest (tablectl floor software approve) or take the table out of play"
    )


def at(ts: str) -> datetime:
    """A record's ts (ISO 8601, Z) as the store's timestamptz."""
    return datetime.fromisoformat(ts.removesuffix("Z")).replace(tzinfo=UTC)


def alarm_row(key: Key, seq: int, ts: str, kind: str, message: str) -> tuple[object, ...]:
    """A floor alarm as ingest's ``_ALARM_INSERT`` takes it (no evidence but the record, which
    the store holds: its seq names it)."""
    return (*key, seq, "floor", kind, message, None, None, "", at(ts))


async def check(
    cur: psycopg.AsyncCursor[tuple[object, ...]],
    linked: Mapping[Key, Sequence[Record]],
    known: tuple[Collection[str], Collection[str]] = ((), ()),
) -> list[tuple[object, ...]]:
    """Store the ``software`` records of ``linked`` (each journal's records as they joined its
    chain) and return the alarm rows of those whose digest is not approved. ``known``: the
    digests asked ahead in this transaction (``APPROVED``) and those of them approved. A batch
    without a software record costs nothing; with a digest not asked ahead, a round trip."""
    starts = [(key, start) for key, records in linked.items() for start in started(records)]
    if not starts:
        return []
    asked, approved_ahead = known
    approved = set(approved_ahead)
    missing = sorted({start.data.digest for _, start in starts} - set(asked))
    if missing:
        # A cursor of its own: ``cur`` may hold a write unread in ingest's pipeline.
        async with cur.connection.cursor() as read:
            await read.execute(APPROVED, (missing,))
            approved.update(str(row[0]) for row in await read.fetchall())
    await cur.executemany(
        "INSERT INTO software (table_id, journal_id, seq, at, version, digest, files, config) "
        "VALUES (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
        [
            (
                *key,
                start.seq,
                at(start.at),
                start.data.version,
                start.data.digest,
                json.dumps(start.data.files, sort_keys=True),
                json.dumps(start.data.config, sort_keys=True),
            )
            for key, start in starts
        ],
    )
    return [
        alarm_row(key, start.seq, start.at, SOFTWARE_UNAPPROVED, unapproved_message(*key, start))
        for key, start in starts
        if start.data.digest not in approved
    ]


# --- the owner's approvals (tablectl floor software; controller/cli/commands/floor/software_run.py)


class ApprovalError(ValueError):
    """An approval or revocation that cannot be made as asked: says why."""


@dataclass(frozen=True, slots=True)
class Approval:
    digest: str
    version: str
    note: str
    approved_by: str
    approved_at: datetime
    revoked_at: datetime | None


@dataclass(frozen=True, slots=True)
class LastStart:
    """What a table last started with."""

    table_id: str
    digest: str
    version: str
    at: datetime
    approved: bool


def login() -> str:
    """Who makes a change of the registry or the approvals when no one is named (--by): the
    login running this, as the change logs record it beside the database user."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown login"


def checked_digest(text: str) -> str:
    """A digest as tablectl attest prints it: 64 hex digits (lower case kept)."""
    value = text.strip().lower()
    if len(value) != 64 or any(c not in "0123456789abcdef" for c in value):
        raise ApprovalError(f"digest {text!r}: expected 64 hex digits, as tablectl attest prints")
    return value


def approve(
    conn: psycopg.Connection[tuple[object, ...]],
    digest: str,
    version: str,
    note: str,
    actor: str = "",
) -> bool:
    """Approve ``digest`` (again, if it was revoked) by ``actor``, the person named (default:
    the login running this); False if it is approved already. Through the owner's function,
    which logs it in ``software_changes``."""
    if not version.strip() or not note.strip():
        raise ApprovalError("--version and --note: expected text (what was approved, and why)")
    row = conn.execute(
        "SELECT floor_software_approve(%s, %s, %s, %s)", (actor or login(), digest, version, note)
    ).fetchone()
    return bool(row and row[0])


def revoke(conn: psycopg.Connection[tuple[object, ...]], digest: str, actor: str = "") -> None:
    """Revoke an approved digest (its row kept, ``revoked_at`` set) by ``actor``."""
    row = conn.execute(
        "SELECT floor_software_revoke(%s, %s)", (actor or login(), digest)
    ).fetchone()
    if not (row and row[0]):
        raise ApprovalError(f"digest {digest}: not approved (tablectl floor software list)")


def approvals(conn: psycopg.Connection[tuple[object, ...]]) -> list[Approval]:
    rows = conn.execute(
        "SELECT digest, version, note, approved_by, approved_at, revoked_at "
        "FROM approved_software ORDER BY approved_at, digest"
    ).fetchall()
    return [Approval(*row) for row in rows]  # type: ignore[arg-type]


def last_starts(conn: psycopg.Connection[tuple[object, ...]]) -> list[LastStart]:
    rows = conn.execute(
        "SELECT DISTINCT ON (s.table_id) s.table_id, s.digest, s.version, s.at, "
        "a.digest IS NOT NULL FROM software s LEFT JOIN approved_software a "
        "ON a.digest = s.digest AND a.revoked_at IS NULL ORDER BY s.table_id, s.at DESC"
    ).fetchall()
    return [LastStart(*row) for row in rows]  # type: ignore[arg-type]
