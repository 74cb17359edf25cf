"""The dashboard in Debian's headless Chromium against a real `saphira up` (fake
driver): log in, launch, watch the row turn ACTIVE without a reload (the event
stream), delete through the confirmation; a screenshot of each page is kept
under the test's tmp dir."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select

from tests.browser import NoVncPage, chrome
from tests.functional.cloud import Cloud
from tests.functional.dashboard_world import World, dashboard_cloud, prepare

pytestmark = pytest.mark.functional
TIMEOUT = 30.0
NAME = "in-the-browser"


@pytest.fixture(scope="module")
def cloud(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cloud]:
    with dashboard_cloud(tmp_path_factory.mktemp("dashboard-browser")) as running:
        yield running


@pytest.fixture(scope="module")
def world(cloud: Cloud) -> World:
    return prepare(cloud)


@pytest.fixture
def browser() -> Iterator[NoVncPage]:
    with chrome() as opened:
        yield opened


def _until(check: Callable[[], object], what: str, timeout: float = TIMEOUT) -> object:
    """Polls ``check`` until it returns something truthy."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"{what}: not within {timeout} s")


# The status a row of the Instances table shows for a server name; null: no such row.
_ROW_STATUS = """
if (!document.getElementById('instances')) { return 'no table'; }
for (const row of document.querySelectorAll('#instances tbody tr')) {
  if (row.querySelector('td a').textContent === arguments[0]) { return row.dataset.status; }
}
return null;"""


def _status(driver: WebDriver, name: str) -> object:
    return driver.execute_script(_ROW_STATUS, name)


def test_log_in_launch_watch_it_turn_active_and_delete_it(
    world: World, browser: NoVncPage, tmp_path: Path
) -> None:
    driver = browser.driver
    shots = 0

    def shot(what: str) -> None:
        nonlocal shots
        shots += 1
        browser.screenshot(tmp_path / f"{shots:02d}-{what}.png")

    driver.get(f"{world.base}/auth/login")
    shot("login")
    driver.find_element(By.ID, "username").send_keys("demo")
    driver.find_element(By.ID, "password").send_keys(world.demo_password)
    driver.find_element(By.ID, "login").click()
    _until(lambda: driver.find_elements(By.ID, "instances"), "the instances page")
    shot("instances")

    driver.find_element(By.ID, "launch").click()
    driver.find_element(By.ID, "name").send_keys(NAME)
    Select(driver.find_element(By.ID, "image")).select_by_value(world.image_id)
    Select(driver.find_element(By.ID, "flavor")).select_by_value(world.flavor_id)
    shot("launch")
    driver.find_element(By.ID, "submit").click()
    _until(lambda: _status(driver, NAME) not in (None, "no table"), "the new row")
    first = _status(driver, NAME)
    driver.execute_script("window.notReloaded = true;")  # gone if the page loads again
    _until(lambda: _status(driver, NAME) == "ACTIVE", "ACTIVE")
    assert first != "ACTIVE"  # it was drawn building and changed in place
    assert driver.execute_script("return window.notReloaded === true;")
    shot("active")

    row = driver.find_element(By.XPATH, f"//tr[td/a[text()='{NAME}']]")
    row.find_element(By.CSS_SELECTOR, "a[data-action='delete']").click()
    warning = driver.find_element(By.ID, "warning").text
    assert "removes the instance and its ephemeral storage" in warning
    shot("confirm-delete")
    driver.find_element(By.ID, "confirm").click()
    _until(lambda: _status(driver, NAME) is None, "the row gone")  # on the instances page
    shot("deleted")
    assert len(list(tmp_path.glob("*.png"))) == 6
