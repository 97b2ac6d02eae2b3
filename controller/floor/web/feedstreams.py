"""The feeds for other systems (docs/floor-web.md, Feeds): ``/feeds/surveillance``,
``/feeds/broadcast`` and ``/feeds/public``, each a stream of server-sent events, one ``hand``
event (controller/floor/web/feedhand.py ``FeedHand``, docs/schema/feed-v1.json) whenever a table's
hand changes, following the store as the floor page does (controller/floor/web/live.py: the
stream as the signal, PostgreSQL as the truth).

Who may open a feed, and which card it may carry when, is the policy's
(controller/floor/web/policy.py ``FEEDS``), applied in feed.py before anything is encoded. A
response that carries a face-down card's value (the surveillance feed; the broadcast feed once
it releases a hole card) is recorded in the hole-card access log first, once a hand a feed
(controller/floor/web/cardlog.py); if it cannot be, the feed ends before the card is sent.

A hand whose stored records do not all pass their check (a line changed in the store, docs/floor.md,
The chain walk) is told from its intact records, up to the one before the first that fails, and
a ``broken`` event (``FeedBroken``, docs/schema/feed-broken-v1.json) before its hand event names
that record and the floor's chain_broken alarms on its journal, as the hand page does.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Final

import psycopg
import structlog
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from controller.floor.web import cardlog, policy
from controller.floor.web.feedhand import (
    VERSION,
    Built,
    FeedAlarm,
    FeedBroken,
    HandFacts,
    Timed,
    build,
    delay_from,
    from_start,
)
from controller.floor.web.floorview import floor_rows
from controller.floor.web.handpages import BrokenRecord, HandKey, chain_alarms, intact, state_of
from controller.floor.web.live import sse
from controller.floor.web.replies import signed_in_as
from controller.floor.web.users import User
from controller.journal import schema
from controller.journal import tablerecords as rec
from controller.poker.games import GAMES

if TYPE_CHECKING:
    from controller.floor.web.app import Web

log = structlog.get_logger("tablectl.floor.web")

AsyncConn = psycopg.AsyncConnection[tuple[object, ...]]
HEARTBEAT: Final = 15.0
#: The event's name in the stream (its data: one FeedHand).
EVENT: Final = "hand"
#: The event that says a hand is not intact (its data: one FeedBroken), before its hand event.
BROKEN: Final = "broken"
WHO_SEES: Final = "docs/floor-web.md, Feeds"


def through(feed: str) -> str:
    """The access log's name of a feed's responses (web.card_views.through)."""
    return f"feed {feed}"


@dataclass(frozen=True, slots=True)
class ReadHand:
    """A hand as the store holds it: its facts, its intact records' events from its start, each
    with the record's moment, and the first record that is not intact if one is not."""

    facts: HandFacts
    timed: list[Timed]
    broken: BrokenRecord | None = None
    #: The last record ``timed`` is told from (None: none).
    told_to: int | None = None


async def read_hand(conn: AsyncConn, key: HandKey) -> ReadHand | None:
    """The hand's facts and its records' events from its start, each with the record's moment,
    up to the first record whose stored line fails its check (hands.intact, as the hand page
    reads it: the same ``told_to``); None if the floor holds no such hand."""
    cur = await conn.execute(
        "SELECT game, started_seq, last_seq, finished, voided FROM hands "
        "WHERE table_id = %s AND journal_id = %s AND hand = %s",
        (key.table_id, key.journal_id, key.hand),
    )
    found = await cur.fetchone()
    if found is None or found[1] is None:
        return None
    game, first, last, finished, voided = found
    spec = GAMES.get(str(game))
    facts = HandFacts(
        key.table_id,
        key.journal_id,
        key.hand,
        spec.name if spec is not None else str(game),
        state_of(finished, voided),
    )
    cur = await conn.execute(
        "SELECT seq, hash, line, received_at FROM records WHERE table_id = %s "
        "AND journal_id = %s AND seq BETWEEN %s AND %s AND linked AND kind = ANY(%s) ORDER BY seq",
        (key.table_id, key.journal_id, int(str(first)), int(str(last)), sorted(rec.DECISIONS)),
    )
    read = intact(await cur.fetchall())
    timed: list[Timed] = []
    for record, (received_at,) in read.records:
        assert isinstance(received_at, datetime)
        at = delay_from(record.ts, received_at.timestamp())
        timed.append(Timed(at, record.ts, tuple(schema.decode_events(record))))
    told = from_start(timed, key.hand)
    return ReadHand(facts, told, read.broken, read.told_to if told else None)


async def hands_between(conn: AsyncConn, before: HandKey, after: HandKey) -> list[HandKey]:
    """The table's hands after ``before`` and before ``after``, in the order dealt: those
    ``before``'s journal dealt after it, then those ``after``'s dealt before it."""
    if before.journal_id == after.journal_id:
        where = "journal_id = %s AND hand > %s AND hand < %s"
        params: tuple[object, ...] = (before.journal_id, before.hand, after.hand)
    else:
        where = "(journal_id = %s AND hand > %s) OR (journal_id = %s AND hand < %s)"
        params = (before.journal_id, before.hand, after.journal_id, after.hand)
    cur = await conn.execute(  # ``where`` is one of the two clauses above, never input
        f"SELECT journal_id, hand FROM hands WHERE table_id = %s AND ({where}) "
        "ORDER BY started_at NULLS LAST, hand",
        (after.table_id, *params),
    )
    return [HandKey(after.table_id, str(j), int(str(h))) for j, h in await cur.fetchall()]


class Feeds:
    """The three feeds' routes, over the web view's live machinery; ``clock`` (Unix seconds)
    is the broadcast delay's time."""

    def __init__(self, web: Web, clock: Callable[[], float] = time.time) -> None:
        self.web = web
        self.clock = clock

    def routes(self) -> list[Route]:
        return [Route("/feeds/{feed}", self.open)]

    async def open(self, request: Request) -> Response:
        feed = request.path_params["feed"]
        user = await self.web.user(request)
        if user is None:
            return Response("401 not logged in\n", status_code=401, media_type="text/plain")
        rule = policy.FEEDS.get(feed)
        if rule is None:
            known = ", ".join(policy.FEEDS)
            return _plain(404, f"Not Found: no feed {feed!r}; the feeds are {known}")
        if user.role not in rule.roles():
            who = ", ".join(sorted(rule.roles()))
            return _plain(
                403, f"Forbidden: the {feed} feed is for {who}: {signed_in_as(user.role)}"
            )
        return StreamingResponse(
            self.stream(request, user, feed),
            media_type="text/event-stream",
            headers={"x-accel-buffering": "no"},  # nginx: pass each event on at once
        )

    async def stream(self, request: Request, user: User, feed: str) -> AsyncIterator[bytes]:
        queue = self.web.live.watch()
        stream = _Stream(self, user, feed)
        loop = asyncio.get_running_loop()
        # The heartbeat is kept to its time however busy the floor: a disabled user's feed
        # ends within HEARTBEAT seconds even while the tables change every turn.
        beat = loop.time() + HEARTBEAT
        try:
            for message in await stream.turn(None):
                yield message
            while not stream.ended:
                wait = min(beat - loop.time(), stream.until_release(self.clock()))
                try:
                    async with asyncio.timeout(max(0.0, wait)):  # not wait_for: see pages.py
                        changed = await queue.get()
                except TimeoutError:
                    changed = ""  # no change: a heartbeat or a broadcast's release is due
                if changed is None:
                    return  # too far behind: its EventSource reconnects
                if loop.time() >= beat:
                    if await self.web.user(request) is None:
                        return  # disabled, or a new password
                    yield b": heartbeat\n\n"  # keeps a proxy's read open; finds a gone client
                    beat = loop.time() + HEARTBEAT
                due = stream.due(self.clock())
                if changed or due:  # a table changed, or a delay ran out at these tables
                    messages = await stream.turn(sorted({*due, changed} - {""}))
                else:
                    continue
                for message in messages:
                    yield message
        finally:
            self.web.live.unwatch(queue)


class _Stream:
    """One open feed: what it sent each table, the hands logged, the next release."""

    def __init__(self, feeds: Feeds, user: User, feed: str) -> None:
        self.feeds, self.user, self.feed = feeds, user, feed
        self.sent: dict[str, tuple[HandKey, dict[str, object]]] = {}
        self.logged: set[HandKey] = set()
        #: The ``broken`` event last sent of each hand not intact.
        self.broken_sent: dict[HandKey, dict[str, object]] = {}
        #: Each table's next moment a withheld card may be sent (its current hand's).
        self.releases: dict[str, float] = {}
        self.ended = False

    def until_release(self, now: float) -> float:
        """Seconds from ``now`` to the next moment a withheld card may be sent (HEARTBEAT if
        none is nearer): 0 or less, due."""
        return min([HEARTBEAT, *(at - now for at in self.releases.values())])

    def due(self, now: float) -> list[str]:
        """The tables where a withheld card may be sent at ``now``."""
        return [table for table, at in self.releases.items() if at <= now]

    async def turn(self, tables: list[str] | None) -> list[bytes]:
        """The events of ``tables`` (None: every table) that changed since last sent."""
        out: list[bytes] = []
        async with await self.feeds.web.reader() as conn:
            rows = await floor_rows(conn, tables)
            for row in rows:
                if row.hand is None or row.journal_id is None:
                    continue
                key = HandKey(row.table_id, row.journal_id, row.hand)
                before = self.sent.get(row.table_id)
                if before is not None and before[0] != key:
                    # A new hand: the one before as it ended first (if not sent so), then
                    # each hand dealt since that this feed has not seen, whole.
                    out += await self._hand(conn, before[0], before[1])
                    for between in await hands_between(conn, before[0], key):
                        out += await self._hand(conn, between, None)
                out += await self._hand(conn, key, before[1] if before else None)
                if self.ended:
                    break
        return out

    async def _hand(
        self, conn: AsyncConn, key: HandKey, before: dict[str, object] | None
    ) -> list[bytes]:
        read = await read_hand(conn, key)
        if read is None:
            return []
        now = self.feeds.clock()
        built = build(read.facts, read.timed, self.feed, self.feeds.web.config.web.feeds, now)
        self._release(key, built)
        data = built.hand.as_json()
        self.sent[key.table_id] = (key, data)
        out: list[bytes] = []
        if read.broken is not None:  # said first, so a client marks the hand before showing it
            broken = await self._broken(conn, key, read)
            if broken != self.broken_sent.get(key):
                self.broken_sent[key] = broken
                out.append(sse(BROKEN, broken))
        if data == before:
            return out
        if built.face_down and key not in self.logged:
            try:  # once a hand a feed, before its first face-down card is sent
                await cardlog.record(conn, self.user, [key], through(self.feed))
            except cardlog.CardLogError as error:
                log.error("web_card_view_unrecorded", error=str(error), user=self.user.name)
                self.ended = True
                return []
            self.logged.add(key)
        return [*out, sse(EVENT, data)]

    async def _broken(self, conn: AsyncConn, key: HandKey, read: ReadHand) -> dict[str, object]:
        """The ``broken`` event's data: the record, the last told, the journal's alarms."""
        assert read.broken is not None
        alarms = await chain_alarms(conn, key.table_id, key.journal_id)
        return FeedBroken(
            VERSION,
            self.feed,
            key.table_id,
            key.journal_id,
            key.hand,
            read.broken.seq,
            read.broken.why,
            read.told_to,
            tuple(
                FeedAlarm(a.id, a.kind, a.seq, a.message, a.raised_at, a.table_at) for a in alarms
            ),
        ).as_json()

    def _release(self, key: HandKey, built: Built) -> None:
        if built.release_at is None:
            self.releases.pop(key.table_id, None)
        else:
            self.releases[key.table_id] = built.release_at


def _plain(status: int, text: str) -> Response:
    return Response(f"{status} {text} ({WHO_SEES})\n", status_code=status, media_type="text/plain")
