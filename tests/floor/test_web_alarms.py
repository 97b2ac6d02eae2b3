"""The alarms page and a supervisor's acknowledgement (docs/floor-web.md, Alarms):
``floor web`` as a subprocess of the real CLI over a real PostgreSQL whose alarms are real (a
journal rewritten after it was stored: the witness's conflict alarm); what the server sends is
read as bytes, the acknowledgement read back from the store."""

from __future__ import annotations

import re
from pathlib import Path

import psycopg
import pytest
from floorhelp import FloorDb, arrivals, fixture_lines, ingest_now, rewritten
from servershelp import NatsFactory
from webhelp import Client, Events, WebProcess, web_floor

from controller.floor.web.alarms import MAX_NOTE, AckError, checked_note
from simulator.servers_pg import PostgresServer

_ROW = re.compile(r'<tr data-alarm="(\d+)" class="(open|acked)">')


def raise_alarm(db: FloorDb, table_id: str, game: str, seq: int) -> int:
    """A table's journal stored, then its record ``seq`` rewritten: the floor's conflict alarm.
    Returns the alarm's id."""
    lines = fixture_lines(game)
    ingest_now(db.writer, arrivals(table_id, lines))
    ingest_now(db.writer, arrivals(table_id, rewritten(lines, seq), [seq]))
    with psycopg.connect(db.owner) as conn:
        row = conn.execute(
            "SELECT id FROM alarms WHERE table_id = %s AND kind = 'conflict'", (table_id,)
        ).fetchone()
    assert row is not None
    return int(row[0])


def listed(page: str) -> list[tuple[int, str]]:
    """The alarms page's rows, in order: (alarm id, open or acked)."""
    return [(int(alarm), state) for alarm, state in _ROW.findall(page)]


def test_a_supervisor_acknowledges_an_open_alarm_with_a_note_stored_with_who_and_when(
    tmp_path: Path, nats_factory: NatsFactory, postgres: PostgresServer
) -> None:
    floor = web_floor(tmp_path, nats_factory(("T1", "T2")), postgres)
    older = raise_alarm(floor.db, "T1", "mambo", 100)
    newer = raise_alarm(floor.db, "T2", "five-card-stud", 30)
    web = WebProcess(floor)
    try:
        client = Client(floor.port)
        assert client.login("supervisor").status == 303
        page = client.get("/alarms")
        assert page.status == 200
        assert listed(page.text) == [(newer, "open"), (older, "open")]  # newest first
        assert "2 open" in page.text
        assert f'action="/alarms/{older}/ack"' in page.text
        floor_page = client.get("/floor").text
        assert floor_page.count('class="alarm"') == 2
        alarms_feed = Events(client, "/alarms/events")
        snapshot = alarms_feed.until(lambda e, _d: e == "alarms", "the alarms' snapshot")[1]
        assert isinstance(snapshot, list)
        assert [alarm["id"] for alarm in snapshot] == [newer, older]
        floor_feed = Events(client)
        floor_feed.until_rows(lambda rows: rows.get("T1", {}).get("alarms") == 1, "T1's alarm")

        # No CSRF token, a blank note, a note too long: refused, nothing stored.
        assert client.post(f"/alarms/{older}/ack", {"note": "seen"}).status == 403
        token = client.csrf("/alarms")
        blank = client.post(f"/alarms/{older}/ack", {"note": "  \t ", "csrf_token": token})
        assert blank.status == 400
        assert "A note is required" in blank.text
        long = client.post(
            f"/alarms/{older}/ack", {"note": "x" * (MAX_NOTE + 1), "csrf_token": token}
        )
        assert long.status == 400
        assert f"at most {MAX_NOTE}" in long.text
        unknown = client.post("/alarms/999999/ack", {"note": "seen", "csrf_token": token})
        assert unknown.status == 404
        assert "There is no alarm 999999" in unknown.text
        with psycopg.connect(floor.db.owner) as conn:
            assert conn.execute("SELECT count(*) FROM web.alarm_acks").fetchone() == (0,)

        note = "  Called the table's supervisor: deck <b>replaced</b>, hand 3 voided.  "
        done = client.post(f"/alarms/{older}/ack", {"note": note, "csrf_token": token})
        assert done.status == 303
        assert done.headers["location"] == "/alarms"
        with psycopg.connect(floor.db.owner) as conn:
            stored = conn.execute(
                "SELECT user_name, note, now() - at < interval '1 minute' FROM web.alarm_acks "
                "WHERE alarm_id = %s",
                (older,),
            ).fetchone()
        assert stored == ("supervisor", note.strip(), True)

        # The open one first, then the acknowledged with who, when and the note (as text).
        after = client.get("/alarms").text
        assert listed(after) == [(newer, "open"), (older, "acked")]
        assert "1 open" in after
        assert "supervisor, 20" in after  # who, then when (UTC, to the second)
        assert "deck &lt;b&gt;replaced&lt;/b&gt;, hand 3 voided." in after
        assert f'action="/alarms/{older}/ack"' not in after
        # A second acknowledgement is refused, naming the first.
        again = client.post(f"/alarms/{older}/ack", {"note": "again", "csrf_token": token})
        assert again.status == 409
        assert "acknowledged already, by supervisor" in again.text

        # Both feeds follow at once: the list with the acknowledgement, T1's row unalarmed.
        def acked(event: str, data: object) -> bool:
            return event == "alarms" and isinstance(data, list) and data[-1]["ack"] is not None

        alarms = alarms_feed.until(acked, "the acknowledgement on the alarms feed")[1]
        assert isinstance(alarms, list)
        assert alarms[-1]["ack"]["user"] == "supervisor"
        assert alarms[-1]["ack"]["note"] == note.strip()
        rows = floor_feed.until_rows(lambda r: r["T1"]["alarms"] == 0, "T1's alarm count at 0")
        assert rows["T2"]["alarms"] == 1
        alarms_feed.close()
        floor_feed.close()
        refreshed = client.get("/floor").text
        assert refreshed.count('class="alarm"') == 1
    finally:
        assert web.stop() == 0, web.log.read_text()


def test_surveillance_watches_the_alarms_and_no_other_role_sees_them(
    tmp_path: Path, nats_factory: NatsFactory, postgres: PostgresServer
) -> None:
    floor = web_floor(tmp_path, nats_factory(("T1",)), postgres)
    alarm = raise_alarm(floor.db, "T1", "mambo", 100)
    web = WebProcess(floor)
    try:
        watcher = Client(floor.port)
        assert watcher.login("surveillance").status == 303
        page = watcher.get("/alarms")
        assert page.status == 200
        assert listed(page.text) == [(alarm, "open")]
        assert "/ack" not in page.text  # no form
        token = watcher.csrf("/alarms")
        refused = watcher.post(f"/alarms/{alarm}/ack", {"note": "seen", "csrf_token": token})
        assert refused.status == 403
        assert "a supervisor acknowledges alarms: you are signed in as surveillance" in refused.text
        for role in ("auditor", "admin"):
            other = Client(floor.port)
            assert other.login(role).status == 303
            assert other.get("/alarms").status == 403
            assert other.get("/alarms/events").status == 401
        anonymous = Client(floor.port)
        assert anonymous.get("/alarms").status == 303
        assert anonymous.get("/alarms/events").status == 401
        with psycopg.connect(floor.db.owner) as conn:
            assert conn.execute("SELECT count(*) FROM web.alarm_acks").fetchone() == (0,)
    finally:
        assert web.stop() == 0, web.log.read_text()


@pytest.mark.fast
def test_a_note_is_trimmed_and_must_say_something_within_the_bound() -> None:
    assert checked_note("  deck replaced \n") == "deck replaced"
    assert checked_note("x" * MAX_NOTE) == "x" * MAX_NOTE
    for bad, said in (("", "required"), (" \n\t", "required"), ("y" * 2001, "at most 2000")):
        with pytest.raises(AckError, match=said) as caught:
            checked_note(bad)
        assert caught.value.status == 400
