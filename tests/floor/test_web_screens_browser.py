"""The supervisor's screens in a real browser (docs/floor-web.md, The site's frame, The floor
page: Last heard, The hand page: Face-down cards): Debian's chromium, headless, through
Selenium, against ``floor serve`` and ``floor web`` fed the Mambo fixture's journal over a real
nats-server into a real PostgreSQL. Screenshots go to the test's folder (browserhelp.shots);
TABLECTL_WEB_SCREENSHOTS=docs/floor-web writes them for the docs."""

from __future__ import annotations

from pathlib import Path

import psycopg
from browserhelp import cell, log_in, shots
from floorhelp import PATIENCE, fixture_lines, publish
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import WebDriverWait
from servershelp import NatsFactory
from webhelp import serving, web_floor

from simulator.servers_pg import PostgresServer

#: Hand 1 of the Mambo fixture after its first round's bets: each seat a hole card, an up card.
MID_HAND = 33


def test_surveillance_sees_a_silent_table_and_its_hole_cards_marked_and_the_auditor_its_own_links(
    tmp_path: Path, nats_factory: NatsFactory, postgres: PostgresServer, browser: WebDriver
) -> None:
    nats = nats_factory(("T1", "T2"))
    floor = web_floor(tmp_path, nats, postgres, "silent_after = 600\n")
    wait = WebDriverWait(browser, PATIENCE)
    mambo = fixture_lines()
    with serving(floor):
        publish(nats.url, nats.table_user("T1"), "T1", mambo[:MID_HAND])
        publish(nats.url, nats.table_user("T2"), "T2", mambo[:MID_HAND])
        log_in(browser, floor.base, "surveillance")
        wait.until(ready.url_contains("/floor"))
        wait.until(lambda d: cell(d, "T2", "pot") == "34")
        wait.until(lambda d: cell(d, "T1", "pot") == "34")
        # T2 last heard 11 minutes ago by the floor's clock; the page opened again shows it.
        with psycopg.connect(floor.db.owner, autocommit=True) as conn:
            conn.execute(
                "UPDATE tables SET last_seen = last_seen - interval '11 minutes' "
                "WHERE table_id = 'T2'"
            )
        browser.get(f"{floor.base}/floor")
        wait.until(ready.text_to_be_present_in_element((By.ID, "live"), "live"))
        wait.until(lambda d: "SILENT" in cell(d, "T2", "heard"))
        assert "SILENT" not in cell(browser, "T1", "heard")
        assert cell(browser, "T1", "heard").endswith(" UTC")
        assert "silent" in str(
            browser.find_element(By.CSS_SELECTOR, 'tr[data-table="T2"]').get_attribute("class")
        )
        browser.save_screenshot(str(shots(tmp_path) / "floor-silent.png"))
        # The table page: each seat's hole card shown to surveillance, marked face down; its up
        # card not (14.13A(c)).
        browser.get(f"{floor.base}/tables/T1")
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#hand .seat .card")) == 8)
        # Read in one script, as one moment of the page: it redraws the hand at each event of
        # its feed, and an element found before a redraw is stale after it.
        cards = browser.execute_script(
            "return Array.from(document.querySelectorAll('#hand .seat .card')).map(c => ["
            "c.classList.contains('face-down'), c.textContent.trim(),"
            "getComputedStyle(c, '::before').content, getComputedStyle(c).borderTopStyle])"
        )
        marked = [card for card in cards if card[0]]
        up = [card for card in cards if not card[0]]
        assert len(marked) == 4
        assert all(text for _down, text, _mark, _border in marked)  # surveillance: their values
        assert {mark for _down, _text, mark, _border in marked} == {'"\u25bc"'}
        assert all("dashed" in border for *_rest, border in marked)
        assert len(up) == 4
        assert all(border == "solid" for *_rest, border in up)
        browser.save_screenshot(str(shots(tmp_path) / "table-face-down.png"))
        browser.find_element(By.CSS_SELECTOR, "form.logout button").click()
        wait.until(ready.url_contains("/login"))
        # The auditor: Search and Verify in the header, no Floor; the floor's refusal in the
        # frame, with a way back to the auditor's start page.
        log_in(browser, floor.base, "auditor")
        wait.until(ready.url_contains("/search"))
        links = [a.text for a in browser.find_elements(By.CSS_SELECTOR, "header nav a")]
        assert links == ["Search", "Verify"]
        browser.get(f"{floor.base}/floor")
        wait.until(ready.presence_of_element_located((By.ID, "error")))
        assert "403 Forbidden" in browser.find_element(By.CSS_SELECTOR, "#error h1").text
        reason = browser.find_element(By.CSS_SELECTOR, "#error .reason")
        assert "you are signed in as an auditor" in reason.text
        assert reason.value_of_css_property("color") != "rgba(255, 255, 255, 1)"  # not white
        browser.save_screenshot(str(shots(tmp_path) / "auditor-403.png"))
        browser.find_element(By.ID, "back-home").click()
        wait.until(ready.url_contains("/search"))
