"""The alarms page's list and a supervisor's acknowledgement (docs/floor-web.md, Alarms).

An alarm is the store's (``public.alarms``: a table's journaled Alarm, or the floor witness's);
its acknowledgement is the web's (``web.alarm_acks``): once an alarm, with the supervisor's name,
the moment and a note, added and never changed (the web's role may only INSERT there). An
alarm's message is shown as stored: it never carries a card's value (a table's alarm names "a
card", controller/poker/announce.py ``alarm_read``; the witness's schema_refused keeps the schema's
reason without the value it quotes, controller/floor/ingest.py).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from datetime import datetime
from typing import Final

import psycopg
from psycopg import errors

from controller.floor.web.moments import shown

AsyncConn = psycopg.AsyncConnection[tuple[object, ...]]

#: web.alarm_acks's own bound on a note (its CHECK), said to the user before the database.
MAX_NOTE: Final = 2000
#: Acknowledged alarms listed below the open ones: the most recent; every open one is listed.
SHOWN_ACKED: Final = 200


class AckError(Exception):
    """An acknowledgement refused: the message says why, for the supervisor's screen."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True, slots=True)
class Ack:
    user: str
    at: str
    note: str


@dataclass(frozen=True, slots=True)
class AlarmRow:
    id: int
    table_id: str
    journal_id: str
    seq: int
    #: 'table' (the table journaled it) or 'floor' (the floor's witness raised it).
    source: str
    kind: str
    message: str
    #: When the floor raised the alarm, or heard the table raise it: the floor's clock
    #: (docs/floor-web.md, Alarms: Raised).
    raised_at: str
    ack: Ack | None
    #: On the newest open alarm (the highest id) of its table and kind: how many are open, one
    #: acknowledgement for them all (``acknowledge_group``); 0 on the others.
    group: int = 0

    #: The table's clock where it says another moment: the alarm's record's ts (None: the same,
    #: or no record stored).
    table_at: str | None = None

    def as_json(self) -> dict[str, object]:
        return asdict(self)


#: The alarm's record, for its ts and received_at (``clocks``): the table's and the floor's.
RECORD_JOIN: Final = (
    "LEFT JOIN records r ON r.table_id = a.table_id AND r.journal_id = a.journal_id "
    "AND r.seq = a.seq"
)
_COLUMNS: Final = (
    "a.id, a.table_id, a.journal_id, a.seq, a.source, a.kind, a.message, a.raised_at, "
    "r.ts, r.received_at, k.user_name, k.at, k.note FROM alarms a "
    "LEFT JOIN web.alarm_acks k ON k.alarm_id = a.id "
    f"{RECORD_JOIN}"
)


async def alarm_rows(conn: AsyncConn) -> list[AlarmRow]:
    """Every open alarm, newest first, then the SHOWN_ACKED most recently acknowledged."""
    found = await conn.execute(
        f"SELECT {_COLUMNS} WHERE k.alarm_id IS NULL ORDER BY a.raised_at DESC, a.id DESC"
    )
    rows = _grouped([_row(row) for row in await found.fetchall()])
    acked = await conn.execute(
        f"SELECT {_COLUMNS} WHERE k.alarm_id IS NOT NULL ORDER BY k.at DESC, a.id DESC LIMIT %s",
        (SHOWN_ACKED,),
    )
    rows.extend(_row(row) for row in await acked.fetchall())
    return rows


def _grouped(rows: list[AlarmRow]) -> list[AlarmRow]:
    """The open alarms of one cause at a table together (docs/floor-web.md, Alarms): each group
    where its newest stands, newest first within it; its newest alarm carries the count."""
    members: dict[tuple[str, str], list[AlarmRow]] = {}
    for row in rows:
        members.setdefault((row.table_id, row.kind), []).append(row)
    out: list[AlarmRow] = []
    for group in members.values():
        lead = max(row.id for row in group)
        out.extend(replace(row, group=len(group)) if row.id == lead else row for row in group)
    return out


def _row(found: tuple[object, ...]) -> AlarmRow:
    alarm_id, table_id, journal_id, seq, source, kind, message, raised_at, ts, received, *ack = (
        found
    )
    assert isinstance(raised_at, datetime)
    floor_at, table_at = clocks(raised_at, ts, received)
    user, at, note = ack
    done = None
    if user is not None:
        assert isinstance(at, datetime)
        done = Ack(str(user), shown(at), str(note))
    return AlarmRow(
        int(str(alarm_id)),
        str(table_id),
        str(journal_id),
        int(str(seq)),
        str(source),
        str(kind),
        str(message),
        floor_at,
        done,
        table_at=table_at,
    )


def clocks(raised_at: datetime, ts: object, received: object) -> tuple[str, str | None]:
    """The floor's moment of an alarm and the table's where it says another (shown). An alarm
    of the table's (and the floor's on what a record says: its software, its schema) is stamped
    with its record's ts, the table's clock: the floor's is when it received the record. One
    the floor raised on its own clock (the witness's, the chain walk's, later) is its own."""
    if not isinstance(ts, datetime) or not isinstance(received, datetime):
        return shown(raised_at), None  # no record stored: the alarm's own stamp
    floor = received if raised_at == ts else raised_at
    # A second's difference is the forwarding's, not a clock's: said only from a second apart.
    apart = abs((ts - floor).total_seconds()) >= 1
    return shown(floor), (shown(ts) if apart else None)


def checked_note(note: str) -> str:
    """The note as stored (its ends' blanks taken off), or AckError saying what is expected."""
    text = note.strip()
    if not text:
        raise AckError("A note is required: say what was done about the alarm.", 400)
    if len(text) > MAX_NOTE:
        raise AckError(f"The note is {len(text)} characters: at most {MAX_NOTE}.", 400)
    return text


async def acknowledge(conn: AsyncConn, alarm_id: int, user: str, note: str) -> AlarmRow:
    """Record ``user``'s acknowledgement of the alarm with ``note`` (now, the database's clock);
    AckError if the note is missing, the alarm unknown or acknowledged already (by whom, when).
    Returns the alarm as acknowledged."""
    text = checked_note(note)
    try:
        added = await conn.execute(
            "INSERT INTO web.alarm_acks (alarm_id, user_name, note) VALUES (%s, %s, %s) "
            "ON CONFLICT (alarm_id) DO NOTHING RETURNING alarm_id",
            (alarm_id, user, text),
        )
        fresh = await added.fetchone() is not None
    except errors.ForeignKeyViolation as error:
        if "alarm_id" not in (error.diag.constraint_name or ""):
            raise  # the user's key: a session's user is always in web.users
        raise AckError(f"There is no alarm {alarm_id} on the floor.", 404) from None
    found = await conn.execute(f"SELECT {_COLUMNS} WHERE a.id = %s", (alarm_id,))
    row = await found.fetchone()
    assert row is not None  # the key held: the alarm is there (none is ever deleted)
    alarm = _row(row)
    if not fresh:
        assert alarm.ack is not None
        raise AckError(
            f"Alarm {alarm_id} was acknowledged already, by {alarm.ack.user} at "
            f"{alarm.ack.at}: a second acknowledgement is not recorded.",
            409,
        )
    return alarm


async def acknowledge_group(
    conn: AsyncConn, alarm_id: int, user: str, note: str
) -> tuple[AlarmRow, list[int]]:
    """Acknowledge with one note every open alarm of the table and kind of ``alarm_id`` up to it
    (those the supervisor saw as its group; one raised since stays open): one row of
    ``web.alarm_acks`` each, so each is still recorded. Returns the alarm named and the ids
    acknowledged; AckError if the note is missing, the alarm unknown, or none was still open."""
    text = checked_note(note)
    added = await conn.execute(
        "WITH named AS (SELECT table_id, kind FROM alarms WHERE id = %s) "
        "INSERT INTO web.alarm_acks (alarm_id, user_name, note) "
        "SELECT a.id, %s, %s FROM alarms a JOIN named n "
        "ON a.table_id = n.table_id AND a.kind = n.kind "
        "WHERE a.id <= %s AND NOT EXISTS (SELECT 1 FROM web.alarm_acks k WHERE k.alarm_id = a.id) "
        "ORDER BY a.id ON CONFLICT (alarm_id) DO NOTHING RETURNING alarm_id",
        (alarm_id, user, text, alarm_id),
    )
    done = sorted(int(str(row[0])) for row in await added.fetchall())
    found = await conn.execute(f"SELECT {_COLUMNS} WHERE a.id = %s", (alarm_id,))
    row = await found.fetchone()
    if row is None:
        raise AckError(f"There is no alarm {alarm_id} on the floor.", 404)
    alarm = _row(row)
    if not done:
        raise AckError(
            f"Every {alarm.kind} alarm of table {alarm.table_id} up to alarm {alarm_id} was "
            "acknowledged already: a second acknowledgement is not recorded.",
            409,
        )
    return alarm, done
