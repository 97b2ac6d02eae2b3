"""The alarms page's Raised (docs/floor-web.md, Alarms: Raised): the floor's clock, and the
table's where it says another moment. An alarm stamped with its record's ts (the table's, and
the floor's on what a record says) is shown at the moment the floor received the record; one
the floor stamped itself, at its own. ``floor serve`` and ``floor web`` as the real CLI's
subprocesses over a real nats-server and PostgreSQL; the page read as bytes."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import pytest
from floorhelp import fixture_lines, publish
from servershelp import NatsFactory
from webhelp import Client, Events, retimed, serving, web_floor

from controller.floor.web.alarms import clocks
from controller.floor.web.moments import shown
from simulator.servers_pg import PostgresServer

STORED = 20


def _raised(page: str, alarm_id: int) -> str:
    found = re.search(rf'<tr data-alarm="{alarm_id}".*?<td class="raised">(.*?)</td>', page, re.S)
    assert found, page
    return found.group(1)


def test_raised_is_the_floors_clock_and_the_tables_where_it_differs(
    tmp_path: Path, nats_factory: NatsFactory, postgres: PostgresServer
) -> None:
    nats = nats_factory(("T1", "T2"))
    floor = web_floor(tmp_path, nats, postgres)
    behind = retimed(fixture_lines(), datetime.now(UTC) - timedelta(hours=1))  # T1's clock
    with serving(floor):
        client = Client(floor.port)
        assert client.login("supervisor").status == 303
        feed = Events(client)
        publish(nats.url, nats.table_user("T1"), "T1", behind[:STORED])
        publish(nats.url, nats.table_user("T2"), "T2", fixture_lines()[:STORED])
        feed.until_rows(
            lambda r: all(r.get(t, {}).get("records") == STORED for t in ("T1", "T2")), "stored"
        )
        feed.close()
        with psycopg.connect(floor.db.owner, autocommit=True) as conn:
            # As ingest stamps an alarm on what a record says (software.alarm_row): its ts; and
            # as the chain walk stamps one, later, on its own clock.
            ids: dict[str, int] = {}
            for name, table, seq, stamp in (
                ("behind", "T1", 9, "r.ts"),
                ("later", "T2", 10, "r.received_at + interval '2 hours'"),
            ):
                row = conn.execute(
                    "INSERT INTO alarms (table_id, journal_id, seq, source, kind, message, "
                    f"evidence_hash, raised_at) SELECT r.table_id, r.journal_id, r.seq, 'floor', "
                    f"%s, 'a test alarm', '', {stamp} FROM records r "
                    "WHERE r.table_id = %s AND r.seq = %s RETURNING id",
                    (f"test_{name}", table, seq),
                ).fetchone()
                assert row is not None
                ids[name] = int(row[0])
            clocks_of = {
                (str(t), int(s)): (ts, got)
                for t, s, ts, got in conn.execute(
                    "SELECT table_id, seq, ts, received_at FROM records WHERE seq IN (9, 10)"
                ).fetchall()
            }
        page = client.get("/alarms").text
        ts, received = clocks_of[("T1", 9)]
        assert _raised(page, ids["behind"]) == (
            f'{shown(received)}<br><small class="table-clock">table\'s clock {shown(ts)}</small>'
        )
        ts, received = clocks_of[("T2", 10)]
        later = shown(received + timedelta(hours=2))
        assert _raised(page, ids["later"]).startswith(f"{later}<br>")
        assert f"table's clock {shown(ts)}" in _raised(page, ids["later"])
        # The table page's alarms say the same two clocks.
        table = client.get("/tables/T1").text
        found = re.search(r'id="table-data">(.*?)</script>', table, re.S)
        assert found
        line = next(a for a in json.loads(found.group(1))["alarms"] if a["id"] == ids["behind"])
        ts, received = clocks_of[("T1", 9)]
        assert (line["raised_at"], line["table_at"]) == (shown(received), shown(ts))


@pytest.mark.fast
def test_one_clock_is_one_moment_and_a_seconds_forwarding_is_no_difference() -> None:
    ts = datetime(2026, 12, 1, 16, 25, 33, 950000, tzinfo=UTC)
    received = ts + timedelta(milliseconds=300)  # the next second, by the forwarding
    assert clocks(ts, ts, received) == (shown(received), None)
    assert clocks(ts, ts, ts + timedelta(seconds=5)) == (
        shown(ts + timedelta(seconds=5)),
        shown(ts),
    )
    walked = ts + timedelta(hours=2)  # the floor's own stamp, later: its own moment
    assert clocks(walked, ts, received) == (shown(walked), shown(ts))
    assert clocks(walked, None, None) == (shown(walked), None)  # no record stored
