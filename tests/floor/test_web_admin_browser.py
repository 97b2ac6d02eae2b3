"""The admin's user pages in a real browser (docs/floor-web.md, The
admin's user pages): Debian's chromium, headless, through Selenium, against the real ``floor
web`` over a real PostgreSQL. An admin logs in, lands on the users page, adds a supervisor; the
new user logs in with the password the admin gave.

TABLECTL_WEB_SCREENSHOTS=docs/floor-web writes the users page's screenshot for the docs (as
test_web_browser.py).
"""

from __future__ import annotations

from pathlib import Path

import psycopg
from browserhelp import fill_login, log_in, shots
from floorhelp import PATIENCE
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.select import Select
from selenium.webdriver.support.ui import WebDriverWait
from servershelp import NatsFactory
from webhelp import WebProcess, web_floor

from simulator.servers_pg import PostgresServer

GIVEN = "given by the admin, 2026"
OWN = "the pit boss's own, changed"


def test_an_admin_adds_a_user_who_then_logs_in(
    tmp_path: Path, nats_factory: NatsFactory, postgres: PostgresServer, browser: WebDriver
) -> None:
    floor = web_floor(tmp_path, nats_factory(("T1",)), postgres)
    web = WebProcess(floor)
    wait = WebDriverWait(browser, PATIENCE)
    try:
        log_in(browser, floor.base, "admin")
        wait.until(ready.presence_of_element_located((By.ID, "user-list")))
        assert browser.current_url == f"{floor.base}/admin/users"  # where an admin lands
        users_link = browser.find_element(By.LINK_TEXT, "Users").get_attribute("href")
        assert users_link == f"{floor.base}/admin/users"
        assert not browser.find_elements(By.LINK_TEXT, "Floor")  # the admin sees no hand
        # A password too short is refused, naming what was expected (the browser's own check
        # taken off, so the server's is what answers).
        name = browser.find_element(By.ID, "new-name")
        name.send_keys("pit.boss")
        Select(browser.find_element(By.ID, "new-role")).select_by_visible_text("supervisor")
        short = browser.find_element(By.ID, "new-password")
        browser.execute_script("arguments[0].removeAttribute('minlength')", short)
        short.send_keys("too short")
        browser.find_element(By.ID, "add").click()
        error = wait.until(ready.presence_of_element_located((By.ID, "admin-error")))
        assert error.text == "the password has 9 characters: expected 12+"
        assert browser.find_element(By.ID, "new-name").get_attribute("value") == "pit.boss"
        assert browser.find_element(By.ID, "new-password").get_attribute("value") == ""
        # Now right: the list and the log of changes show the new user.
        browser.find_element(By.ID, "new-password").send_keys(GIVEN)
        browser.find_element(By.ID, "add").click()
        row = wait.until(
            ready.presence_of_element_located((By.CSS_SELECTOR, 'tr[data-user="pit.boss"]'))
        )
        assert row.find_element(By.CSS_SELECTOR, "td.role").text == "supervisor"
        assert row.find_element(By.CSS_SELECTOR, "td.status").text == "enabled"
        latest = browser.find_element(By.CSS_SELECTOR, "#user-changes tbody tr")
        assert latest.find_element(By.CSS_SELECTOR, "td.actor").text == "admin"
        assert latest.find_element(By.CSS_SELECTOR, "td.what").text == "added as supervisor"
        # Disabled with one click: the row greys, its button enables again.
        browser.find_element(By.CSS_SELECTOR, 'tr[data-user="auditor"] button.disable').click()
        wait.until(
            ready.presence_of_element_located((By.CSS_SELECTOR, 'tr.disabled[data-user="auditor"]'))
        )
        disabled = browser.find_element(By.CSS_SELECTOR, 'tr[data-user="auditor"]')
        assert disabled.find_element(By.CSS_SELECTOR, "td.status").text == "disabled"
        assert disabled.find_element(By.CSS_SELECTOR, "button.enable").text == "Enable"
        browser.set_window_size(1400, 1000)  # the list, the form and the log in one picture
        browser.save_screenshot(str(shots(tmp_path) / "users.png"))

        # The admin logs out; the new user logs in with the password given, as a supervisor.
        browser.find_element(By.CSS_SELECTOR, "form.logout button").click()
        wait.until(ready.presence_of_element_located((By.ID, "login")))
        fill_login(browser, "pit.boss", GIVEN)
        wait.until(ready.url_to_be(f"{floor.base}/floor"))
        who = browser.find_element(By.CSS_SELECTOR, "header .who").text
        assert who == "pit.boss (supervisor)"
        assert not browser.find_elements(By.LINK_TEXT, "Users")
        assert browser.find_elements(By.LINK_TEXT, "Floor")
        # The new user makes the password their own: their name in the header, the form, then
        # the login page again (every session of theirs ended), where the new one logs in.
        browser.find_element(By.ID, "account").click()
        wait.until(ready.presence_of_element_located((By.ID, "own-password")))
        browser.find_element(By.ID, "current").send_keys(GIVEN)
        browser.find_element(By.ID, "new").send_keys(OWN)
        browser.find_element(By.ID, "again").send_keys(OWN)
        browser.set_window_size(1000, 700)
        browser.save_screenshot(str(shots(tmp_path) / "account-password.png"))
        browser.find_element(By.ID, "change").click()
        notice = wait.until(ready.presence_of_element_located((By.ID, "login-changed")))
        assert notice.text == "Your password was changed: log in with the new one."
        fill_login(browser, "pit.boss", OWN)
        wait.until(ready.url_to_be(f"{floor.base}/floor"))
        with psycopg.connect(floor.db.owner) as conn:
            logged = conn.execute("SELECT actor, user_name, change FROM web.user_changes")
            assert logged.fetchall() == [
                ("admin", "pit.boss", "added as supervisor"),
                ("admin", "auditor", "disabled"),
                ("pit.boss", "pit.boss", "own password set"),
            ]
    finally:
        assert web.stop() == 0, web.log.read_text()
