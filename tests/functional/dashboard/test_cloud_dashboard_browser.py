"""The dashboard in Debian's headless Chromium against a real `saphira up` (fake
driver): log in, launch, watch the row turn ACTIVE without a reload (the event
stream), delete through the confirmation; a screenshot of each page is kept
under the test's tmp dir."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from tests.browser import NoVncPage, chrome
from tests.functional.dashboard.pages import Pages
from tests.functional.dashboard.world import World

pytestmark = pytest.mark.functional
NAME = "in-the-browser"


@pytest.fixture
def browser() -> Iterator[NoVncPage]:
    with chrome() as opened:
        yield opened


# The status a row of the Instances table shows for a server name; null: no such row.
_ROW_STATUS = """
if (!document.getElementById('instances')) { return 'no table'; }
for (const row of document.querySelectorAll('#instances tbody tr')) {
  if (row.querySelector('td a').textContent === arguments[0]) { return row.dataset.status; }
}
return null;"""


def _status(pages: Pages, name: str) -> object:
    return pages.driver.execute_script(_ROW_STATUS, name)


def test_log_in_launch_watch_it_turn_active_and_delete_it(
    world: World, browser: NoVncPage, tmp_path: Path
) -> None:
    pages = Pages(browser, world.base, tmp_path)
    driver = pages.driver
    pages.open("/auth/login", "username")
    pages.shot("login")
    pages.log_in("demo", world.demo_password)
    pages.shot("instances")

    driver.find_element(By.ID, "launch").click()
    driver.find_element(By.ID, "name").send_keys(NAME)
    Select(driver.find_element(By.ID, "image")).select_by_value(world.image_id)
    Select(driver.find_element(By.ID, "flavor")).select_by_value(world.flavor_id)
    pages.shot("launch")
    driver.find_element(By.ID, "submit").click()
    pages.until("the new row", lambda: _status(pages, NAME) not in (None, "no table"))
    first = _status(pages, NAME)
    driver.execute_script("window.notReloaded = true;")  # gone if the page loads again
    pages.until("ACTIVE", lambda: _status(pages, NAME) == "ACTIVE")
    assert first != "ACTIVE"  # it was drawn building and changed in place
    assert driver.execute_script("return window.notReloaded === true;")
    pages.shot("active")

    row = driver.find_element(By.XPATH, f"//tr[td/a[text()='{NAME}']]")
    row.find_element(By.CSS_SELECTOR, "a[data-action='delete']").click()
    warning = driver.find_element(By.ID, "warning").text
    assert "removes the instance and its ephemeral storage" in warning
    pages.shot("confirm-delete")
    driver.find_element(By.ID, "confirm").click()
    pages.until("the row gone", lambda: _status(pages, NAME) is None)  # on the instances page
    pages.shot("deleted")
    assert len(list(tmp_path.glob("*.png"))) == pages.taken == 6
