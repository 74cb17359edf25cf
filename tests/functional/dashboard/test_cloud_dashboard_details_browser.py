"""An instance's page in Debian's headless Chromium against a real `saphira up` (fake
driver, serial consoles on): the serial console shows the guest's text and sends a
line on Enter, the framed noVNC console connects to the guest (the page's CSP lets
both through), then a resize is followed on the page without a reload to
VERIFY_RESIZE, confirmed, and seen ACTIVE on the new flavor; a screenshot per step is
kept under the test's tmp dir."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from tests.browser import NoVncPage, chrome
from tests.functional.clients import sdk
from tests.functional.cloud import Cloud
from tests.functional.dashboard.pages import Pages
from tests.functional.dashboard.world import World, dashboard_cloud

pytestmark = pytest.mark.functional
NAME = "resized-in-the-browser"


@pytest.fixture(scope="module")
def cloud(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cloud]:
    where = tmp_path_factory.mktemp("details-browser")
    with dashboard_cloud(where, "[serial_console]\nenabled = true\n") as running:
        yield running


def _active_server(cloud: Cloud, world: World) -> tuple[str, str]:
    """demo's server, ACTIVE, and a second flavor it can be resized to."""
    small = sdk(cloud.clouds_yaml, "admin").compute.create_flavor(
        name="dash.small", ram=128, vcpus=1, disk=1
    )
    demo = sdk(cloud.clouds_yaml, "demo")
    made = demo.compute.create_server(
        name=NAME, image_id=world.image_id, flavor_id=world.flavor_id, networks="none"
    )
    demo.compute.wait_for_server(made, status="ACTIVE", interval=0.5, wait=60)
    return str(made.id), str(small.id)


def test_consoles_then_a_resize_followed_live_and_confirmed(
    cloud: Cloud, world: World, tmp_path: Path
) -> None:
    server_id, small = _active_server(cloud, world)
    with chrome() as browser:
        pages = Pages(browser, world.base, tmp_path)
        driver, text = pages.driver, pages.text
        # The instance's page asks for a login first and comes back to it.
        pages.log_in("demo", world.demo_password, f"/project/instances/{server_id}", "serial")
        pages.until("the serial console's text", lambda: "SAPHIRA-GUEST:" in text("serial"))
        driver.find_element(By.ID, "serial-input").send_keys("root" + Keys.ENTER)
        pages.until("the guest's answer", lambda: text("serial").count("login:") >= 2)
        assert "root" in text("serial")
        driver.switch_to.frame(driver.find_element(By.ID, "novnc"))
        # The fake guest's RFB server shakes hands and names itself; it draws nothing
        # (a libvirt cloud's test must see the guest's screen drawn, "drawn").
        novnc = NoVncPage(browser.driver)
        pages.until("noVNC", lambda: novnc.state().connected
                    or "fail" in novnc.state().status.lower())  # fmt: skip
        state = novnc.state()
        assert state.connected and "instance-" in state.status, state
        driver.switch_to.default_content()
        pages.shot("consoles", at="serial")

        driver.find_element(By.CSS_SELECTOR, "a[data-action='resize']").click()
        Select(driver.find_element(By.ID, "flavor")).select_by_value(small)
        pages.shot("resize")
        driver.find_element(By.ID, "submit").click()
        pages.shown("facts")  # the instance's page
        driver.execute_script("window.notReloaded = true;")  # gone if the page loads again
        steps: set[str] = set()

        def verify() -> bool:
            steps.add(text("step"))
            return text("status") == "VERIFY_RESIZE"

        pages.until("VERIFY_RESIZE", verify, timeout=60)
        assert any(s.startswith("Resizing: step") for s in steps), steps
        assert driver.execute_script("return window.notReloaded === true;")
        assert "confirm the new flavor" in text("step")
        pages.shot("verify-resize")

        driver.find_element(By.CSS_SELECTOR, "a[data-action='confirm_resize']").click()
        assert "can no longer go back" in text("warning")
        pages.shot("confirm-resize")
        driver.find_element(By.ID, "confirm").click()
        pages.until("ACTIVE again", lambda: text("status") == "ACTIVE" and not text("step"))
        assert text("flavor") == "dash.small"
        pages.until("the confirmation in the history", lambda: "confirmResize" in text("history"))
        pages.shot("resized")
    assert len(list(tmp_path.glob("*.png"))) == pages.taken == 5
