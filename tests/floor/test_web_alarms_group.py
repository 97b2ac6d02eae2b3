"""Alarms of one cause at a table grouped, with one acknowledgement for the group, each alarm's
still recorded (docs/floor-web.md, Alarms): ``floor web`` as a subprocess over a real PostgreSQL
whose alarms are real (records of a stored journal rewritten: the witness's conflicts)."""

from __future__ import annotations

import re
from pathlib import Path

import psycopg
from browserhelp import click, log_in
from floorhelp import PATIENCE, FloorDb, arrivals, fixture_lines, ingest_now, rewritten
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import WebDriverWait
from servershelp import NatsFactory
from test_web_alarms import listed
from webhelp import Client, Events, WebProcess, web_floor

from simulator.servers_pg import PostgresServer


def _conflict(db: FloorDb, table_id: str, lines: list[bytes], seq: int) -> int:
    ingest_now(db.writer, arrivals(table_id, rewritten(lines, seq), [seq]))
    with psycopg.connect(db.owner) as conn:
        row = conn.execute(
            "SELECT max(id) FROM alarms WHERE table_id = %s AND kind = 'conflict'", (table_id,)
        ).fetchone()
    assert row is not None
    return int(str(row[0]))


def test_one_acknowledgement_for_a_tables_alarms_of_one_cause_records_each(
    tmp_path: Path, nats_factory: NatsFactory, postgres: PostgresServer
) -> None:
    floor = web_floor(tmp_path, nats_factory(("T1", "T2")), postgres)
    db = floor.db
    mambo, stud = fixture_lines("mambo"), fixture_lines("five-card-stud")
    ingest_now(db.writer, arrivals("T1", mambo))
    ingest_now(db.writer, arrivals("T2", stud))
    first = _conflict(db, "T1", mambo, 100)
    other = _conflict(db, "T2", stud, 30)
    second = _conflict(db, "T1", mambo, 101)
    third = _conflict(db, "T1", mambo, 102)
    web = WebProcess(floor)
    try:
        client = Client(floor.port)
        assert client.login("supervisor").status == 303
        page = client.get("/alarms").text
        # T1's three together, newest first, before T2's, whose one was raised between them.
        assert listed(page) == [(third, "open"), (second, "open"), (first, "open"), (other, "open")]
        assert f'formaction="/alarms/{third}/ack-group">Acknowledge all 3 conflict of T1' in page
        assert page.count('class="ack-group"') == 1  # T2's alone is no group
        feed = Events(client, "/alarms/events")
        snapshot = feed.until(lambda e, _d: e == "alarms", "the alarms' snapshot")[1]
        assert isinstance(snapshot, list)
        assert [(a["id"], a["group"]) for a in snapshot] == [
            (third, 3),
            (second, 0),
            (first, 0),
            (other, 1),
        ]
        # One raised after the page was read is not in the group the supervisor saw.
        fourth = _conflict(db, "T1", mambo, 103)
        token = client.csrf("/alarms")
        blank = client.post(f"/alarms/{third}/ack-group", {"note": " ", "csrf_token": token})
        assert blank.status == 400
        assert client.post(f"/alarms/{third}/ack-group", {"note": "x"}).status == 403
        done = client.post(
            f"/alarms/{third}/ack-group", {"note": "T1's shoe swapped", "csrf_token": token}
        )
        assert done.status == 303
        with psycopg.connect(db.owner) as conn:
            acks = conn.execute(
                "SELECT alarm_id, user_name, note FROM web.alarm_acks ORDER BY alarm_id"
            ).fetchall()
        assert acks == [(i, "supervisor", "T1's shoe swapped") for i in (first, second, third)]
        after = client.get("/alarms").text
        assert listed(after)[:2] == [(fourth, "open"), (other, "open")]
        assert sorted(listed(after)[2:]) == [(i, "acked") for i in (first, second, third)]
        again = client.post(f"/alarms/{third}/ack-group", {"note": "again", "csrf_token": token})
        assert again.status == 409
        assert "acknowledged already" in again.text
        unknown = client.post("/alarms/999999/ack-group", {"note": "n", "csrf_token": token})
        assert unknown.status == 404
        feed.close()
        # Surveillance watches: no acknowledgement, of one or of a group.
        watcher = Client(floor.port)
        assert watcher.login("surveillance").status == 303
        token = watcher.csrf("/alarms")
        refused = watcher.post(f"/alarms/{fourth}/ack-group", {"note": "n", "csrf_token": token})
        assert refused.status == 403
        assert re.search(r"a supervisor acknowledges alarms", refused.text)
    finally:
        assert web.stop() == 0, web.log.read_text()


def test_the_group_is_acknowledged_in_the_browser_with_one_note(
    tmp_path: Path, nats_factory: NatsFactory, postgres: PostgresServer, browser: WebDriver
) -> None:
    floor = web_floor(tmp_path, nats_factory(("T1", "T2")), postgres)
    db = floor.db
    mambo, stud = fixture_lines("mambo"), fixture_lines("five-card-stud")
    ingest_now(db.writer, arrivals("T1", mambo))
    ingest_now(db.writer, arrivals("T2", stud))
    first = _conflict(db, "T1", mambo, 100)
    other = _conflict(db, "T2", stud, 30)
    second = _conflict(db, "T1", mambo, 101)
    web = WebProcess(floor)
    wait = WebDriverWait(browser, PATIENCE)
    try:
        log_in(browser, floor.base, "supervisor")
        # The login's answer first: a page opened while its POST is in flight goes without the
        # session, to the login page, where no "live" ever shows (a fresh clone's run waited
        # out the 60 s there).
        wait.until(ready.url_changes(f"{floor.base}/login"))
        browser.get(f"{floor.base}/alarms")
        wait.until(ready.text_to_be_present_in_element((By.ID, "live"), "live"))
        lead = browser.find_element(By.CSS_SELECTOR, f'tr[data-alarm="{second}"]')
        lead.find_element(By.NAME, "note").send_keys("Both records re-sent by a restored PC.")
        group = lead.find_element(By.CLASS_NAME, "ack-group")
        assert group.text == "Acknowledge all 2 conflict of T1"
        click(browser, group)
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#alarm-list tr.acked")) == 2)
        wait.until(ready.text_to_be_present_in_element((By.ID, "open-count"), "1 open"))
        assert browser.find_elements(By.CLASS_NAME, "ack-group") == []
        open_rows = browser.find_elements(By.CSS_SELECTOR, "#alarm-list tr.open")
        assert [row.get_attribute("data-alarm") for row in open_rows] == [str(other)]
        with psycopg.connect(db.owner) as conn:
            acked = conn.execute("SELECT alarm_id FROM web.alarm_acks ORDER BY 1").fetchall()
        assert acked == [(first,), (second,)]
    finally:
        assert web.stop() == 0, web.log.read_text()
