"""An alarm seen and acknowledged in a real browser (docs/floor-web.md, Alarms):
Debian's chromium, headless, through Selenium, against ``floor serve`` and ``floor web`` fed by a
real journal over a real nats-server into a real PostgreSQL. The alarm is real: a record sent
under another record's message id, which the floor's witness raises (``mislabeled``).

TABLECTL_WEB_SCREENSHOTS=docs/floor-web writes the screenshots for the docs (as
test_web_browser.py).
"""

from __future__ import annotations

from pathlib import Path

import psycopg
from browserhelp import cell, click, log_in, shots
from floorhelp import PATIENCE, fixture_lines
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import WebDriverWait
from servershelp import NatsFactory
from webhelp import publish_records, serving, web_floor

from simulator.servers_pg import PostgresServer

NOTE = "Dealer re-sent the record; forwarder restarted, table checked with the pit boss."


def test_an_alarm_appears_on_the_floor_and_is_acknowledged_with_a_note(
    tmp_path: Path, nats_factory: NatsFactory, postgres: PostgresServer, browser: WebDriver
) -> None:
    nats = nats_factory(("T1",))
    floor = web_floor(tmp_path, nats, postgres)
    wait = WebDriverWait(browser, PATIENCE)
    draw = fixture_lines("triple-draw")
    with serving(floor):
        publish_records(nats.url, nats.table_user("T1"), "T1", draw, first=1, last=60)
        log_in(browser, floor.base, "supervisor")
        wait.until(ready.text_to_be_present_in_element((By.ID, "live"), "live"))
        wait.until(lambda d: cell(d, "T1", "hand") != "—")
        assert cell(browser, "T1", "alarms") == "none"
        # Record 10 sent again as record 61: the witness's alarm, on the floor page live.
        wrong = [*draw[:60], draw[9]]
        publish_records(nats.url, nats.table_user("T1"), "T1", wrong, first=61, last=61)
        wait.until(lambda d: "1 ALARM" in cell(d, "T1", "alarms"))
        browser.find_element(By.LINK_TEXT, "Alarms").click()
        wait.until(ready.text_to_be_present_in_element((By.ID, "live"), "live"))
        row = browser.find_element(By.CSS_SELECTOR, "#alarm-list tbody tr")
        assert row.get_attribute("class") == "open"
        assert "floor" in row.text  # raised by the floor's witness
        assert "T1" in row.text
        # Sent again live while the page is open: a second alarm appears above, no reload.
        publish_records(
            nats.url, nats.table_user("T1"), "T1", [*wrong, draw[19]], first=62, last=62
        )
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#alarm-list tr.open")) == 2)
        assert browser.find_element(By.ID, "open-count").text == "2 open"
        second, first = browser.find_elements(By.CSS_SELECTOR, "#alarm-list tbody tr")
        assert "record 62" in second.text
        assert "record 61" in first.text
        note = first.find_element(By.NAME, "note")
        note.send_keys(NOTE)
        browser.save_screenshot(str(shots(tmp_path) / "alarms.png"))
        click(browser, first.find_element(By.TAG_NAME, "button"))
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#alarm-list tr.acked")) == 1)
        acked = browser.find_element(By.CSS_SELECTOR, "#alarm-list tr.acked")
        assert "supervisor, 20" in acked.text
        assert NOTE in acked.text
        assert browser.find_element(By.ID, "open-count").text == "1 open"
        browser.save_screenshot(str(shots(tmp_path) / "alarms-acknowledged.png"))
        with psycopg.connect(floor.db.owner) as conn:
            stored = conn.execute(
                "SELECT k.user_name, k.note, a.seq, now() - k.at < interval '1 minute' "
                "FROM web.alarm_acks k JOIN alarms a ON a.id = k.alarm_id"
            ).fetchall()
        assert stored == [("supervisor", NOTE, 61, True)]
        # Back on the floor page: one alarm open, not two.
        browser.find_element(By.LINK_TEXT, "Floor").click()
        wait.until(lambda d: "1 ALARM" in cell(d, "T1", "alarms"))
