"""A feed of a hand whose stored records fail their check (docs/floor-web.md, Feeds: A hand not
intact): one byte of a decision record of the table's current hand changed in PostgreSQL as the
database's owner (only they could), then each feed opened by each role that may open it, over
``floor web`` as a subprocess of the real CLI. Each sends the hand told from its intact records
(a ``hand`` event that fits the published schema) and a ``broken`` event naming the record, the
last record told and the chain_broken alarm once floor serve's walk has raised it; nothing
answers 500, no traceback reaches the log."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
import pytest
from floorhelp import journal_id
from servershelp import NatsFactory
from test_chainwatch import one_byte_changed, walk
from test_floor_dispute import TABLE_ID
from test_web_verify import keyed_floor
from webhelp import Client, Events, WebProcess, cards_in, schema_problems

from controller.floor.chainwatch import CHAIN_BROKEN
from controller.floor.web import feedjsonschema
from controller.journal import schema
from controller.journal import tablerecords as rec
from controller.journal.record import parse_line
from controller.poker.announce import hidden_cards
from controller.poker.engine import events as ev
from simulator.servers_pg import PostgresServer

#: Each feed and the roles that may open it (controller/floor/web/policy.py FEEDS).
OPENERS = (
    ("broadcast", "broadcaster"),
    ("broadcast", "surveillance"),
    ("surveillance", "surveillance"),
    ("public", "supervisor"),
    ("public", "surveillance"),
)


def tamper_current_hand(owner: str, lines: list[bytes]) -> tuple[int, int, int]:
    """One byte of a decision record in the middle of the journal's last hand (the table's
    current hand, the one a feed sends at connecting) changed in the store, as its owner: the
    hand, the record changed and the last decision record before it (the last one told)."""
    records = list(map(parse_line, lines))
    decisions = [r for r in records if r.kind in rec.DECISIONS]
    starts = [
        (r.seq, e.hand)
        for r in decisions
        for e in schema.decode_events(r)
        if isinstance(e, ev.HandStarted)
    ]
    started, hand = starts[-1]
    after = [r.seq for r in decisions if r.seq > started]
    seq = after[len(after) // 2]
    told = max(r.seq for r in decisions if r.seq < seq)
    with psycopg.connect(owner, autocommit=True) as conn:
        conn.execute(
            "UPDATE records SET line = %s WHERE table_id = %s AND seq = %s",
            (one_byte_changed(lines[seq - 1]), TABLE_ID, seq),
        )
    return hand, seq, told


def first_two(events: Events) -> dict[str, dict[str, object]]:
    """The feed's first two events (the current hand's, at connecting) by their names."""
    got: dict[str, dict[str, object]] = {}
    for _ in range(2):
        name, data = events.until(lambda e, _d: e != "heartbeat", "an event")
        assert isinstance(data, dict)
        got[name] = data
    return got


def test_each_feed_shows_a_hand_not_intact_as_such_to_each_role_that_may_open_it(
    tmp_path: Path,
    nats_factory: NatsFactory,
    postgres: PostgresServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    floor, lines, _ = keyed_floor(tmp_path, nats_factory, postgres, monkeypatch)
    journal = journal_id(lines)
    hand, seq, told = tamper_current_hand(floor.db.owner, lines)
    told_ts = parse_line(lines[told - 1]).ts
    hand_schema = json.loads(feedjsonschema.PUBLISHED.read_text(encoding="utf-8"))
    broken_schema = json.loads(feedjsonschema.PUBLISHED_BROKEN.read_text(encoding="utf-8"))
    secret = never_seen(lines, hand, told)
    web = WebProcess(floor)
    opened: list[Events] = []
    try:
        clients = {role: Client(floor.port) for _, role in OPENERS}
        for role, client in clients.items():
            assert client.login(role).status == 303
        for alarmed in (False, True):
            if alarmed:
                assert walk(floor.db.writer).raised == 1  # floor serve's walk
            for feed, role in OPENERS:
                events = Events(clients[role], f"/feeds/{feed}")
                opened.append(events)
                assert events.response.status == 200, (feed, role)
                got = first_two(events)
                events.close()
                where = (feed, role, alarmed)
                assert set(got) == {"hand", "broken"}, where
                shown, broken = got["hand"], got["broken"]
                # The hand as its intact records tell it, up to the last one before the break.
                assert (shown["table_id"], shown["journal_id"], shown["hand"]) == (
                    TABLE_ID, journal, hand,
                ), where  # fmt: skip
                assert shown["at"] == told_ts, where
                assert schema_problems(shown, hand_schema, hand_schema, feed) == [], where
                if feed == "public":  # no face-down card of the intact part (14.13(c))
                    assert not cards_in(json.dumps(shown).encode()) & secret, where
                # The record that is not intact, the last told, the alarm once raised.
                assert schema_problems(broken, broken_schema, broken_schema, feed) == [], where
                assert (broken["feed"], broken["table_id"], broken["journal_id"]) == (
                    feed, TABLE_ID, journal,
                ), where  # fmt: skip
                assert (broken["hand"], broken["seq"], broken["told_to"]) == (hand, seq, told)
                assert "its stored line fails its hash" in str(broken["why"]), broken
                if (feed, role) == OPENERS[1]:  # the hand page says the record told too
                    page = clients[role].get(f"/tables/{TABLE_ID}/hands/{journal}/{hand}")
                    assert page.status == 200, page.text
                    assert f"from its intact records, up to record {told};" in page.text
                alarms = broken["alarms"]
                assert isinstance(alarms, list)
                if not alarmed:
                    assert alarms == [], where
                    continue
                [alarm] = alarms
                assert (alarm["kind"], alarm["seq"]) == (CHAIN_BROKEN, seq), where
                assert f"breaks at record {seq}" in alarm["message"]
                assert str(alarm["raised_at"]).endswith(" UTC"), alarm
    finally:
        for events in opened:
            events.close()
        assert web.stop() == 0, web.log.read_text()
    logged = web.log.read_text()
    assert "Traceback" not in logged
    for line in logged.splitlines():
        json.loads(line)


def never_seen(lines: list[bytes], hand: int, last: int) -> set[str]:
    """The cards of ``hand`` dealt face down up to record ``last`` and not turned over (or dealt
    face up) since: no player has seen these."""
    secret: set[str] = set()
    seen: set[str] = set()
    started = False
    for record in map(parse_line, lines[:last]):
        if record.kind not in rec.DECISIONS:
            continue
        for event in schema.decode_events(record):
            started = started or (isinstance(event, ev.HandStarted) and event.hand == hand)
            if not started:
                continue
            secret.update(hidden_cards(event))
            if isinstance(event, ev.CardDealt) and not hidden_cards(event):
                seen.add(event.card)
            elif isinstance(event, ev.Showdown):
                seen.update(card for shown in event.hands for card in shown.cards)
    return secret - seen
