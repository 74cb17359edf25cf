"""Create Image in Debian's headless Chromium against a real `saphira up`: the file
chosen in the form, its disk format guessed on the page and left to detection, both
progress bars run to their end and the image turns active on the page, then shows
Active in the list; a screenshot of each page is kept under the test's tmp dir."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

from tests.browser import NoVncPage, chrome
from tests.functional.cloud import Cloud
from tests.functional.dashboard_world import World, dashboard_cloud, prepare

pytestmark = pytest.mark.functional
TIMEOUT = 30.0
NAME = "uploaded-in-the-browser"


@pytest.fixture(scope="module")
def cloud(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cloud]:
    with dashboard_cloud(tmp_path_factory.mktemp("dashboard-images-browser")) as running:
        yield running


@pytest.fixture(scope="module")
def world(cloud: Cloud) -> World:
    return prepare(cloud)


@pytest.fixture
def browser() -> Iterator[NoVncPage]:
    with chrome() as opened:
        yield opened


def _until(check: Callable[[], object], what: str, timeout: float = TIMEOUT) -> object:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"{what}: not within {timeout} s")


def test_an_upload_shows_its_progress_to_the_end_and_the_image_active(
    world: World, browser: NoVncPage, tmp_path: Path
) -> None:
    disk = tmp_path / "disk.qcow2"
    subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", str(disk), "1G"], check=True)
    driver = browser.driver
    driver.get(f"{world.base}/auth/login")
    driver.find_element(By.ID, "username").send_keys("demo")
    driver.find_element(By.ID, "password").send_keys(world.demo_password)
    driver.find_element(By.ID, "login").click()
    _until(lambda: driver.find_elements(By.ID, "instances"), "the instances page")
    driver.find_element(By.LINK_TEXT, "Images").click()
    _until(lambda: driver.find_elements(By.ID, "create-image"), "the images page")
    driver.find_element(By.ID, "create-image").click()
    driver.find_element(By.ID, "name").send_keys(NAME)
    driver.find_element(By.ID, "file").send_keys(str(disk))
    detect = driver.find_element(By.CSS_SELECTOR, "#disk_format option[value='']")
    _until(lambda: "QCOW2" in detect.text, "the format guessed from the chosen file")
    assert driver.find_element(By.ID, "disk_format").get_attribute("value") == ""  # left to detect
    browser.screenshot(tmp_path / "01-create-image.png")
    driver.find_element(By.ID, "submit").click()

    def bar(name: str) -> str:
        return str(driver.find_element(By.ID, name).get_attribute("value"))

    _until(lambda: driver.find_element(By.ID, "image-status").text == "active", "active")
    assert (bar("send-bar"), bar("store-bar")) == ("100", "100")
    assert driver.find_element(By.ID, "store-text").text.endswith("(100 %)")
    assert driver.find_element(By.ID, "detected").text == "Disk format: QCOW2."
    assert driver.find_element(By.ID, "upload-message").text == ""
    browser.screenshot(tmp_path / "02-uploaded.png")
    driver.find_element(By.ID, "image-link").click()
    _until(lambda: driver.find_elements(By.ID, "disk-format"), "the image's page")
    assert driver.find_element(By.ID, "status").text == "Active"
    assert driver.find_element(By.ID, "disk-format").text == "QCOW2"
    driver.find_element(By.LINK_TEXT, "Images").click()
    row = driver.find_element(By.XPATH, f"//tr[td/a[text()='{NAME}']]")
    assert row.get_attribute("data-status") == "active"
    browser.screenshot(tmp_path / "03-images.png")
    assert len(list(tmp_path.glob("*.png"))) == 3
