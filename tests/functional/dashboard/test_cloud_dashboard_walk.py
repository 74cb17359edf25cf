"""The compute node guide's Horizon walk, whole, in Debian's headless Chromium.

Against a real cloud (``provider_cloud``, shared with the other guest modules):
`saphira up` with libvirt (TCG), Open vSwitch, dnsmasq and the provider
network on a bridge of its own. As the guide asks and only
through the pages: the admin makes a small flavor; `demo` uploads the tiny
image through the form (its format detected), opens SSH to everyone in the
default group (the page warns of it), launches an instance on `provider`,
watches it turn ACTIVE on the Instances page without a reload and sees its
address, opens its page and sees the guest's screen drawn in the framed
noVNC console and its boot in the console log, then Shut Off, Start, Reboot,
Rebuild (confirmed) and Delete (confirmed), each seen on the page; last, the
admin sees the hypervisor up and both agents alive with the bridge mapping.
A screenshot of each page is kept in the test's directory (printed on failure).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from saphira.guest_image import DISK_NAME, READY
from tests.browser import chrome
from tests.functional.clients import sdk
from tests.functional.cloud import Cloud
from tests.functional.conftest import ProviderCloud
from tests.functional.dashboard.pages import Pages
from tests.functional.test_cloud_libvirt import wait_console

pytestmark = [pytest.mark.functional, pytest.mark.xdist_group("libvirt")]
GUEST = 180.0  # a TCG guest's build, boot, shutdown or rebuild on a busy 2-core machine
NAME, FLAVOR, IMAGE = "walk-vm", "walk.small", "walk-image"
# The status of the Instances table's row of a server name; null: no such row.
_ROW = """
for (const row of document.querySelectorAll('#instances tbody tr')) {
  if (row.querySelector('td a').textContent === arguments[0]) {
    return [row.dataset.status, Array.from(row.querySelectorAll('.addr'), (a) => a.textContent)];
  }
}
return null;"""
# The instance page's status and task, and the name of its latest action, at one instant.
_FACTS = """
const latest = document.querySelector('#history-body tr td');
return [document.getElementById('status').innerText, document.getElementById('task').innerText,
        latest ? latest.innerText : ''];"""


@dataclass(frozen=True)
class Walk:
    cloud: Cloud
    bridge: str
    passwords: dict[str, str]

    @property
    def base(self) -> str:
        return self.cloud.url("dashboard").rstrip("/")


@pytest.fixture(scope="module")
def walk(provider_cloud: ProviderCloud) -> Walk:
    cloud = provider_cloud.cloud
    clouds = yaml.safe_load(cloud.clouds_yaml.read_text())["clouds"]
    passwords = {name: clouds[name]["auth"]["password"] for name in ("admin", "demo")}
    return Walk(cloud, provider_cloud.bridge, passwords)


def test_the_guides_walk_through_the_dashboard(walk: Walk, tmp_path: Path) -> None:
    with chrome() as browser:
        pages = Pages(browser, walk.base, tmp_path)
        try:
            _walk(pages, walk)
        except BaseException:
            pages.shot("failed")
            print(f"the walk's screenshots: {tmp_path}")
            raise
    assert len(list(tmp_path.glob("*.png"))) == pages.taken >= 16


def _walk(pages: Pages, walk: Walk) -> None:
    pages.log_in("admin", walk.passwords["admin"])
    flavor = _make_flavor(pages)
    pages.log_out()
    pages.log_in("demo", walk.passwords["demo"])
    image = _upload_image(pages, walk.cloud.state_dir / "test-image" / DISK_NAME)
    _open_ssh(pages)
    _launch(pages, walk, image, flavor)
    _console(pages, walk)
    _lifecycle(pages)
    pages.log_out()
    pages.log_in("admin", walk.passwords["admin"])
    _hosts_and_agents(pages, walk.bridge)


def _make_flavor(pages: Pages) -> str:
    pages.follow("Admin", "Flavors", "flavors")
    pages.driver.find_element(By.ID, "create").click()
    pages.shown("vcpus")
    for field, value in (("name", FLAVOR), ("vcpus", "1"), ("ram", "128"), ("disk", "1")):
        box = pages.driver.find_element(By.ID, field)
        box.clear()
        box.send_keys(value)
    pages.shot("create-flavor")
    pages.driver.find_element(By.ID, "submit").click()
    row = pages.find(By.XPATH, f"//table[@id='flavors']//tr[td[text()='{FLAVOR}']]")
    pages.shot("flavors")
    return str(row.get_attribute("id")).removeprefix("flavor-")


def _upload_image(pages: Pages, qcow2: Path) -> str:
    pages.follow("Project", "Images", "create-image").click()
    pages.shown("file").send_keys(str(qcow2))
    pages.driver.find_element(By.ID, "name").send_keys(IMAGE)
    detect = pages.driver.find_element(By.CSS_SELECTOR, "#disk_format option[value='']")
    pages.until("the format guessed from the file", lambda: "QCOW2" in detect.text)
    pages.shot("upload-image")
    pages.driver.find_element(By.ID, "submit").click()
    status = pages.shown("image-status")
    pages.until("the image active", lambda: status.text == "active", timeout=120)
    pages.shot("image-active")
    link = str(pages.driver.find_element(By.ID, "image-link").get_attribute("href"))
    return link.rstrip("/").rsplit("/", 1)[1]


def _open_ssh(pages: Pages) -> None:
    """SSH from anywhere into the default group: warned of on the form and once added."""
    pages.follow("Network", "Security groups", "groups")
    pages.driver.find_element(By.LINK_TEXT, "default").click()
    pages.shown("add-rule").click()
    Select(pages.shown("preset")).select_by_value("ssh")
    pages.driver.find_element(By.ID, "submit").click()
    assert "SSH (TCP port 22)" in pages.shown("exposure").text
    pages.shot("ssh-rule-warned")
    pages.driver.find_element(By.ID, "submit").click()
    assert "open to every address" in pages.shown("added-warning").text
    pages.shot("ssh-rule-added")


def _launch(pages: Pages, walk: Walk, image: str, flavor: str) -> None:
    pages.follow("Project", "Instances", "launch").click()
    pages.shown("name").send_keys(NAME)
    Select(pages.driver.find_element(By.ID, "image")).select_by_value(image)
    Select(pages.driver.find_element(By.ID, "flavor")).select_by_value(flavor)
    Select(pages.driver.find_element(By.ID, "network")).select_by_visible_text("provider")
    pages.shot("launch")
    pages.driver.find_element(By.ID, "submit").click()
    first = pages.until("the new row", lambda: pages.driver.execute_script(_ROW, NAME))
    pages.driver.execute_script("window.notReloaded = true;")  # gone if the page loads again
    _, addresses = pages.until(
        "the row ACTIVE with its address", lambda: _active_row(pages), timeout=GUEST
    )
    assert first[0] != "ACTIVE", "it was drawn building and changed in place"
    assert pages.driver.execute_script("return window.notReloaded === true;")
    (port,) = sdk(walk.cloud.clouds_yaml, "demo").network.ports(device_id=_server_id(walk))
    assert addresses == [port.fixed_ips[0]["ip_address"]]
    pages.shot("instance-active")


def _active_row(pages: Pages) -> list[object] | None:
    found = pages.driver.execute_script(_ROW, NAME)
    return found if found and found[0] == "ACTIVE" and found[1] else None


def _server_id(walk: Walk) -> str:
    return str(sdk(walk.cloud.clouds_yaml, "demo").compute.find_server(NAME).id)


def _console(pages: Pages, walk: Walk) -> None:
    """The guest's screen drawn in the framed console; its boot in the console log."""
    wait_console(walk.cloud, _server_id(walk), READY, 1)  # booted: its screen has its text
    pages.click(NAME, By.LINK_TEXT)  # the Instances page's row, redrawn as it changes
    frame = pages.shown("novnc")
    src = frame.get_attribute("src")
    pages.driver.switch_to.frame(frame)
    try:
        state, logged = pages.browser.drawn(60)
        seen = pages.driver.execute_script(
            "return [document.URL, document.readyState, document.body.innerText.slice(0, 300)];"
        )
        assert state.connected and state.canvas and state.canvas.ink, (state, seen, src, logged)
    finally:
        pages.driver.switch_to.default_content()
    assert READY in pages.shown("console").text
    pages.shot("console")


def _lifecycle(pages: Pages) -> None:
    """Each action from the instance's page, its end seen there without a reload."""
    _act(pages, "stop", "SHUTOFF")
    _act(pages, "start", "ACTIVE")
    _act(pages, "reboot", "ACTIVE", "reboot")
    _confirmed(pages, "rebuild", "replaces the root disk")
    pages.click(NAME, By.LINK_TEXT)
    _settled(pages, "ACTIVE", "rebuild")
    pages.shot("rebuilt")
    _confirmed(pages, "delete", "ephemeral storage")
    pages.until("the row gone", lambda: pages.driver.execute_script(_ROW, NAME) is None,
                timeout=GUEST)  # fmt: skip
    pages.shot("deleted")


def _act(pages: Pages, action: str, status: str, recorded: str = "") -> None:
    pages.click(f"#actions [data-action='{action}']")
    _settled(pages, status, recorded or action)
    pages.shot(action)


def _settled(pages: Pages, status: str, recorded: str) -> None:
    """The page says ``status`` with no task, its latest action the ``recorded`` one."""

    def done() -> bool:
        shown, task, latest = pages.driver.execute_script(_FACTS)
        return bool(shown == status and task == "None" and latest.startswith(recorded))

    pages.until(f"{recorded}: {status} on the instance's page", done, timeout=GUEST)


def _confirmed(pages: Pages, action: str, warning: str) -> None:
    pages.click(f"#actions [data-action='{action}']")
    assert warning in pages.shown("warning").text
    pages.shot(f"confirm-{action}")
    pages.driver.find_element(By.ID, "confirm").click()
    pages.shown("instances")


def _hosts_and_agents(pages: Pages, bridge: str) -> None:
    pages.follow("Admin", "Hypervisors", "hypervisors")
    states = pages.driver.find_elements(By.CSS_SELECTOR, "#hypervisors tbody tr")
    assert [row.get_attribute("data-state") for row in states] == ["up"]
    pages.shot("hypervisors")
    pages.follow("Admin", "Network agents", "agents")
    rows = {
        row.find_element(By.CSS_SELECTOR, "td a").text: row
        for row in pages.driver.find_elements(By.CSS_SELECTOR, "#agents tbody tr")
    }
    assert {"Open vSwitch agent", "DHCP agent"} <= set(rows), list(rows)
    assert all(row.get_attribute("data-alive") == "yes" for row in rows.values())
    mappings = rows["Open vSwitch agent"].find_element(By.CSS_SELECTOR, ".mappings").text
    assert mappings == f"physnet1:{bridge}"
    pages.shot("agents")
