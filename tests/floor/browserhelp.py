"""The real browser the floor web's tests drive (docs/floor-web.md, Tests): Debian's
chromium, headless, through Selenium and Debian's chromedriver; the login every browser test
goes through; where the screenshots go.

- ``browser`` (a pytest fixture, given to tests/floor by conftest.py): a fresh headless
  chromium with a profile of its own in the test's folder, quit after the test;
- ``log_in(driver, base, name)``: the login page opened and the form sent; ``fill_login`` sends
  the form of the page at hand (a refused login's page). The caller waits for where it lands;
- ``shots(tmp_path)``: TABLECTL_WEB_SCREENSHOTS=docs/floor-web writes the pages' screenshots for
  the docs; they go into the test's folder otherwise;
- ``cell(driver, table, name)``: one cell of the floor page's row of a table.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from floorhelp import PATIENCE
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import WebDriverWait
from webhelp import PASSWORD

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
NEEDS = "Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)"


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[WebDriver]:
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
        "--window-size=1400,700",
        f"--user-data-dir={tmp_path / 'chromium-profile'}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


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
