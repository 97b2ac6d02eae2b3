"""The broadcast feed wakes by itself when a hole card's delay runs out
(docs/floor-web.md, Feeds, The delay's clock): the feed's stream run in this process over a real
floor (``floor serve`` storing a table's journal in PostgreSQL) on a ManualClock the test moves,
with no live signal at all, so the only way the released card can come is the feed's own timer.
No wait for the delay itself: the clock is moved past it. Then the access log refused: the
surveillance feed ends before it sends a card."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import pytest
from floorhelp import PATIENCE, FloorProcess, fixture_lines, journal_id, publish
from servershelp import NatsFactory
from starlette.requests import Request
from webhelp import Client, Events, WebProcess, cards_in, retimed, web_floor

from controller.floor.floortoml import FloorConfig, load
from controller.floor.web import users
from controller.floor.web.app import Web
from controller.floor.web.feedhand import unix
from controller.floor.web.feedstreams import Feeds
from controller.journal.record import parse_line
from simulator.clock import ManualClock
from simulator.servers_pg import PostgresServer

#: Mambo's hand 1 after its first round's bets: seat 1's hole card 7c (record 9) dealt first.
MID_HAND = 33
DELAY = 3600


def test_the_broadcast_sends_a_hole_card_when_its_delay_runs_out_with_no_record_to_wait_for(
    tmp_path: Path, nats_factory: NatsFactory, postgres: PostgresServer
) -> None:
    nats = nats_factory(("T1",))
    floor = web_floor(tmp_path, nats, postgres, f"[web.feeds]\nbroadcast_delay = {DELAY}\n")
    # The table's clock two minutes fast: each hole card waits the delay from its own ts, later
    # than the floor's receipt of it (docs/floor-web.md, The delay's clock).
    lines = retimed(fixture_lines(), datetime.now(UTC) + timedelta(seconds=120))
    seven = unix(parse_line(lines[8]).ts)  # record 9: 7c face down to seat 1 (14.13A(c))
    server = FloorProcess(floor.config)
    process = WebProcess(floor)
    try:
        server.wait_for_log("floor_serving")
        client = Client(floor.port)
        assert client.login("supervisor").status == 303
        floor_feed = Events(client)
        publish(nats.url, nats.table_user("T1"), "T1", lines[:MID_HAND])
        floor_feed.until_rows(lambda r: r.get("T1", {}).get("records") == MID_HAND, "stored")
        floor_feed.close()
        assert _received(floor.db.owner) < seven
        clock = ManualClock(seven + DELAY - 0.5)
        first, second = asyncio.run(_two_events(load(floor.config), clock))
        assert b'"hand":1' in first
        assert not cards_in(first) & {"7c", "6c", "9h", "5s"}  # every hole card withheld
        assert cards_in(second) & {"7c", "6c", "9h", "5s"} == {"7c"}  # 7c's delay ran out
        with psycopg.connect(floor.db.owner) as conn:
            views = conn.execute(
                "SELECT user_name, table_id, journal_id, hand, through FROM web.card_views"
            ).fetchall()
        assert views == [("surveillance", "T1", journal_id(lines), 1, "feed broadcast")]
        # A view that cannot be recorded is not sent: the surveillance feed ends before its
        # first event, which would carry hand 1's hole cards.
        with psycopg.connect(floor.db.owner, autocommit=True) as conn:
            conn.execute("REVOKE INSERT ON web.card_views FROM tablectl_web")
        watcher = Client(floor.port)
        assert watcher.login("surveillance").status == 303
        refused = Events(watcher, "/feeds/surveillance")
        assert refused.response.status == 200  # opened: it is the log that stops it
        with pytest.raises(AssertionError, match="the event stream ended"):
            refused.next()
        refused.close()
        assert not cards_in(refused.raw) & {"7c", "6c", "9h", "5s"}
    finally:
        assert process.stop() == 0, process.log.read_text()
        assert server.stop() == 0, server.text()


async def _two_events(config: FloorConfig, clock: ManualClock) -> tuple[bytes, bytes]:
    """The broadcast feed's first event, then its next once the clock is at the delay."""
    web = Web(config, config.web.secret())  # its Live is not run: no record is signalled
    async with await web.reader() as conn:
        user = await users.find(conn, "surveillance")
    assert user is not None
    stream = Feeds(web, clock).stream(Request({"type": "http", "headers": []}), user, "broadcast")
    try:
        first = await asyncio.wait_for(anext(stream), PATIENCE)
        clock.advance(0.5)
        second = await asyncio.wait_for(anext(stream), PATIENCE)
    finally:
        await stream.aclose()
    return first, second


def test_a_table_clock_off_the_floors_cannot_bring_the_broadcast_forward(
    tmp_path: Path, nats_factory: NatsFactory, postgres: PostgresServer
) -> None:
    """The broadcast's delay runs on both clocks (docs/floor-web.md, The delay's clock): a
    table whose clock is a delay behind the floor's deals 7c "an hour ago" by its own ``ts``;
    on the table's clock alone the feed would send it at once. It is sent only once the delay
    has passed since the floor received it too."""
    nats = nats_factory(("T1",))
    floor = web_floor(tmp_path, nats, postgres, f"[web.feeds]\nbroadcast_delay = {DELAY}\n")
    lines = retimed(fixture_lines(), datetime.now(UTC) - timedelta(seconds=2 * DELAY))
    server = FloorProcess(floor.config)
    process = WebProcess(floor)
    try:
        server.wait_for_log("floor_serving")
        client = Client(floor.port)
        assert client.login("supervisor").status == 303
        floor_feed = Events(client)
        publish(nats.url, nats.table_user("T1"), "T1", lines[:MID_HAND])
        floor_feed.until_rows(lambda r: r.get("T1", {}).get("records") == MID_HAND, "stored")
        floor_feed.close()
        received = _received(floor.db.owner)
        assert unix(parse_line(lines[8]).ts) + DELAY < received  # the table's delay is over
        clock = ManualClock(received + DELAY - 0.5)
        first, second = asyncio.run(_two_events(load(floor.config), clock))
        assert b'"hand":1' in first
        assert not cards_in(first) & {"7c", "6c", "9h", "5s"}  # the floor's delay is not over
        assert "7c" in cards_in(second)  # now it is (the others with it if in its batch)
    finally:
        assert process.stop() == 0, process.log.read_text()
        assert server.stop() == 0, server.text()


def _received(owner: str) -> float:
    """When the floor received T1's record 9 (7c face down to seat 1, 14.13A(c)), Unix seconds."""
    with psycopg.connect(owner) as conn:
        found = conn.execute(
            "SELECT received_at FROM records WHERE table_id = 'T1' AND seq = 9"
        ).fetchone()
    assert found is not None
    moment = found[0]
    assert isinstance(moment, datetime)
    return moment.timestamp()
