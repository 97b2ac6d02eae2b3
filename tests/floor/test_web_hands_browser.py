"""The table page, search and the hand page's replay in a real browser
(docs/floor-web.md, The table page, Search, The hand page): Debian's chromium, headless, through
Selenium, against ``floor serve`` and ``floor web`` fed by real journals over a real nats-server
into a real PostgreSQL.

TABLECTL_WEB_SCREENSHOTS=docs/floor-web writes the screenshots for the docs (as
test_web_browser.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from browserhelp import log_in, shots
from floorhelp import PATIENCE, fixture_lines, publish
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import WebDriverWait
from test_web_pages import cards_dealt_up
from webhelp import WebFloor, cards_in, hidden_of, publish_records, serving, web_floor

from simulator.servers_nats import NatsServer
from simulator.servers_pg import PostgresServer

#: As test_web_pages.py: hand 1 of the Mambo fixture mid first round, then its second round.
MID_HAND = 33
SECOND_ROUND = 49


@pytest.fixture(scope="module")
def served(
    tmp_path_factory: pytest.TempPathFactory, postgres: PostgresServer
) -> Iterator[tuple[NatsServer, WebFloor]]:
    """One floor for the module's tests, ``floor serve`` and ``floor web`` on it (each must exit
    0 after): each test feeds a table of its own (T1, T2), so none needs servers of its own
    (docs/testing.md, Where the default suite's time goes)."""
    folder = tmp_path_factory.mktemp("hands")
    nats = NatsServer(folder / "nats", ("T1", "T2"))
    nats.start()
    try:
        floor = web_floor(folder, nats, postgres)
        with serving(floor):
            yield nats, floor
    finally:
        nats.stop()


def text(browser: WebDriver, css: str) -> str:
    """The element's text; found again if the page redrew it between the find and the read
    (the table page redraws its parts at each event of its feed)."""
    for _ in range(10):
        try:
            return str(browser.find_element(By.CSS_SELECTOR, css).text)
        except StaleElementReferenceException:
            continue
    raise AssertionError(f"{css} redrawn ten times over while being read")


def test_the_table_page_follows_a_hand_as_it_is_dealt_with_its_hole_cards_as_backs(
    tmp_path: Path, served: tuple[NatsServer, WebFloor], browser: WebDriver
) -> None:
    nats, floor = served
    wait = WebDriverWait(browser, PATIENCE)
    mambo = fixture_lines()
    publish(nats.url, nats.table_user("T1"), "T1", mambo[:MID_HAND])
    log_in(browser, floor.base, "supervisor")
    WebDriverWait(browser, PATIENCE).until(ready.url_contains("/floor"))
    # The floor page links the table (its rows are redrawn at each event: the link is read,
    # then followed).
    wait.until(ready.presence_of_element_located((By.CSS_SELECTOR, 'tr[data-table="T1"] a')))
    assert 'href="/tables/T1"' in browser.page_source
    browser.get(f"{floor.base}/tables/T1")
    wait.until(ready.text_to_be_present_in_element((By.ID, "live"), "live"))
    wait.until(lambda d: "pot 34" in text(d, ".frame-head"))
    assert "seat 3 to act" in text(browser, ".frame-head")
    # 14.13A(c): each seat's first card face down, drawn as its back; the second face up.
    assert len(browser.find_elements(By.CSS_SELECTOR, "#hand .seat .card.down")) == 4
    assert len(browser.find_elements(By.CSS_SELECTOR, "#hand .seat .card[class*=suit-]")) == 4
    # The table deals on: the page follows without a reload.
    publish_records(
        nats.url, nats.table_user("T1"), "T1", mambo, first=MID_HAND + 1, last=SECOND_ROUND
    )
    wait.until(lambda d: "second round" in text(d, ".frame-head"))
    assert text(browser, "#chain").count(f"seq {SECOND_ROUND}") == 1
    assert "Hand 1" in text(browser, "#recent")
    browser.save_screenshot(str(shots(tmp_path) / "table.png"))
    page = browser.page_source.encode()
    assert not cards_in(page) & hidden_of(mambo[:SECOND_ROUND]) - cards_dealt_up(mambo)


def test_a_hand_is_found_by_search_and_replayed_step_by_step(
    tmp_path: Path, served: tuple[NatsServer, WebFloor], browser: WebDriver
) -> None:
    nats, floor = served
    wait = WebDriverWait(browser, PATIENCE)
    stud = fixture_lines("five-card-stud")
    publish(nats.url, nats.table_user("T2"), "T2", stud)
    log_in(browser, floor.base, "supervisor")
    WebDriverWait(browser, PATIENCE).until(ready.url_contains("/floor"))
    wait.until(lambda d: "settled" in text(d, 'tr[data-table="T2"] td.hand'))
    browser.find_element(By.LINK_TEXT, "Search").click()
    wait.until(ready.presence_of_element_located((By.ID, "search")))
    browser.find_element(By.ID, "q-table").send_keys("T2")
    browser.find_element(By.ID, "q-seat").send_keys("2")
    browser.find_element(By.ID, "q-card").send_keys("8d")  # hand 1: seat 2's up card
    browser.find_element(By.ID, "q-submit").click()
    wait.until(ready.presence_of_element_located((By.ID, "results")))
    assert browser.find_elements(By.LINK_TEXT, "T2 hand 1")
    assert "8d: seat 2 face up" in text(browser, "#results")
    browser.save_screenshot(str(shots(tmp_path) / "search.png"))
    browser.find_element(By.LINK_TEXT, "T2 hand 1").click()
    wait.until(ready.presence_of_element_located((By.ID, "replay")))
    steps = browser.find_elements(By.CSS_SELECTOR, "#steps li.step")
    assert len(steps) > 10
    # Replayed from the start, one step at a time: the table after each.
    browser.find_element(By.ID, "first").click()
    assert text(browser, "#position").startswith(f"step 1 of {len(steps)}: seats ")
    assert "before the deal" in text(browser, ".frame-head")
    for n in range(2, 7):
        browser.find_element(By.ID, "next").click()
        assert text(browser, "#position").startswith(f"step {n} of {len(steps)}")
        current = browser.find_elements(By.CSS_SELECTOR, "#steps li.current")
        assert [li.get_attribute("data-step") for li in current] == [str(n - 1)]
    dealt = len(browser.find_elements(By.CSS_SELECTOR, "#frame .seat .card"))
    browser.find_element(By.ID, "back").click()
    assert text(browser, "#position").startswith(f"step 5 of {len(steps)}")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#frame .seat .card")) == dealt - 1
    # Play steps on at a supervisor's pace, one step each 700 ms (hand.js): 45 steps here,
    # 30 s of waiting. The page's own timer is set to 10 ms instead: every step still
    # shown in turn by the page's code, up to the last, where play stops.
    browser.execute_script(
        "const paced = window.setInterval;"
        "window.setInterval = (step, _ms, ...rest) => paced(step, 10, ...rest);"
    )
    browser.find_element(By.ID, "play").click()
    wait.until(lambda d: text(d, "#position").startswith(f"step {len(steps)} of"))
    assert "settled" in text(browser, "#position")
    assert "pot " in text(browser, "#steps li.step-pot")
    browser.save_screenshot(str(shots(tmp_path) / "hand.png"))
