"""What the floor page shows of each table, read from the store as the reader role
(docs/floor-web.md, The floor page).

A ``TableRow`` is built from named fields only: the game, its stakes and house rules as the table
posts them (13:69F-8.3), the hand, its street, the seat to act, the pot, the devices and the
table's open alarms. It has no field for a card, so no card, face down or up, can reach a
supervisor's page or feed from here (controller/poker/announce.py ``hidden_cards`` is the rule the
hand pages to come will apply).

The live page (``Live``) holds each table's row as last read (``Held``) and reads only what came
after it (``read_rows``); ``floor_rows`` reads each table whole. Both come to the same rows: the
hand's state is one fold of its events (``hand_state``) however many reads they come in.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from typing import cast

import psycopg

from controller.display.view import posted_rules
from controller.floor.chainwatch import CHAIN_BROKEN
from controller.floor.web.betting import Betting
from controller.floor.web.moments import shown
from controller.history.recall import describe_stakes
from controller.journal import JsonObject, schema
from controller.journal import tablerecords as rec
from controller.journal.record import RecordError, parse_line
from controller.poker.engine import events as ev
from controller.poker.engine.tablesetup import HouseRules
from controller.poker.games import GAMES

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
    #: When the floor last stored a record of the table (the floor's clock, ISO 8601): the
    #: floor page's script reckons a table's silence from it.
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
    #: The first record at which floor serve's walk found the table's stored chain broken (its
    #: chain_broken alarm, acknowledged or not: an acknowledgement mends no chain); None: none.
    chain_broken: int | None = None

    @property
    def last_heard(self) -> str:
        """``last_seen`` as every page says a moment (moments.py)."""
        return shown(datetime.fromisoformat(self.last_seen))

    def silent(self, now: float, bound: float) -> bool:
        """Whether the floor has heard nothing from the table for more than ``bound`` seconds
        at ``now`` (Unix seconds; [web] silent_after)."""
        return now - datetime.fromisoformat(self.last_seen).timestamp() > bound

    def as_json(self) -> dict[str, object]:
        return {**asdict(self), "last_heard": self.last_heard}


def hand_state(events: Iterable[ev.Event], state: Betting | None = None) -> Betting:
    """Street, seat to act and pot (betting.py): ``state`` (a new hand's if None) advanced by
    ``events``, the next of the hand's events. A fold, so the live page's reads, which give a
    held hand only its new records' events, and a whole read of the hand come to the same
    state."""
    state = state if state is not None else Betting()
    for event in events:
        state.follow(event)
    return state


@dataclass(slots=True)
class Held:
    """What the floor page holds of a table between reads (``Live``): its journal, its current
    hand's row as shown (None before the first hand) and the seq through which its decision
    records were read. The next read reads only the records after ``seq``."""

    journal_id: str
    seq: int
    hand: HeldHand | None = None


@dataclass(slots=True)
class HeldHand:
    """A hand's terms as the store's ``hands`` row gives them, and its state so far."""

    hand: int
    game: str
    stakes: str | None
    rules: str | None
    players: int | None
    finished: bool
    voided: bool
    #: None: the hand did not start in this journal (no HandStarted to count the pot from).
    play: Betting | None

    def advance(self, events: Sequence[ev.Event]) -> None:
        """The hand after ``events``: the store marks a hand finished (and voided) by these same
        events (controller/floor/derive.py), so a held hand need not read its row again."""
        for event in events:
            if isinstance(event, ev.HandSettled):
                self.finished = True
            elif isinstance(event, ev.HandVoided):
                self.finished = self.voided = True
        if self.play is not None:
            hand_state(events, self.play)

    def show(self, row: TableRow, journal_id: str) -> None:
        row.hand, row.journal_id, row.players = self.hand, journal_id, self.players
        row.state = "voided" if self.voided else "settled" if self.finished else "in progress"
        row.game, row.stakes, row.rules = self.game, self.stakes, self.rules
        if self.play is not None:
            row.street, row.pot = self.play.street, self.play.pot
            row.to_act = self.play.to_act if not self.finished else None


@dataclass(frozen=True, slots=True)
class _Head:
    table_id: str
    journal_id: str
    head: int
    last_seen: str
    current: int | None


async def floor_rows(conn: AsyncConn, tables: Sequence[str] | None = None) -> list[TableRow]:
    """Every table the floor holds (or those of ``tables``), by id, each read whole."""
    rows, _held = await read_rows(conn, tables, {})
    return rows


async def read_rows(
    conn: AsyncConn, tables: Sequence[str] | None, held: Mapping[str, Held]
) -> tuple[list[TableRow], dict[str, Held]]:
    """The rows of ``tables`` (None: every table), by id, and what to hold of each for the next
    read. A table in ``held`` on the same journal and hand has only its decision records after
    the held seq read and folded in; any other is read whole: its hand's row and every decision
    of the hand. A few queries for all the tables, not a few a table (docs/performance.md, Why
    the web view lags). ``held`` is left as it was: a read that fails holds nothing new."""
    heads = await _heads(conn, tables)
    now, whole = _kept(heads, held)
    now.update(await _hands(conn, whole))
    reads = {t: h for t, h in now.items() if h.hand is not None}
    events = await _events(
        conn, [(head, reads[head.table_id].seq) for head in heads if head.table_id in reads]
    )
    rows = []
    for head in heads:
        row = TableRow(head.table_id, head.head, head.last_seen)
        kept = now.get(head.table_id)
        if kept is not None:
            if kept.hand is not None:
                kept.hand.advance(events.get(head.table_id, []))
                kept.hand.show(row, head.journal_id)
            kept.seq = head.head
        rows.append(row)
    await _devices(conn, rows)
    await _alarms(conn, rows)
    return rows, now


def _kept(heads: Sequence[_Head], held: Mapping[str, Held]) -> tuple[dict[str, Held], list[_Head]]:
    """What is kept of ``held`` at ``heads`` (a copy to advance), and the heads whose hand must
    be read whole: not held, or a new hand or journal since."""
    kept: dict[str, Held] = {}
    whole: list[_Head] = []
    for head in heads:
        before = held.get(head.table_id)
        if head.current is None:
            kept[head.table_id] = Held(head.journal_id, head.head)
        elif before is None or not _same_hand(before, head):
            whole.append(head)
        else:
            kept[head.table_id] = _copy(before)
    return kept, whole


def _same_hand(held: Held, head: _Head) -> bool:
    """Whether ``held`` is of the hand at ``head`` (a new journal's hand 1 is another hand)."""
    hand = held.hand
    return held.journal_id == head.journal_id and hand is not None and hand.hand == head.current


def _copy(held: Held) -> Held:
    """A held table to advance, the one given left as it was."""
    hand = held.hand
    if hand is None:
        return replace(held)
    play = replace(hand.play) if hand.play is not None else None
    return replace(held, hand=replace(hand, play=play))


async def _heads(conn: AsyncConn, tables: Sequence[str] | None) -> list[_Head]:
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
    heads = []
    for table_id, journal_id, head, last_seen, current in await cur.fetchall():
        assert isinstance(last_seen, datetime)
        heads.append(
            _Head(
                str(table_id),
                str(journal_id),
                int(str(head)),
                last_seen.isoformat(),
                None if current is None else int(str(current)),
            )
        )
    return heads


async def _hands(conn: AsyncConn, heads: Sequence[_Head]) -> dict[str, Held]:
    """The current hands' rows of ``heads``, each held from before the hand's first record (its
    decisions are all read next). A table whose hand has no row yet is not held: it is read
    whole again next time."""
    if not heads:
        return {}
    cur = await conn.execute(
        "SELECT k.t, h.game, h.stakes, h.rules, h.seats, h.started_seq, h.finished, h.voided "
        "FROM unnest(%s::text[], %s::text[], %s::integer[]) AS k(t, j, n) "
        "JOIN hands h ON h.table_id = k.t AND h.journal_id = k.j AND h.hand = k.n",
        (
            [head.table_id for head in heads],
            [head.journal_id for head in heads],
            [head.current for head in heads],
        ),
    )
    by_id = {head.table_id: head for head in heads}
    out = {}
    for table_id, game, stakes, rules, seats, started, finished, voided in await cur.fetchall():
        head = by_id[str(table_id)]
        assert head.current is not None
        hand = HeldHand(
            head.current,
            str(game),
            None,
            None,
            len(seats) if isinstance(seats, list) else None,
            bool(finished),
            bool(voided),
            None if started is None else Betting(),
        )
        spec = GAMES.get(str(game))
        if spec is not None:
            hand.game = spec.name
            if isinstance(stakes, dict):
                stored = cast(JsonObject, {"stakes": stakes, "rules": rules})  # as journaled
                terms = rec.hand_terms_of({"terms": stored})
                if terms is not None:
                    hand.stakes = describe_stakes(terms.stakes)
                    hand.rules = posted_rules(terms.rules or HouseRules(), spec)
        # From the hand's first record; with no HandStarted here, nothing before the head.
        seq = head.head if started is None else int(str(started)) - 1
        out[head.table_id] = Held(head.journal_id, seq, hand)
    return out


async def _events(conn: AsyncConn, reads: Sequence[tuple[_Head, int]]) -> dict[str, list[ev.Event]]:
    """Each table's events of its decisions after the seq given, through its head (the records
    the heads were read at: a batch stored since is the next read's), in the chain."""
    reads = [(head, after) for head, after in reads if after < head.head]
    if not reads:
        return {}
    cur = await conn.execute(
        "SELECT r.table_id, r.line "
        "FROM unnest(%s::text[], %s::text[], %s::bigint[], %s::bigint[]) AS k(t, j, a, b) "
        "JOIN records r ON r.table_id = k.t AND r.journal_id = k.j "
        "AND r.seq > k.a AND r.seq <= k.b "
        "WHERE r.linked AND r.kind = ANY(%s) ORDER BY r.table_id, r.seq",
        (
            [head.table_id for head, _ in reads],
            [head.journal_id for head, _ in reads],
            [after for _, after in reads],
            [head.head for head, _ in reads],
            sorted(rec.DECISIONS),
        ),
    )
    events: dict[str, list[ev.Event]] = {}
    for table_id, line in await cur.fetchall():
        assert isinstance(line, bytes)
        try:
            decoded = schema.decode_events(parse_line(line))
        except (rec.RecordFormatError, RecordError):
            # A record the floor refused (controller/floor/derive.py: stored as evidence, raised
            # as a floor alarm), or one changed in the store since (it fails its hash: the chain
            # walk's chain_broken alarm, docs/floor.md): the hand's row has nothing of it.
            continue
        events.setdefault(str(table_id), []).extend(decoded)
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
    broken = await conn.execute(
        "SELECT table_id, min(seq) FROM alarms WHERE table_id = ANY(%s) AND source = 'floor' "
        "AND kind = %s GROUP BY table_id",
        (list(by_id), CHAIN_BROKEN),
    )
    for table_id, seq in await broken.fetchall():
        by_id[str(table_id)].chain_broken = int(str(seq))
