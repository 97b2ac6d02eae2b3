"""The auditor's verification page in a real browser (docs/floor-web.md,
Verification (the auditor)): Debian's chromium, headless,
through Selenium, against ``floor web`` over a real PostgreSQL holding a keyed simulated table's
journal (its key registered) beside an older fixture journal with no key.

TABLECTL_WEB_SCREENSHOTS=docs/floor-web writes the screenshots for the docs (as
test_web_browser.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from browserhelp import log_in, shots
from floorhelp import PATIENCE, arrivals, fixture_lines, ingest_now
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import WebDriverWait
from servershelp import NatsFactory
from test_floor_dispute import TABLE_ID
from test_web_verify import journal_of, keyed_floor
from webhelp import WebProcess

from simulator.servers_pg import PostgresServer


def test_an_auditor_opens_verification_and_walks_a_journal_again(
    tmp_path: Path,
    nats_factory: NatsFactory,
    postgres: PostgresServer,
    monkeypatch: pytest.MonkeyPatch,
    browser: WebDriver,
) -> None:
    floor, lines, _ = keyed_floor(tmp_path, nats_factory, postgres, monkeypatch)
    ingest_now(floor.db.writer, arrivals("T1", fixture_lines()))  # a journal from before keys
    journal = journal_of(lines)
    web = WebProcess(floor)
    wait = WebDriverWait(browser, PATIENCE)
    try:
        log_in(browser, floor.base, "auditor")
        wait.until(ready.url_contains("/search"))  # the auditor's landing page
        browser.find_element(By.LINK_TEXT, "Verify").click()
        wait.until(ready.presence_of_element_located((By.ID, "chains")))
        rows = browser.find_elements(By.CSS_SELECTOR, "#chains tbody tr")
        assert [row.get_attribute("data-table") for row in rows] == [TABLE_ID, "T1"]
        keyed = browser.find_element(By.CSS_SELECTOR, f'tr[data-table="{TABLE_ID}"]')
        assert keyed.find_element(By.CSS_SELECTOR, "td.records").text == str(len(lines))
        assert ": registered" in keyed.find_element(By.CSS_SELECTOR, "td.checkpoint").text
        old = browser.find_element(By.CSS_SELECTOR, 'tr[data-table="T1"]')
        assert old.find_element(By.CSS_SELECTOR, "td.software").text == "no software record"
        browser.save_screenshot(str(shots(tmp_path) / "verify.png"))

        keyed.find_element(By.CSS_SELECTOR, "td.journal a").click()
        wait.until(ready.text_to_be_present_in_element((By.ID, "journal-id"), journal))
        assert not browser.find_elements(By.ID, "verdict")  # opening the page walks nothing
        browser.find_element(By.ID, "verify-now").click()
        verdict = wait.until(ready.presence_of_element_located((By.ID, "verdict-text")))
        assert verdict.text.startswith(
            "links intact; signatures GOOD, checked with the table's registered key "
        )
        assert browser.find_element(By.ID, "records-checked").text.startswith(
            f"{len(lines)} (records 1 to {len(lines)}"
        )
        assert browser.find_element(By.ID, "bad").text == "0"
        assert int(browser.find_element(By.ID, "signed").text) > 0
        browser.save_screenshot(str(shots(tmp_path) / "verify-journal.png"))
    finally:
        assert web.stop() == 0
