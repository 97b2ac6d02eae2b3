"""The feeds for other systems (docs/floor-web.md, Feeds): ``floor serve`` and ``floor
web`` as subprocesses of the real CLI over a real nats-server and PostgreSQL, two tables fed a
real journal as their forwarders publish it, written at chosen times (T1's two hours ago, T2's
now) against a broadcast delay of an hour, so the delay is tested with no wait for real time;
T1's first records are marked received two hours ago too, the rest are received live and wait
the delay on the floor's clock (docs/floor-web.md, The delay's clock).
What each feed carries is read from the bytes the server sends over whole hands and checked
against the journal (controller/poker/announce.py ``hidden_cards``), each event against the
published schema; the access log is read from the database as its owner."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
from floorhelp import FloorProcess, fixture_lines, journal_id, publish
from servershelp import NatsFactory
from webhelp import (
    Client,
    Events,
    WebFloor,
    WebProcess,
    cards_in,
    publish_records,
    retimed,
    schema_problems,
    web_floor,
)

from controller.floor.web import feedjsonschema
from controller.journal import schema
from controller.journal import tablerecords as rec
from controller.journal.record import parse_line
from controller.poker.announce import hidden_cards
from controller.poker.engine import events as ev
from simulator.servers_pg import PostgresServer

#: Mambo's hand 1 once its second round is dealt (seat 3 folded in the first, record 35).
SECOND_ROUND = 57
#: The fixture's hands: the fifth is the last, settled at its last record.
HANDS = 5
DELAY = 3600
Journals = dict[str, list[bytes]]


@dataclass
class HandSoFar:
    """The truth of a hand up to one record, from the journal itself."""

    secret: set[str] = field(default_factory=set)
    up: set[str] = field(default_factory=set)
    shown: set[str] = field(default_factory=set)
    folded: set[int] = field(default_factory=set)
    holes: dict[int, set[str]] = field(default_factory=dict)
    #: Hole cards dealt by a record the floor received live, past SECOND_ROUND: the broadcast's
    #: delay runs from then on the floor's clock too (docs/floor-web.md, The delay's clock).
    late: set[str] = field(default_factory=set)

    def never_seen(self) -> set[str]:
        """Face down and not turned over at the showdown: no player has seen these."""
        return self.secret - self.up - self.shown

    def live_holes(self) -> set[str]:
        """The hole cards of the seats still in (not folded), not yet shown."""
        cards = {c for seat, held in self.holes.items() if seat not in self.folded for c in held}
        return cards - self.shown


def truth(lines: list[bytes], hand: int, at: str) -> HandSoFar:
    """Hand ``hand`` of ``lines`` up to its record of ``ts`` ``at``."""
    so_far, started = HandSoFar(), False
    for line in lines:
        record = parse_line(line)
        if record.kind not in rec.DECISIONS:
            continue
        for event in schema.decode_events(record):
            started = started or (isinstance(event, ev.HandStarted) and event.hand == hand)
            if started:
                _learn(so_far, event)
                if record.seq > SECOND_ROUND and isinstance(event, ev.CardDealt):
                    so_far.late.update(hidden_cards(event))
        if started and record.ts == at:
            return so_far
    raise AssertionError(f"no record of hand {hand} at {at}")


def _learn(so_far: HandSoFar, event: ev.Event) -> None:
    so_far.secret.update(hidden_cards(event))
    if isinstance(event, ev.CardDealt) and not hidden_cards(event):
        so_far.up.add(event.card)
    elif isinstance(event, ev.CardDealt) and event.destination == ev.SEAT:
        assert event.seat is not None
        so_far.holes.setdefault(event.seat, set()).add(event.card)
    elif isinstance(event, ev.ActionTaken) and event.action == "folds":
        so_far.folded.add(event.seat)
    elif isinstance(event, ev.Showdown):
        so_far.shown.update(card for shown in event.hands for card in shown.cards)


def check(name: str, data: dict[str, object], carried: set[str], journals: Journals) -> None:
    """One event of feed ``name`` (its data, the cards in its bytes) against the journal."""
    assert (data["version"], data["feed"]) == (1, name)
    table, at = str(data["table_id"]), str(data["at"])
    hand = truth(journals[table], int(str(data["hand"])), at)
    where = (name, table, data["hand"], at)
    if name == "public" or (name == "broadcast" and table == "T2"):
        # 14.13(c): nothing face down before the showdown; T2's cards are not past the delay.
        assert not carried & hand.never_seen(), where
    elif name == "broadcast":  # past the delay: the hole cards of the seats still in
        assert carried & hand.never_seen() == hand.live_holes() - hand.late, where
    else:  # surveillance: every card, live
        assert hand.never_seen() <= carried, where


def card_views(floor: WebFloor) -> list[tuple[object, ...]]:
    with psycopg.connect(floor.db.owner) as conn:
        return conn.execute(
            "SELECT user_name, role, table_id, journal_id, hand, through FROM web.card_views "
            "ORDER BY id"
        ).fetchall()


def until_settled(feed: Events, tables: tuple[str, ...]) -> None:
    """Read ``feed`` until each table's last hand has come settled."""

    def done(_event: str, _data: object) -> bool:
        settled = {
            d["table_id"]
            for e, d in feed.events
            if isinstance(d, dict) and d["hand"] == HANDS and d["state"] == "settled"
        }
        return settled >= set(tables)

    feed.until(done, f"hand {HANDS} settled at {tables}")


def test_each_feed_carries_only_the_cards_its_policy_allows_and_each_event_fits_the_schema(
    tmp_path: Path, nats_factory: NatsFactory, postgres: PostgresServer
) -> None:
    nats = nats_factory(("T1", "T2"))
    floor = web_floor(tmp_path, nats, postgres, f"[web.feeds]\nbroadcast_delay = {DELAY}\n")
    now = datetime.now(UTC)
    # T1 was dealt two hours ago: its hole cards are past the delay. T2 is dealt now: none is.
    journals: Journals = {
        "T1": retimed(fixture_lines(), now - timedelta(hours=2)),
        "T2": retimed(fixture_lines(), now),
    }
    roots = {table: journal_id(lines) for table, lines in journals.items()}
    published = json.loads(feedjsonschema.PUBLISHED.read_text(encoding="utf-8"))
    server = FloorProcess(floor.config)
    web = WebProcess(floor)
    clients = {role: Client(floor.port) for role in ("supervisor", "surveillance", "broadcaster")}
    feeds: dict[str, Events] = {}
    opened: list[Events] = []
    try:
        server.wait_for_log("floor_serving")
        for role, client in clients.items():
            assert client.login(role).status == 303
        floor_feed = Events(clients["supervisor"])
        opened.append(floor_feed)
        for table, lines in journals.items():
            publish(nats.url, nats.table_user(table), table, lines[:SECOND_ROUND])
        floor_feed.until_rows(
            lambda rows: all(rows.get(t, {}).get("records") == SECOND_ROUND for t in journals),
            "both tables stored to the second round",
        )
        # T1's records so far reached the floor two hours ago too (the delay's clock is both).
        with psycopg.connect(floor.db.owner, autocommit=True) as conn:
            conn.execute(
                "UPDATE records SET received_at = received_at - interval '2 hours' "
                "WHERE table_id = 'T1'"
            )
        feeds = {
            "surveillance": Events(clients["surveillance"], "/feeds/surveillance"),
            # The overlay machine's own login: the broadcast feed is all it may open.
            "broadcast": Events(clients["broadcaster"], "/feeds/broadcast"),
            "public": Events(clients["supervisor"], "/feeds/public"),
        }
        opened += feeds.values()
        for feed in feeds.values():  # at connecting: each table's hand in progress
            feed.until(lambda _e, _d, f=feed: len(f.events) >= 2, "both tables' hands")
        for table, lines in journals.items():
            publish_records(
                nats.url, nats.table_user(table), table, lines, first=SECOND_ROUND + 1,
                last=len(lines),
            )  # fmt: skip
        for feed in feeds.values():
            until_settled(feed, tuple(journals))
        for name, feed in feeds.items():
            assert {event for event, _ in feed.events} == {"hand"}
            for (_event, data), line in zip(feed.events, feed.data, strict=True):
                assert isinstance(data, dict)
                assert schema_problems(data, published, published, name) == []
                check(name, data, cards_in(line), journals)
        # The public feed shows what the showdown turned over (hand 5: seats 2, 3 and 6).
        last = [d for _, d in feeds["public"].events if isinstance(d, dict) and d["hand"] == HANDS]
        assert {"7d", "7c", "9h", "6d", "5d", "2d", "Qd", "Qc", "8c"} <= cards_in(
            json.dumps(last[-1]).encode()
        )
        # The broadcast released T1's hole cards (hand 1 at the second round: seats 2 and 4's,
        # not seat 3's, which folded: broadcast_folded is false).
        first = next(
            (
                d
                for _, d in feeds["broadcast"].events
                if isinstance(d, dict) and d["table_id"] == "T1"
            )
        )
        assert isinstance(first, dict)
        assert {"6c", "2h", "5s", "Ah", "7c", "2d"} <= cards_in(json.dumps(first).encode())
        assert "9h" not in cards_in(json.dumps(first).encode())
        # Each response that carried a face-down card, recorded before it was sent: the
        # surveillance feed for every hand of both tables; the broadcast only for T1's hand 1,
        # the one whose hole cards the floor received two hours ago.
        views = card_views(floor)
        assert {v for v in views if v[5] == "feed surveillance"} == {
            ("surveillance", "surveillance", table, roots[table], hand, "feed surveillance")
            for table in journals
            for hand in range(1, HANDS + 1)
        }
        assert {v for v in views if v[5] == "feed broadcast"} == {
            ("broadcaster", "broadcaster", "T1", roots["T1"], 1, "feed broadcast")
        }
        assert not [v for v in views if v[5] == "feed public"]
    finally:
        for feed in opened:
            feed.close()
        assert web.stop() == 0, web.log.read_text()
        assert server.stop() == 0, server.text()


def test_a_feed_needs_a_login_and_the_role_its_policy_names(
    tmp_path: Path, nats_factory: NatsFactory, postgres: PostgresServer
) -> None:
    nats = nats_factory(("T1",))
    floor = web_floor(tmp_path, nats, postgres)
    web = WebProcess(floor)
    try:
        nobody = Client(floor.port)
        for feed in ("surveillance", "broadcast", "public"):
            assert nobody.get(f"/feeds/{feed}").status == 401
        roles = ("supervisor", "auditor", "admin", "broadcaster")
        clients = {role: Client(floor.port) for role in roles}
        for role, client in clients.items():
            assert client.login(role).status == 303
        # A face-down card of a hand in progress is surveillance's alone (policy.POLICY); the
        # broadcast's, delayed, surveillance's and the broadcaster's.
        refused = clients["supervisor"].get("/feeds/surveillance")
        assert refused.status == 403
        assert (
            "the surveillance feed is for surveillance: you are signed in as a supervisor"
            in refused.text
        )
        refused = clients["supervisor"].get("/feeds/broadcast")
        assert refused.status == 403
        assert (
            "the broadcast feed is for broadcaster, surveillance: you are signed in as a supervisor"
            in (refused.text)
        )
        for role in ("auditor", "admin"):
            for feed in ("surveillance", "broadcast", "public"):
                assert clients[role].get(f"/feeds/{feed}").status == 403, (role, feed)
        # The broadcaster's login lands on its one feed, and opens nothing else: no other feed,
        # no page (the overlay machine never holds a login that could see live hole cards).
        machine = Client(floor.port)
        assert machine.login("broadcaster").headers["location"] == "/feeds/broadcast"
        for feed in ("surveillance", "public"):
            assert clients["broadcaster"].get(f"/feeds/{feed}").status == 403, feed
        for page in ("/floor", "/alarms", "/search", "/verify", "/admin/users", "/tables/T1"):
            assert clients["broadcaster"].get(page).status == 403, page
        assert "the public feed is for supervisor, surveillance" in (
            clients["auditor"].get("/feeds/public").text
        )
        unknown = clients["supervisor"].get("/feeds/everything")
        assert unknown.status == 404
        assert "the feeds are surveillance, broadcast, public" in unknown.text
    finally:
        assert web.stop() == 0, web.log.read_text()
