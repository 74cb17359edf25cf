"""The Admin group in Debian's headless Chromium against a real `saphira up` (fake
driver): an admin logs in, follows the Admin navigation to Hypervisors, and the
usage charts are drawn, each bar as long as its share of the host's capacity and in
the page's colours; a screenshot of each admin page is kept under the test's tmp dir."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from selenium.webdriver.common.by import By

from tests.browser import chrome
from tests.functional.clients import sdk
from tests.functional.cloud import Cloud
from tests.functional.dashboard.pages import Pages
from tests.functional.dashboard.world import World

pytestmark = pytest.mark.functional
ACCENT = "rgb(11, 92, 173)"  # dashboard.css's --accent, the used part of a bar

# Each chart as the browser laid it out: its resource, the share it says, the drawn
# width of its used bar over its track's, and the used bar's fill.
_CHARTS = """
return Array.from(document.querySelectorAll(arguments[0] + ' figure.usage')).map((f) => {
  const track = f.querySelector('rect.track').getBoundingClientRect();
  const used = f.querySelector('rect.used');
  return [f.dataset.resource, Number(f.dataset.used), Number(f.dataset.capacity),
          track.width, used.getBoundingClientRect().width, getComputedStyle(used).fill];
});"""


def _half_the_host(cloud: Cloud, world: World) -> None:
    """A server of 8 vCPUs, 8 GiB and 100 GiB on the fake host (8 vCPUs at a ratio of 4, 16 GiB
    less 512 MiB reserved, 200 GiB): its bars are a quarter to a half long."""
    admin: Any = sdk(cloud.clouds_yaml, "admin")
    flavor = admin.compute.create_flavor(name="dash.half", vcpus=8, ram=8192, disk=100)
    server = admin.compute.create_server(name="dash-half", image_id=world.image_id,
                                         flavor_id=flavor.id, networks="none")  # fmt: skip
    admin.compute.wait_for_server(server, status="ACTIVE", wait=60, interval=0.5)


def test_the_hypervisors_usage_charts_are_drawn(cloud: Cloud, world: World, tmp_path: Path) -> None:
    _half_the_host(cloud, world)
    password = yaml.safe_load(cloud.clouds_yaml.read_text())["clouds"]["admin"]["auth"]["password"]
    with chrome() as browser:
        _walk(Pages(browser, world.base, tmp_path), password)


def _walk(pages: Pages, password: str) -> None:
    driver = pages.driver
    pages.log_in("admin", password)
    pages.shot("instances-with-admin-nav")
    pages.follow("Admin", "Hypervisors", "hypervisors")
    pages.shot("hypervisors")
    for where in ("#hypervisors", "#summary"):  # the host's row, and all hosts added up
        charts = {c[0]: c[1:] for c in driver.execute_script(_CHARTS, where)}
        assert set(charts) == {"VCPU", "MEMORY_MB", "DISK_GB"}, (where, charts)
        assert charts["VCPU"][:2] == [8, 32] and charts["DISK_GB"][:2] == [100, 200]
        for resource, (used, capacity, track, bar, fill) in charts.items():
            assert track > 100, (where, resource)  # laid out across its box, not collapsed
            assert abs(bar / track - used / capacity) < 0.02, (where, resource, bar, track)
            assert fill == ACCENT, (where, resource, fill)
    svgs = driver.find_elements(By.CSS_SELECTOR, "#hypervisors svg[role='img']")
    said = [str(svg.get_attribute("aria-label")).split(" ", 1)[1] for svg in svgs]
    assert said == ["vCPUs: 25 percent used", "RAM: 52 percent used", "Disk: 50 percent used"]
    others = (("Flavors", "flavors"), ("Compute services", "services"), ("Network agents",
              "agents"), ("Projects", "projects"), ("Users", "users"))  # fmt: skip
    for link, table in others:  # the other admin pages, as artefacts
        pages.follow("Admin", link, table)
        pages.shot(table)
    assert len(list(pages.shots.glob("*.png"))) == pages.taken == 7
