"""The table page and its feed, the hand page and search (docs/floor-web.md, Who sees
which card): ``floor serve`` and ``floor web`` as subprocesses of the real CLI over a real
nats-server and PostgreSQL, fed a table's real journal as its forwarder publishes it. What a
role is sent is read as bytes (HTML and server-sent events); the access log is read from the
database as its owner."""

from __future__ import annotations

import time
from pathlib import Path

import psycopg
from floorhelp import PATIENCE, FloorProcess, fixture_lines, journal_id, publish
from servershelp import NatsFactory
from webhelp import (
    Client,
    Events,
    WebFloor,
    WebProcess,
    cards_in,
    hidden_of,
    log_lines,
    publish_records,
    serving,
    web_floor,
)

from controller.journal import schema
from controller.journal import tablerecords as rec
from controller.journal.record import parse_line
from controller.poker.announce import hidden_cards
from controller.poker.engine import events as ev
from simulator.servers_pg import PostgresServer

#: Hand 1 of the Mambo fixture after its first round's bets: seat 3 to act, 34 in the pot.
MID_HAND = 33
#: Hand 1's second round dealt: a burn, each live seat's third card face down (14.13A(f)).
SECOND_ROUND = 49


def card_views(floor: WebFloor) -> list[tuple[object, ...]]:
    with psycopg.connect(floor.db.owner) as conn:
        return conn.execute(
            "SELECT user_name, role, table_id, journal_id, hand, through FROM web.card_views "
            "ORDER BY id"
        ).fetchall()


def stored(feed: Events, table: str, records: int) -> None:
    feed.until_rows(lambda rows: rows.get(table, {}).get("records") == records, f"{table} stored")


def test_a_supervisor_never_gets_a_face_down_card_of_a_hand_in_progress_and_surveillance_does(
    tmp_path: Path, nats_factory: NatsFactory, postgres: PostgresServer
) -> None:
    nats = nats_factory(("T1",))
    floor = web_floor(tmp_path, nats, postgres)
    lines = fixture_lines()
    root = journal_id(lines)
    hand = f"/tables/T1/hands/{root}/1"
    server = FloorProcess(floor.config)
    web = WebProcess(floor)
    clients = {role: Client(floor.port) for role in ("supervisor", "surveillance")}
    feeds: dict[str, Events] = {}
    try:
        server.wait_for_log("floor_serving")
        for role, client in clients.items():
            assert client.login(role).status == 303
        floor_feed = Events(clients["supervisor"])
        publish(nats.url, nats.table_user("T1"), "T1", lines[:MID_HAND])
        stored(floor_feed, "T1", MID_HAND)
        holes = hidden_of(lines[:MID_HAND])  # 14.13A(c): the four first cards, face down
        assert len(holes) == 4
        pages = {role: c.get("/tables/T1") for role, c in clients.items()}
        assert all(page.status == 200 for page in pages.values())
        for role, client in clients.items():
            feeds[role] = Events(client, "/tables/T1/events")
            event, data = feeds[role].next()
            assert event == "page"
            assert isinstance(data, dict)
            assert data["frame"]["to_act"] == 3  # as the dealer's display: seat 3 to act
            assert data["frame"]["pot"] == 34
        # The floor page links the hand; the table page lists it and names its chain's head.
        assert hand in clients["supervisor"].get("/floor").text
        assert f"{hand}" in pages["supervisor"].text
        assert f'"head_seq": {MID_HAND}' in pages["supervisor"].text
        hand_pages = {role: c.get(hand) for role, c in clients.items()}
        assert all(page.status == 200 for page in hand_pages.values())
        assert "seat 3 face down" in hand_pages["supervisor"].text
        # The hand goes on while both feeds are open: the second round's hole cards.
        publish_records(
            nats.url, nats.table_user("T1"), "T1", lines, first=MID_HAND + 1, last=SECOND_ROUND
        )
        for feed in feeds.values():
            feed.until(
                lambda e, d: isinstance(d, dict) and d["row"]["records"] == SECOND_ROUND,
                "the table page's feed at the second round",
            )
        holes = hidden_of(lines[:SECOND_ROUND]) - cards_dealt_up(lines[:SECOND_ROUND])
        supervisor = b"".join(clients["supervisor"].sent) + feeds["supervisor"].raw
        surveillance = b"".join(clients["surveillance"].sent) + feeds["surveillance"].raw
        assert not cards_in(supervisor) & holes
        assert holes <= cards_in(surveillance)
        assert b"Qs" in feeds["supervisor"].raw  # seat 1's up card: the table's to see
        # Each response that carried a face-down card's value, recorded before it was sent.
        views = card_views(floor)
        assert {(v[0], v[5]) for v in views} == {
            ("surveillance", "table page"),
            ("surveillance", "table feed"),
            ("surveillance", "hand page"),
        }
        assert all(v[2:5] == ("T1", root, 1) for v in views)
        # Settled: the supervisor sees the hand as recall shows it, and that is recorded too.
        publish_records(
            nats.url, nats.table_user("T1"), "T1", lines, first=SECOND_ROUND + 1, last=len(lines)
        )
        stored(floor_feed, "T1", len(lines))
        settled = clients["supervisor"].get(hand)
        assert hidden_of(lines[:SECOND_ROUND]) <= cards_in(settled.body)
        assert ("supervisor", "supervisor", "T1", root, 1, "hand page") in card_views(floor)
        # Each view recorded is logged too, before its response is sent (docs/floor-web.md,
        # Who did what): who, through what, which hand; at info. The feeds still open may
        # record a view as this reads: read the log again until it has each view stored, which
        # comes a moment after its row.
        deadline = time.monotonic() + PATIENCE
        while True:
            stored_views = set(card_views(floor))
            logged = log_lines(web.log)
            viewed = [line for line in logged if line["event"] == "web_card_view"]
            logged_views = {
                (line["user"], line["role"], h["table"], h["journal"], h["hand"], line["through"])
                for line in viewed
                for h in line["hands"]
            }
            if logged_views == stored_views or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert {line["level"] for line in viewed} == {"info"}
        assert logged_views == stored_views
        floor_feed.close()
    finally:
        for feed in feeds.values():
            feed.close()
        assert web.stop() == 0, web.log.read_text()
        assert server.stop() == 0, server.text()


def cards_dealt_up(lines: list[bytes]) -> set[str]:
    """The cards ``lines`` deal face up: seen by the table, even once folded to the muck."""
    up: set[str] = set()
    for line in lines:
        record = parse_line(line)
        if record.kind in rec.DECISIONS:
            for event in schema.decode_events(record):
                if isinstance(event, ev.CardDealt) and not hidden_cards(event):
                    up.add(event.card)
    return up


def test_roles_open_only_their_pages_and_a_card_search_never_finds_a_hole_card_it_may_not_see(
    tmp_path: Path, nats_factory: NatsFactory, postgres: PostgresServer
) -> None:
    nats = nats_factory(("T1", "T2"))
    floor = web_floor(tmp_path, nats, postgres)
    lines = fixture_lines()
    root = journal_id(lines)
    clients = {role: Client(floor.port) for role in ("supervisor", "surveillance", "auditor")}
    admin = Client(floor.port)
    with serving(floor):
        landed = {role: client.login(role) for role, client in clients.items()}
        assert all(reply.status == 303 for reply in landed.values())
        assert landed["auditor"].headers["location"] == "/search"  # not the floor: not theirs
        assert landed["supervisor"].headers["location"] == "/floor"
        assert admin.login("admin").status == 303
        feed = Events(clients["supervisor"])
        publish(nats.url, nats.table_user("T2"), "T2", lines)  # every hand settled
        publish(nats.url, nats.table_user("T1"), "T1", lines[:MID_HAND])  # hand 1 in progress
        stored(feed, "T2", len(lines))
        stored(feed, "T1", MID_HAND)
        live, done = f"/tables/T1/hands/{root}/1", f"/tables/T2/hands/{root}/1"
        # The auditor: finished hands only; the admin: no hand, no table, no search.
        auditor = clients["auditor"]
        assert auditor.get("/tables/T1").status == 403
        assert auditor.get(live).status == 404
        assert auditor.get(done).status == 200
        assert live not in auditor.get("/search?hand=1").text
        assert done in auditor.get("/search?hand=1").text
        assert admin.get("/search").status == 403
        assert admin.get(done).status == 404
        # A card search: a supervisor finds the hand in progress by an up card, never by a hole
        # card (14.13A(c)); surveillance by either, and that result is recorded.
        hole = sorted(hidden_of(lines[:MID_HAND]))[0]
        up = sorted(cards_dealt_up(lines[:MID_HAND]))[0]
        supervisor = clients["supervisor"]
        assert live not in supervisor.get(f"/search?table=T1&card={hole}").text
        found = supervisor.get(f"/search?table=T1&card={up}")
        assert live in found.text
        assert f"{up}: seat" in found.text
        watched = clients["surveillance"].get(f"/search?table=T1&card={hole}")
        assert live in watched.text
        assert "face down" in watched.text
        assert ("surveillance", "surveillance", "T1", root, 1, "search") in card_views(floor)
        assert not [v for v in card_views(floor) if v[0] == "supervisor"]
        bad = supervisor.get("/search?seat=12&card=Zz")
        assert bad.status == 400
        assert "seat &#39;12&#39;: expected a whole number from 1 to 11" in bad.text
        # A view that cannot be recorded is not sent: the hole cards stay on the server.
        with psycopg.connect(floor.db.owner, autocommit=True) as conn:
            conn.execute("REVOKE INSERT ON web.card_views FROM tablectl_web")
        refused = clients["surveillance"].get(live)
        assert refused.status == 503
        assert not cards_in(refused.body) & hidden_of(lines[:MID_HAND])
        assert supervisor.get(live).status == 200  # carries no face-down card: nothing to log
        feed.close()
