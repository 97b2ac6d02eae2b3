"""What the floor page shows of each table, read from the store as the reader role
(docs/floor-web.md, The floor page).

A ``TableRow`` is built from named fields only: the game, its stakes and house rules as the table
posts them (13:69F-8.3), the hand, its street, the seat to act, the pot, the devices and the
table's open alarms. It has no field for a card, so no card, face down or up, can reach a
supervisor's page or feed from here (controller/announce.py ``hidden_cards`` is the rule the
hand pages to come will apply).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import cast

import psycopg

from controller.app import records as rec
from controller.app import schema
from controller.app.recall import describe_stakes
from controller.display.view import posted_rules
from controller.engine import events as ev
from controller.engine.config import HouseRules
from controller.games import GAMES
from controller.journal import JsonObject
from controller.journal.record import parse_line

AsyncConn = psycopg.AsyncConnection[tuple[object, ...]]


@dataclass(frozen=True, slots=True)
class Device:
    device: str
    #: ready, lost or refused: the device's last ``device`` record.
    event: str
    outcome: str | None


@dataclass(slots=True)
class TableRow:
    table_id: str
    records: int
    last_seen: str
    game: str | None = None
    stakes: str | None = None
    rules: str | None = None
    hand: int | None = None
    #: The journal the hand is in (with the table and the hand: its page's address).
    journal_id: str | None = None
    #: "in progress", "settled", "voided", or None before the first hand.
    state: str | None = None
    street: str | None = None
    to_act: int | None = None
    pot: int | None = None
    players: int | None = None
    devices: list[Device] = field(default_factory=list)
    #: Alarms raised for the table and not yet acknowledged (the alarms page), the newest's message.
    alarms: int = 0
    alarm: str | None = None

    def as_json(self) -> dict[str, object]:
        return asdict(self)


@dataclass(slots=True)
class HandState:
    """The live state of a hand, from its decisions' events in chain order."""

    street: str | None = None
    to_act: int | None = None
    pot: int = 0


def hand_state(events: Sequence[ev.Event]) -> HandState:
    """Street, seat to act and pot (antes, blinds and bets so far; a round's completion gives the
    pot as the engine counted it)."""
    state = HandState()
    for event in events:
        if isinstance(event, ev.HandStarted):
            state.pot = sum(ante.amount for ante in event.antes)
        elif isinstance(event, ev.StreetStarted):
            state.street, state.to_act = event.street, None
        elif isinstance(event, ev.ActionRequired):
            state.to_act = event.seat
        elif isinstance(event, ev.BlindPosted):
            state.pot += event.amount
        elif isinstance(event, ev.ActionTaken):
            state.pot += event.amount
            state.to_act = None
        elif isinstance(event, ev.RoundCompleted):
            state.pot, state.to_act = event.pot, None
        elif isinstance(event, ev.HandSettled | ev.HandVoided):
            state.to_act = None
    return state


async def floor_rows(conn: AsyncConn, tables: Sequence[str] | None = None) -> list[TableRow]:
    """Every table the floor holds (or those of ``tables``), by id."""
    where, params = (
        ("WHERE c.table_id = ANY(%s)", (list(tables),)) if tables is not None else ("", ())
    )
    cur = await conn.execute(
        "SELECT c.table_id, c.journal_id, c.head_seq, t.last_seen, j.current_hand "
        "FROM chain_heads c JOIN tables t USING (table_id) "
        "JOIN journals j USING (table_id, journal_id) "
        f"{where} ORDER BY c.table_id",
        params,
    )
    rows = []
    for table_id, journal_id, head, last_seen, current in await cur.fetchall():
        assert isinstance(last_seen, datetime)
        row = TableRow(str(table_id), int(str(head)), last_seen.isoformat())
        if current is not None:
            await _hand(conn, row, str(journal_id), int(str(current)))
        rows.append(row)
    await _devices(conn, rows)
    await _alarms(conn, rows)
    return rows


async def _hand(conn: AsyncConn, row: TableRow, journal_id: str, hand: int) -> None:
    cur = await conn.execute(
        "SELECT game, stakes, rules, seats, started_seq, finished, voided FROM hands "
        "WHERE table_id = %s AND journal_id = %s AND hand = %s",
        (row.table_id, journal_id, hand),
    )
    found = await cur.fetchone()
    if found is None:
        return
    game, stakes, rules, seats, started, finished, voided = found
    row.hand, row.journal_id = hand, journal_id
    row.state = "voided" if voided else "settled" if finished else "in progress"
    row.players = len(seats) if isinstance(seats, list) else None
    spec = GAMES.get(str(game))
    row.game = spec.name if spec is not None else str(game)
    if isinstance(stakes, dict) and spec is not None:
        stored = cast(JsonObject, {"stakes": stakes, "rules": rules})  # as the table journaled
        terms = rec.hand_terms_of({"terms": stored})
        if terms is not None:
            row.stakes = describe_stakes(terms.stakes)
            row.rules = posted_rules(terms.rules or HouseRules(), spec)
    if started is not None:
        state = hand_state(await _events(conn, row.table_id, journal_id, int(str(started))))
        row.street, row.pot = state.street, state.pot
        row.to_act = state.to_act if not finished else None


async def _events(conn: AsyncConn, table_id: str, journal_id: str, start: int) -> list[ev.Event]:
    """The hand's events: its decisions from its first record, in the chain."""
    cur = await conn.execute(
        "SELECT line FROM records WHERE table_id = %s AND journal_id = %s AND seq >= %s "
        "AND linked AND kind = ANY(%s) ORDER BY seq",
        (table_id, journal_id, start, sorted(rec.DECISIONS)),
    )
    events: list[ev.Event] = []
    for (line,) in await cur.fetchall():
        assert isinstance(line, bytes)
        events.extend(schema.decode_events(parse_line(line)))
    return events


async def _devices(conn: AsyncConn, rows: list[TableRow]) -> None:
    by_id = {row.table_id: row for row in rows}
    cur = await conn.execute(
        "SELECT DISTINCT ON (table_id, device) table_id, device, event, outcome FROM devices "
        "WHERE table_id = ANY(%s) ORDER BY table_id, device, at DESC, seq DESC",
        (list(by_id),),
    )
    for table_id, device, event, outcome in await cur.fetchall():
        by_id[str(table_id)].devices.append(
            Device(str(device), str(event), None if outcome is None else str(outcome))
        )


async def _alarms(conn: AsyncConn, rows: list[TableRow]) -> None:
    by_id = {row.table_id: row for row in rows}
    # Open alarms only: one a supervisor acknowledged (web.alarm_acks) no longer colours the row.
    cur = await conn.execute(
        "SELECT DISTINCT ON (table_id) table_id, count(*) OVER (PARTITION BY table_id), message "
        "FROM alarms a WHERE table_id = ANY(%s) "
        "AND NOT EXISTS (SELECT 1 FROM web.alarm_acks k WHERE k.alarm_id = a.id) "
        "ORDER BY table_id, id DESC",
        (list(by_id),),
    )
    for table_id, count, message in await cur.fetchall():
        row = by_id[str(table_id)]
        row.alarms, row.alarm = int(str(count)), str(message)
