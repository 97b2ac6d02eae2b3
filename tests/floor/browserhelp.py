"""The real browser the floor web's tests drive (docs/floor-web.md, Tests): Debian's
chromium, headless, through Selenium and Debian's chromedriver; the login every browser test
goes through; where the screenshots go.

- ``browser`` (a pytest fixture, given to tests/floor by conftest.py): a headless chromium
  with a clean state each test: one chromium a worker (``chromium``, session-scoped), each test
  given a new window of it with no cookie, no cache and the first window size, left on
  ``about:blank`` after the test; a fresh chromium for the test if the worker's has died;
- ``log_in(driver, base, name)``: the login page opened and the form sent; ``fill_login`` sends
  the form of the page at hand (a refused login's page). The caller waits for where it lands;
- ``shots(tmp_path)``: TABLECTL_WEB_SCREENSHOTS=docs/floor-web writes the pages' screenshots for
  the docs; they go into the test's folder otherwise;
- ``cell(driver, table, name)``: one cell of the floor page's row of a table;
- ``click(driver, element)``: a click on a page that redraws itself, taken once nothing covers
  the element.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest
from floorhelp import PATIENCE
from selenium import webdriver
from selenium.common.exceptions import (
    ElementClickInterceptedException,
    StaleElementReferenceException,
    WebDriverException,
)
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import WebDriverWait
from webhelp import PASSWORD

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
NEEDS = "Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)"


#: The window's size each test begins with (set_window_size may change it within a test).
WINDOW: Final = (1400, 700)


def _started(profile: Path) -> WebDriver:
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        pytest.fail(f"no {CHROMIUM} or {CHROMEDRIVER}: {NEEDS}")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    # As root in a closed network: no sandbox, no GPU, nothing fetched from outside.
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--window-size={WINDOW[0]},{WINDOW[1]}",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


@pytest.fixture(scope="session")
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebDriver]:
    """One chromium a worker, started before a test's leak check looks (a fixture of a wider
    scope is set up first) and quit at the session's end: a chromium costs about 0.8 s of CPU
    to start and quit, a new window of it 0.2 s (docs/testing.md, Where the default suite's
    time goes)."""
    driver = _started(tmp_path_factory.mktemp("chromium") / "profile")
    try:
        yield driver
    finally:
        driver.quit()


def _clean(driver: WebDriver) -> bool:
    """A new window, every other closed; no cookie (of any host: the tests' servers share
    127.0.0.1, and a cookie does not tell ports apart) and nothing cached. The web view keeps
    nothing in the browser's storage but its session cookie, and a new window starts a new
    session storage. False: the chromium no longer answers (it died in an earlier test)."""
    try:
        old = driver.window_handles
        driver.switch_to.new_window("window")
        fresh = driver.current_window_handle
        for handle in old:
            driver.switch_to.window(handle)
            driver.close()
        driver.switch_to.window(fresh)
        driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
        driver.execute_cdp_cmd("Network.clearBrowserCache", {})
        driver.set_window_size(*WINDOW)
        left = driver.execute_cdp_cmd("Storage.getCookies", {})["cookies"]  # every host's
    except WebDriverException:
        return False
    assert left == [], f"cookies outlived the clean-up: {left}"
    return True


@pytest.fixture
def browser(chromium: WebDriver, tmp_path: Path) -> Iterator[WebDriver]:
    if not _clean(chromium):
        # This test gets a chromium of its own, quit after it, as every test did before the
        # worker's was shared.
        own = _started(tmp_path / "chromium-profile")
        try:
            yield own
        finally:
            own.quit()
        return
    try:
        yield chromium
    finally:
        # Off the test's pages, so no feed of theirs holds a connection to a server the
        # test's teardown stops.
        with contextlib.suppress(WebDriverException):
            chromium.get("about:blank")


def log_in(driver: WebDriver, base: str, name: str, password: str = PASSWORD) -> None:
    """Open the login page and send ``name`` and ``password``."""
    driver.get(f"{base}/login")
    WebDriverWait(driver, PATIENCE).until(ready.presence_of_element_located((By.ID, "login")))
    fill_login(driver, name, password)


def fill_login(driver: WebDriver, name: str, password: str = PASSWORD) -> None:
    """Send the login form of the page at hand."""
    driver.find_element(By.ID, "user").send_keys(name)
    driver.find_element(By.ID, "password").send_keys(password)
    driver.find_element(By.ID, "submit").click()


def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("TABLECTL_WEB_SCREENSHOTS", tmp_path / "screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def cell(driver: WebDriver, table: str, name: str) -> str:
    """The text of the floor page's cell ``name`` in ``table``'s row."""
    return read(driver, f'tr[data-table="{table}"] td.{name}')


def read(driver: WebDriver, css: str, attribute: str | None = None) -> str:
    """The element's text (or ``attribute``); found again if the page redrew it between the
    find and the read (the floor page redraws a row at each of its feed's events)."""
    for _ in range(10):
        try:
            found = driver.find_element(By.CSS_SELECTOR, css)
            return str(found.text if attribute is None else found.get_attribute(attribute))
        except StaleElementReferenceException:
            continue
    raise AssertionError(f"{css} redrawn ten times over while being read")


def click(driver: WebDriver, element: WebElement) -> None:
    """Click ``element`` as a user would, clicked again while another element covers its point.
    Chromium clicks the point where the element was when it scrolled it into view, and refuses
    the click if the page's layout has moved since then (a loaded run saw a feed's first redraw
    land in between: "not clickable at point (1283, 21). Other element would receive the
    click: <td class="ack">"). A user clicks again; the element is the same one, so what was
    typed into its form is kept. A redraw that replaced it fails as stale."""

    def clicked(_driver: WebDriver) -> bool:
        element.click()
        return True

    WebDriverWait(
        driver, PATIENCE, poll_frequency=0.1, ignored_exceptions=(ElementClickInterceptedException,)
    ).until(clicked, f"the element still covered after {PATIENCE} s")
