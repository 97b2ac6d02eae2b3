"""The floor page's live reads (docs/floor-web.md, The floor page and The load benchmark): a
table's hand held between reads and advanced by only its new records gives the rows a whole read
of the store gives, at every step of real hands, on the real store (PostgreSQL, the web's role).
"""

from __future__ import annotations

import asyncio
import json
import random
import tomllib
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import psycopg
import pytest
from floorhelp import arrivals, fixture_lines, floor_database
from psycopg.conninfo import make_conninfo

from controller.floor import store
from controller.floor.floortoml import parse
from controller.floor.ingest import ingest
from controller.floor.web import dbschema as web_schema
from controller.floor.web.floorview import Held, TableRow, floor_rows, read_rows
from controller.floor.web.live import FULL_REFRESH, WHOLE_ROUNDS, Live
from controller.floor.web.webtoml import DEFAULT_USER
from controller.journal import schema
from controller.journal import tablerecords as rec
from controller.journal.record import parse_line
from controller.poker.engine import events as ev
from simulator.servers_pg import PostgresServer

AsyncConn = psycopg.AsyncConnection[tuple[object, ...]]
WEB_PASSWORD: Final = "web role's password"
EXAMPLE: Final = Path(__file__).parents[2] / "docs" / "examples" / "floor.toml"


@dataclass(frozen=True)
class Store:
    writer: str
    #: The web view's own role, as ``floor web`` reads (its alarms query needs web.alarm_acks).
    web: str


def web_store(postgres: PostgresServer) -> Store:
    db = floor_database(postgres)
    with psycopg.connect(db.owner, autocommit=True) as conn:
        web_schema.setup(conn)
        store.set_password(conn, DEFAULT_USER, WEB_PASSWORD)
    return Store(db.writer, make_conninfo(db.owner, user=DEFAULT_USER, password=WEB_PASSWORD))


@dataclass
class Feed:
    """One table's journal fed to the store in steps (``sizes`` records at a time), a step's
    records now and then sent after the next step's: held beyond a gap until it comes."""

    table_id: str
    lines: list[bytes]
    sizes: Callable[[], int]
    swap_every: int = 0
    next: int = 1
    late: list[int] = field(default_factory=list)
    steps: int = 0

    def step(self) -> list[int]:
        """The seqs to send this step (none once the journal is all sent)."""
        if self.next > len(self.lines) and not self.late:
            return []
        self.steps += 1
        chunk = list(range(self.next, min(self.next + self.sizes(), len(self.lines) + 1)))
        self.next += len(chunk)
        if self.late:
            chunk, self.late = self.late + chunk, []
        elif self.swap_every and self.steps % self.swap_every == 0 and self.next <= len(self.lines):
            chunk, self.late = [], chunk  # this step's records after the next step's
        return chunk


class Reads:
    """The live page's reads beside whole reads, over one connection of the web's role."""

    def __init__(self, conn: AsyncConn) -> None:
        self.conn = conn
        self.held: dict[str, Held] = {}

    async def both(self, tables: Sequence[str]) -> tuple[list[dict[str, object]], ...]:
        """The rows of ``tables`` read from what is held (advancing it) and read whole."""
        rows, held = await read_rows(self.conn, tables, self.held)
        self.held.update(held)
        whole = await floor_rows(self.conn, None)  # every table, as FULL_REFRESH reads
        return _json(rows), _json([row for row in whole if row.table_id in tables])


def _json(rows: list[TableRow]) -> list[dict[str, object]]:
    return [row.as_json() for row in rows]


def run(body: Callable[[AsyncConn, AsyncConn], Awaitable[None]], at: Store) -> None:
    async def go() -> None:
        async with (
            await psycopg.AsyncConnection.connect(at.writer, autocommit=True) as writer,
            await psycopg.AsyncConnection.connect(at.web, autocommit=True) as web,
        ):
            await body(writer, web)

    asyncio.run(go())


def test_a_held_hand_advanced_by_its_new_records_is_the_whole_read_at_every_step(
    postgres: PostgresServer,
) -> None:
    """Three tables dealt at once: T1 a record at a time, T2 and T3 in uneven steps, T3's steps
    now and then out of order (a gap held until filled). After every step the rows read from
    what is held equal a whole read of the store, hand after hand, street after street."""
    chance = random.Random(18)
    feeds = [
        Feed("T1", fixture_lines("mambo"), lambda: 1),
        Feed("T2", fixture_lines("five-card-stud"), lambda: chance.randint(1, 5)),
        Feed("T3", fixture_lines("triple-draw"), lambda: chance.randint(1, 12), swap_every=7),
    ]
    tables = [feed.table_id for feed in feeds]
    seen: set[tuple[object, ...]] = set()

    async def body(writer: AsyncConn, web: AsyncConn) -> None:
        reads = Reads(web)
        while True:
            sent = False
            for feed in feeds:
                seqs = feed.step()
                if seqs:
                    await ingest(writer, arrivals(feed.table_id, feed.lines, seqs))
                    sent = True
            if not sent:
                break
            live, whole = await reads.both(tables)
            assert live == whole, f"after T1 {feeds[0].next - 1}, T2 {feeds[1].next - 1}"
            seen.update((r["table_id"], r["hand"], r["state"], r["street"]) for r in live)
        assert {held.seq for held in reads.held.values()} == {len(feed.lines) for feed in feeds}, (
            "every record read"
        )

    run(body, web_store(postgres))
    # Not a vacuous equality: the steps went through several hands, their streets and ends.
    assert {(t, h) for t, h, _s, _st in seen} >= {("T1", 1), ("T1", 2), ("T3", 1), ("T3", 2)}
    assert {s for _t, _h, s, _st in seen} >= {"in progress", "settled", "voided"}
    assert len({st for _t, _h, _s, st in seen}) >= 4


def test_a_new_journal_at_the_table_is_read_whole_then_held(postgres: PostgresServer) -> None:
    """A table that starts another journal (a new chain, its hand 1 again) is not advanced from
    the old journal's hand: its rows still equal the whole read at every record."""
    first, second = fixture_lines("mambo")[:120], fixture_lines("five-card-stud")[:80]

    async def body(writer: AsyncConn, web: AsyncConn) -> None:
        reads = Reads(web)
        await ingest(writer, arrivals("T1", first))
        live, whole = await reads.both(["T1"])
        assert live == whole
        old_journal = reads.held["T1"].journal_id
        for seq in range(1, len(second) + 1):
            await ingest(writer, arrivals("T1", second, [seq]))
            live, whole = await reads.both(["T1"])
            assert live == whole, f"at the new journal's {seq}"
        assert reads.held["T1"].journal_id != old_journal
        assert live[0]["game"] == "Five-Card Stud"
        assert live[0]["journal_id"] != old_journal

    run(body, web_store(postgres))


def _events(line: bytes) -> list[ev.Event]:
    record = parse_line(line)
    return schema.decode_events(record) if record.kind in rec.DECISIONS else []


def _a_bet(lines: list[bytes]) -> Iterator[int]:
    """The seqs of records that add a bet to the pot and nothing else the pot is counted by."""
    for seq, line in enumerate(lines, 1):
        events = _events(line)
        bets = [e for e in events if isinstance(e, ev.ActionTaken) and e.amount > 0]
        resets = [e for e in events if isinstance(e, ev.RoundCompleted | ev.HandStarted)]
        if bets and not resets:
            yield seq


def test_a_held_table_reads_only_its_new_records_and_its_hand_row_only_for_a_new_hand(
    postgres: PostgresServer,
) -> None:
    """What is held is carried, not read again: a mark put on the held pot and game stays
    through the next record (a bet: the pot grows from the held count), and the game comes back
    from the store when the next hand begins (its row read whole)."""
    lines = fixture_lines("mambo")
    bet = next(seq for seq in _a_bet(lines) if seq > 20)
    starts = [n for n, line in enumerate(lines, 1) if parse_line(line).kind == "hand_started"]
    next_hand = next(seq for seq in starts if seq > bet)

    async def body(writer: AsyncConn, web: AsyncConn) -> None:
        reads = Reads(web)
        await ingest(writer, arrivals("T1", lines, range(1, bet)))
        await reads.both(["T1"])
        hand = reads.held["T1"].hand
        assert hand is not None
        assert hand.play is not None
        hand.play.pot += 1000
        hand.game = "held, not read again"
        await ingest(writer, arrivals("T1", lines, [bet]))
        live, whole = await reads.both(["T1"])
        assert live[0]["pot"] == whole[0]["pot"] + 1000 != 1000  # type: ignore[operator]
        assert live[0]["game"] == "held, not read again"
        await ingest(writer, arrivals("T1", lines, range(bet + 1, next_hand + 1)))
        live, whole = await reads.both(["T1"])
        assert live == whole
        assert live[0]["game"] == "Mambo Stud"

    run(body, web_store(postgres))


def _sent_rows(queue: asyncio.Queue[bytes | None]) -> dict[str, dict[str, object]]:
    """The ``table`` events in ``queue`` (as sent to a browser), each table's last."""
    rows: dict[str, dict[str, object]] = {}
    while not queue.empty():
        message = queue.get_nowait()
        assert message is not None
        event, data = message.decode().splitlines()[:2]
        if event == "event: table":
            row = json.loads(data.removeprefix("data: "))
            rows[row["table_id"]] = row
    return rows


def test_live_reads_a_marked_table_from_what_it_holds_and_a_share_of_the_tables_whole_in_turn(
    postgres: PostgresServer,
) -> None:
    """``Live``: a marked table's read sends its row as the store has it; each full read reads
    every table, and a share of them (1 in WHOLE_ROUNDS) from their hands' first records, in
    turn: a mark put on every held pot is put right a share a read until none is left. The
    reads keep one connection; a read that loses it fails and the next connects again."""
    at = web_store(postgres)
    lines = fixture_lines("triple-draw")
    tables = [f"T{n}" for n in range(1, 8)]
    share = -(-len(tables) // WHOLE_ROUNDS)
    config = parse(tomllib.loads(EXAMPLE.read_text()), EXAMPLE.parent, str(EXAMPLE))

    async def body(writer: AsyncConn, web: AsyncConn) -> None:
        for n, table in enumerate(tables):
            await ingest(writer, arrivals(table, lines, range(1, 40 + 10 * n)))
        live = Live(config, lambda: psycopg.AsyncConnection.connect(at.web, autocommit=True))
        try:
            await full_reads_in_turn(live, writer, web)
        finally:
            await live._disconnect()

    async def full_reads_in_turn(live: Live, writer: AsyncConn, web: AsyncConn) -> None:
        browser = live.listen()
        await live._read(None)
        shown = _sent_rows(browser)
        assert shown == {row["table_id"]: row for row in _json(await floor_rows(web))}
        await ingest(writer, arrivals("T1", lines, range(40, 46)))
        live.mark("T1", 45)
        await live._read(["T1"])
        shown["T1"] = _json(await floor_rows(web, ["T1"]))[0]
        assert _sent_rows(browser) == {"T1": shown["T1"]}
        assert not live._marked, "the mark read: the store has the seq"
        for held in live._held.values():
            assert held.hand is not None
            assert held.hand.play is not None
            held.hand.play.pot += 1000
        for turn in range(1, WHOLE_ROUNDS + 1):
            await live._read(None)
            shown.update(_sent_rows(browser))
            whole = {row["table_id"]: row for row in _json(await floor_rows(web))}
            marked = [t for t in tables if shown[t] != whole[t]]
            assert len(marked) == max(0, len(tables) - share * turn), f"after full read {turn}"
            assert all(shown[t]["pot"] == whole[t]["pot"] + 1000 for t in marked)  # type: ignore[operator]
        # The kept connection lost (the store restarted, say): that read fails, the next connects.
        conn = live._conn
        assert conn is not None
        await web.execute("SELECT pg_terminate_backend(%s)", (conn.info.backend_pid,))
        with pytest.raises(psycopg.OperationalError):
            await live._read(["T1"])
        assert live._conn is None
        await ingest(writer, arrivals("T1", lines, [46]))
        await live._read(["T1"])
        assert _sent_rows(browser)["T1"] == _json(await floor_rows(web, ["T1"]))[0]

    run(body, at)


def test_a_mark_is_kept_while_the_store_catches_up_and_dropped_once_it_stops_moving(
    postgres: PostgresServer,
) -> None:
    """A mark the store has not reached is read every turn while the table's stored head moves
    towards it (``floor serve`` catching up after a burst), and left to the full reads only
    once the head has not moved in FULL_REFRESH seconds (a chain held beyond a gap): dropped
    while the store still moved, its table was read every 5 s only, each read 5 s of records.
    The clock is the test's: the mark's time is set back, nothing waits."""
    at = web_store(postgres)
    lines = fixture_lines("triple-draw")
    config = parse(tomllib.loads(EXAMPLE.read_text()), EXAMPLE.parent, str(EXAMPLE))

    async def body(writer: AsyncConn, web: AsyncConn) -> None:
        live = Live(config, lambda: psycopg.AsyncConnection.connect(at.web, autocommit=True))
        try:
            await catching_up(live, writer)
        finally:
            await live._disconnect()

    def set_back(live: Live) -> None:
        live._since["T1"] -= FULL_REFRESH + 1  # as if FULL_REFRESH seconds had gone by

    async def catching_up(live: Live, writer: AsyncConn) -> None:
        await ingest(writer, arrivals("T1", lines, range(1, 20)))
        live.mark("T1", 60)  # the stream's signal, ahead of the store
        await live._read(["T1"])
        set_back(live)
        await ingest(writer, arrivals("T1", lines, range(20, 40)))
        await live._read(["T1"])
        assert live._marked == {"T1": 60}, "the head moved: the mark is kept"
        set_back(live)
        await live._read(["T1"])
        assert live._marked == {}, "the head stood still FULL_REFRESH seconds: left to full reads"
        live.mark("T1", 45)
        await ingest(writer, arrivals("T1", lines, range(40, 46)))
        await live._read(["T1"])
        assert live._marked == {}, "the store reached the mark"

    run(body, at)
