"""The table page, the hand page and search, read from the floor's store (docs/floor-web.md, The
table page, The hand page, Search).

Each reader takes the role and gives only what the role may see: a hand's records are decoded
through the journal's schema into the engine's events, then masked by the policy
(controller/floor/web/policy.py) in ``replay``, before anything is rendered or sent.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Final

import psycopg

from controller.display.view import posted_rules
from controller.floor import report
from controller.floor.chainwatch import CHAIN_BROKEN
from controller.floor.web import policy
from controller.floor.web.alarms import RECORD_JOIN, clocks
from controller.floor.web.floorview import TableRow, floor_rows
from controller.floor.web.moments import shown_if
from controller.floor.web.replay import Frame, Replay, replay
from controller.history.recall import describe_stakes
from controller.journal import schema
from controller.journal import tablerecords as rec
from controller.journal.record import Record, RecordError, parse_line
from controller.poker.engine import events as ev
from controller.poker.games import GAMES

AsyncConn = psycopg.AsyncConnection[tuple[object, ...]]

#: Who may download a finished hand's dispute bundle from its page (it carries the hand's
#: face-down cards, as the access log records): the auditor and surveillance
#: (docs/floor-web.md, Verification (the auditor)).
BUNDLE_ROLES: Final = frozenset({"auditor", "surveillance"})
#: The recent hands and alarms a table page lists; the results a search gives.
RECENT: Final = 20
RESULTS: Final = 100


@dataclass(frozen=True, slots=True)
class HandKey:
    """A hand on the floor: its table, its journal (a table's journals follow one another) and
    its number in that journal."""

    table_id: str
    journal_id: str
    hand: int

    @property
    def url(self) -> str:
        return f"/tables/{self.table_id}/hands/{self.journal_id}/{self.hand}"


@dataclass(frozen=True, slots=True)
class HandLine:
    """A hand as a list names it (recent hands, search results), linked to its page."""

    table_id: str
    journal_id: str
    hand: int
    game: str
    started_at: str | None
    state: str
    #: Why a search found it ("seat 3 face up" for a card), "" otherwise.
    matched: str = ""

    @property
    def url(self) -> str:
        return HandKey(self.table_id, self.journal_id, self.hand).url


@dataclass(frozen=True, slots=True)
class BrokenRecord:
    """A record of the hand whose stored line fails its hash (changed in the store after the
    floor's witness stored it): the hand is shown up to the record before it."""

    seq: int
    why: str


@dataclass(slots=True)
class HandPage:
    key: HandKey
    game: str
    started_at: str | None
    state: str
    stakes: str
    rules: str
    replay: Replay
    #: The first of the hand's records that is not intact (None: every one is).
    broken: BrokenRecord | None = None
    #: The floor's chain_broken alarms on the hand's journal (controller/floor/chainwatch.py).
    chain_alarms: list[AlarmLine] = field(default_factory=list)
    #: The last record the hand is shown from when one is not intact (Intact.told_to).
    told_to: int | None = None

    @property
    def in_progress(self) -> bool:
        return self.state == "in progress"

    def bundle_url(self, role: str) -> str | None:
        """Where ``role`` downloads the hand's dispute bundle; None if not theirs, or while the
        hand is in play (a bundle is made of an ended hand, controller/history/dispute/)."""
        if role not in BUNDLE_ROLES or self.in_progress:
            return None
        return f"{self.key.url}/dispute.tar.gz"


@dataclass(slots=True)
class Chain:
    """The table's chain at the floor's witness (docs/floor.md, The witness)."""

    journal_id: str
    head_seq: int
    head_hash: str | None
    #: Records stored beyond a gap, not yet linked: their count and seqs.
    held: int = 0
    held_first: int | None = None
    held_last: int | None = None


@dataclass(frozen=True, slots=True)
class AlarmLine:
    id: int
    source: str
    kind: str
    message: str
    seq: int
    #: The floor's clock, and the table's where it differs (alarms.clocks: Alarms, Raised).
    raised_at: str
    table_at: str | None = None


@dataclass(slots=True)
class TablePage:
    row: TableRow
    chain: Chain
    alarms: list[AlarmLine]
    recent: list[HandLine]
    #: The table's current hand as the dealer's display shows it (its last frame), if any.
    hand: HandKey | None = None
    frame: Frame | None = None
    #: Whether ``frame`` shows a face-down card's value (the access log's test).
    face_down_shown: bool = False

    def as_json(self) -> dict[str, object]:
        return {
            "row": self.row.as_json(),
            "chain": asdict(self.chain),
            "alarms": [asdict(alarm) for alarm in self.alarms],
            "recent": [{**asdict(line), "url": line.url} for line in self.recent],
            "hand": None if self.hand is None else {**asdict(self.hand), "url": self.hand.url},
            "frame": None if self.frame is None else asdict(self.frame),
        }


def state_of(finished: object, voided: object) -> str:
    return "voided" if voided else "settled" if finished else "in progress"


def _game_name(game: object) -> str:
    spec = GAMES.get(str(game))
    return spec.name if spec is not None else str(game)


def _iso(value: object) -> str | None:
    return shown_if(value)  # the one way a page says a moment


@dataclass(slots=True)
class HandEvents:
    """The hand's events as its intact records tell them, the terms it was dealt under, and
    the record that stopped the telling if one is not intact."""

    events: list[ev.Event] = field(default_factory=list)
    terms: rec.HandTerms | None = None
    broken: BrokenRecord | None = None
    #: The last record told (Intact.told_to).
    told_to: int | None = None


def checked(seq: object, stored_hash: object, line: object) -> Record | BrokenRecord:
    """A stored line re-hashed (``parse_line``) and held to the store's index of it (its seq
    and hash): the record, or why it is not intact (a line changed in the store after the
    witness stored it, docs/floor.md, The chain walk)."""
    assert isinstance(line, bytes), type(line)
    try:
        record = parse_line(line)
    except RecordError as error:
        return BrokenRecord(int(str(seq)), f"its stored line fails its hash: {error}")
    if record.hash != stored_hash or record.seq != seq:
        why = f"its stored line is record {record.seq} with hash {record.hash}, not the one "
        return BrokenRecord(int(str(seq)), why + "the store indexes there")
    return record


@dataclass(frozen=True, slots=True)
class Intact:
    """A hand's stored decision records, in seq order, up to the first that is not intact: each
    with the rest of its row; the one that is not, if one is not."""

    records: list[tuple[Record, tuple[object, ...]]]
    broken: BrokenRecord | None = None

    @property
    def told_to(self) -> int | None:
        """The last record the hand is told from: the last intact one before the break. Not
        the record before the break's seq: records of other kinds (an input's, a card or a
        button, between the hand's decisions) tell nothing of the hand. The hand page's words
        and the feed's ``told_to`` both come from here, floor recall's from the same rule
        (report.told_to; docs/floor-web.md, The hand page); None: none."""
        return report.told_to([record for record, _rest in self.records])


def intact(rows: Iterable[Sequence[object]]) -> Intact:
    """Rows ``(seq, hash, line, *rest)`` in seq order, each checked (``checked``) until the
    first that is not intact: the hand page's reading and the feeds' (feeds.read_hand)."""
    records: list[tuple[Record, tuple[object, ...]]] = []
    for seq, stored_hash, line, *rest in rows:
        record = checked(seq, stored_hash, line)
        if isinstance(record, BrokenRecord):
            return Intact(records, record)
        records.append((record, tuple(rest)))
    return Intact(records)


async def hand_events(conn: AsyncConn, key: HandKey, first: int, last: int) -> HandEvents:
    """The hand's events (its records ``first`` to ``last`` of the chain, from its start to its
    settlement) and the terms it was dealt under. Each line is re-hashed (``parse_line``) and
    held to the store's index of it; the first that fails ends the telling (``broken``)."""
    cur = await conn.execute(
        "SELECT seq, hash, line FROM records WHERE table_id = %s AND journal_id = %s "
        "AND seq BETWEEN %s AND %s AND linked AND kind = ANY(%s) ORDER BY seq",
        (key.table_id, key.journal_id, first, last, sorted(rec.DECISIONS)),
    )
    read = intact(await cur.fetchall())
    told = HandEvents(broken=read.broken, told_to=read.told_to if read.broken else None)
    started = False
    for record, _rest in read.records:
        for event in schema.decode_events(record):
            if isinstance(event, ev.HandStarted) and event.hand == key.hand:
                started, told.terms = True, rec.hand_terms_of(record.data)
            if not started:
                continue
            told.events.append(event)
            if isinstance(event, ev.HandSettled | ev.HandVoided):
                return told
    return told


async def chain_alarms(conn: AsyncConn, table_id: str, journal_id: str) -> list[AlarmLine]:
    """The floor's chain_broken alarms on the journal (controller/floor/chainwatch.py)."""
    cur = await conn.execute(
        f"SELECT {_ALARM_COLUMNS} WHERE a.table_id = %s AND a.journal_id = %s "
        "AND a.source = 'floor' AND a.kind = %s ORDER BY a.id",
        (table_id, journal_id, CHAIN_BROKEN),
    )
    return [_alarm_line(row) for row in await cur.fetchall()]


#: An alarm with its record's two clocks (alarms.clocks).
_ALARM_COLUMNS: Final = (
    "a.id, a.source, a.kind, a.message, a.seq, a.raised_at, r.ts, r.received_at "
    f"FROM alarms a {RECORD_JOIN}"
)


def _alarm_line(row: tuple[object, ...]) -> AlarmLine:
    i, s, k, m, q, at, ts, received = row
    assert isinstance(at, datetime)
    floor_at, table_at = clocks(at, ts, received)
    return AlarmLine(int(str(i)), str(s), str(k), str(m), int(str(q)), floor_at, table_at)


async def hand_page(conn: AsyncConn, key: HandKey, role: str) -> HandPage | None:
    """The hand as ``role`` may see it; None if the floor holds no such hand or the role may
    not open it in its state (policy.may_open)."""
    cur = await conn.execute(
        "SELECT game, started_seq, started_at, last_seq, finished, voided FROM hands "
        "WHERE table_id = %s AND journal_id = %s AND hand = %s",
        (key.table_id, key.journal_id, key.hand),
    )
    found = await cur.fetchone()
    if found is None:
        return None
    game, first, started_at, last, finished, voided = found
    state = state_of(finished, voided)
    in_progress = state == "in progress"
    if first is None or not policy.may_open(role, in_progress=in_progress):
        return None
    told = await hand_events(conn, key, int(str(first)), int(str(last)))
    events, terms = told.events, told.terms
    spec = GAMES.get(str(game))
    stakes = "not in the journal" if terms is None else describe_stakes(terms.stakes)
    house = terms.rules if terms is not None else rec.RULES_BEFORE_JOURNALED
    rules = posted_rules(house, spec) if spec is not None else ""
    return HandPage(
        key,
        _game_name(game),
        _iso(started_at),
        state,
        stakes,
        rules,
        replay(events, role, in_progress=in_progress),
        told.broken,
        await chain_alarms(conn, key.table_id, key.journal_id),
        told.told_to,
    )


async def table_page(conn: AsyncConn, table_id: str, role: str) -> TablePage | None:
    """The table as ``role`` may see it; None if the floor holds no such table."""
    rows = await floor_rows(conn, [table_id])
    if not rows:
        return None
    row = rows[0]
    page = TablePage(row, await _chain(conn, table_id), await _alarms(conn, table_id), [])
    page.recent = await _recent(conn, table_id)
    if row.hand is not None and row.journal_id is not None:
        key = HandKey(table_id, row.journal_id, row.hand)
        shown = await hand_page(conn, key, role)
        if shown is not None:
            page.hand = key
            page.frame = shown.replay.frames[-1] if shown.replay.frames else None
            page.face_down_shown = shown.replay.face_down_shown
    return page


async def _chain(conn: AsyncConn, table_id: str) -> Chain:
    cur = await conn.execute(
        "SELECT c.journal_id, c.head_seq, c.head_hash, count(r.seq), min(r.seq), max(r.seq) "
        "FROM chain_heads c LEFT JOIN records r ON r.table_id = c.table_id "
        "AND r.journal_id = c.journal_id AND NOT r.linked WHERE c.table_id = %s "
        "GROUP BY c.journal_id, c.head_seq, c.head_hash",
        (table_id,),
    )
    found = await cur.fetchone()
    assert found is not None  # floor_rows found the table's chain
    journal_id, head, head_hash, held, first, last = found
    return Chain(
        str(journal_id),
        int(str(head)),
        None if head_hash is None else str(head_hash),
        int(str(held)),
        None if first is None else int(str(first)),
        None if last is None else int(str(last)),
    )


async def _alarms(conn: AsyncConn, table_id: str) -> list[AlarmLine]:
    # A floor alarm keeps no card's value (derive.Refused), a table alarm says "a card"
    # (announce.alarm_read): both may be shown to every role that opens the table.
    cur = await conn.execute(
        f"SELECT {_ALARM_COLUMNS} WHERE a.table_id = %s ORDER BY a.id DESC LIMIT %s",
        (table_id, RECENT),
    )
    return [_alarm_line(row) for row in await cur.fetchall()]


async def _recent(conn: AsyncConn, table_id: str) -> list[HandLine]:
    cur = await conn.execute(
        "SELECT journal_id, hand, game, started_at, finished, voided FROM hands "
        "WHERE table_id = %s ORDER BY started_at DESC NULLS LAST, hand DESC LIMIT %s",
        (table_id, RECENT),
    )
    return [
        HandLine(table_id, str(j), int(str(h)), _game_name(g), _iso(at), state_of(f, v))
        for j, h, g, at, f, v in await cur.fetchall()
    ]
