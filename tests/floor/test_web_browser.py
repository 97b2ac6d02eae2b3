"""The floor's web view in a real browser (docs/floor-web.md): Debian's chromium,
headless, through Selenium and Debian's chromedriver, against ``floor serve`` and ``floor web``
fed by real journals over a real nats-server into a real PostgreSQL.

Set TABLECTL_WEB_SCREENSHOTS=docs/floor-web to write the pages' screenshots for the docs; they
go into the test's folder otherwise.
"""

from __future__ import annotations

from pathlib import Path

from browserhelp import cell, fill_login, read, shots
from floorhelp import PATIENCE, fixture_lines, publish
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import WebDriverWait
from servershelp import NatsFactory
from webhelp import cards_in, hidden_of, publish_records, serving, web_floor

from simulator.servers_pg import PostgresServer

#: As test_web.py: hand 1's first round, seat 3 to act, 34 in the pot.
MID_HAND = 33


def test_a_supervisor_logs_in_and_sees_the_floor_update_as_a_hand_is_dealt(
    tmp_path: Path, nats_factory: NatsFactory, postgres: PostgresServer, browser: WebDriver
) -> None:
    nats = nats_factory(("T1", "T2", "T3"))
    floor = web_floor(tmp_path, nats, postgres)
    wait = WebDriverWait(browser, PATIENCE)
    mambo = fixture_lines()
    with serving(floor):
        publish(nats.url, nats.table_user("T2"), "T2", fixture_lines("five-card-stud"))
        draw = fixture_lines("triple-draw")
        publish_records(nats.url, nats.table_user("T3"), "T3", draw, first=1, last=200)
        # A record sent under another's message id: the witness's alarm, shown in red.
        wrong = [*draw[:200], draw[10]]
        publish_records(nats.url, nats.table_user("T3"), "T3", wrong, first=201, last=201)
        browser.get(f"{floor.base}/floor")
        wait.until(ready.presence_of_element_located((By.ID, "login")))
        fill_login(browser, "supervisor", "not the password")
        error = wait.until(ready.presence_of_element_located((By.ID, "login-error")))
        assert error.text == "Wrong user name or password."
        browser.save_screenshot(str(shots(tmp_path) / "login.png"))
        fill_login(browser, "supervisor")
        wait.until(ready.text_to_be_present_in_element((By.ID, "live"), "live"))
        wait.until(lambda d: "ALARM" in cell(d, "T3", "alarms"))
        assert "alarm" in read(browser, 'tr[data-table="T3"]', "class")
        assert "Five-Card Stud" in read(browser, 'tr[data-table="T2"]')
        # The table deals: its row appears, then follows the hand, with no reload.
        publish(nats.url, nats.table_user("T1"), "T1", mambo[:MID_HAND])
        wait.until(lambda d: cell(d, "T1", "pot") == "34")
        assert cell(browser, "T1", "to-act") == "seat 3"
        assert cell(browser, "T1", "street") == "first round"
        browser.save_screenshot(str(shots(tmp_path) / "floor.png"))
        publish_records(nats.url, nats.table_user("T1"), "T1", mambo, first=MID_HAND + 1, last=49)
        wait.until(lambda d: cell(d, "T1", "street") == "second round")
        assert cell(browser, "T1", "pot") == "69"
        # Filter on the client: only the alarmed table.
        browser.find_element(By.ID, "alarmed").click()
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#tables tbody tr")) == 1)
        assert browser.find_elements(By.CSS_SELECTOR, 'tr[data-table="T3"]')
        page = browser.page_source.encode()
        assert not cards_in(page) & hidden_of(mambo)
