#!/usr/bin/env python3
"""The dashboard's Instances page with 20, 200 and 1,000 servers; Launch -> ACTIVE.

Starts `saphira up` on the fake driver (one host sized as Nova's fake driver,
SQLite), makes a public raw image and a flavor as admin, builds one server as
`demo` through the API and copies it in the databases up to each size
(bench/seed_servers.py: only the list is measured on them). For each size:

* time to first byte of `GET /project/instances` with a logged-in session's
  cookie (requests, `--runs` (5) times, p50), the dashboard's own work included:
  its calls to the compute and image APIs, the rows rendered;
* the page fully drawn in Debian's headless Chromium (tests/browser.py): from
  navigation to the load event's end, the table's rows counted afterwards,
  p50 over `--runs` fresh loads.

Then Launch -> ACTIVE: the launch form filled in the browser and submitted,
until the new row says ACTIVE on the Instances page (it changes in place,
pushed by the page's event stream; the browser is asked every 50 ms), next to
`openstack server create --wait` for the same image and flavor (the command's
wall time: its own start-up included, about 1 s here) and openstacksdk's
create polled every 50 ms. `--launches` (3) of each, p50. A run that fails
or times out is counted and printed, never dropped. Loopback only; stops the
cloud. Prints figures; asserts nothing.

    .venv/bin/python bench/dashboard.py [--runs N] [--launches N] [--sizes 20,200,1000]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import openstack
import requests
import yaml
from openstack.config.loader import OpenStackConfig
from openstack.connection import Connection
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.browser
from common import Cloud, free_offset
from control_plane import CONF
from seed_servers import seed
from tests.browser import chrome

from saphira.devtools.benchreport.figures import Figure, emit

UP_FLAGS = ["--compute-driver", "fake.FakeDriver", "--no-test-image", "--no-provider-network"]
DASHBOARD = 8080
POLL = 0.05
WAIT = 60.0
ERRORS = (RuntimeError, requests.RequestException, openstack.exceptions.SDKException,
          WebDriverException, subprocess.CalledProcessError)  # fmt: skip
# Times from the browser's own clock for the last navigation: first byte and load event end.
_TIMING = """
const n = performance.getEntriesByType('navigation')[0];
return [n.responseStart - n.startTime, n.loadEventEnd - n.startTime,
        document.querySelectorAll('#instances tbody tr').length];"""
_ROW_STATUS = """
for (const row of document.querySelectorAll('#instances tbody tr')) {
  if (row.querySelector('td a').textContent === arguments[0]) { return row.dataset.status; }
}
return null;"""


@dataclass
class Figures:
    """Each figure's samples, and the runs that failed, by label."""

    samples: dict[str, list[float]] = field(default_factory=dict)
    failed: dict[str, list[str]] = field(default_factory=dict)

    def add(self, label: str, seconds: float) -> None:
        self.samples.setdefault(label, []).append(seconds)

    def fail(self, label: str, why: str) -> None:
        self.failed.setdefault(label, []).append(why)

    def line(self, label: str) -> str:
        got, lost = self.samples.get(label, []), self.failed.get(label, [])
        figure = f"p50 {statistics.median(got) * 1000:8.0f} ms" if got else "   no sample"
        spread = f" (min {min(got) * 1000:.0f}, max {max(got) * 1000:.0f})" if got else ""
        failed = f", {len(lost)} failed: {lost[0]}" if lost else ""
        return f"  {label:<52} {figure}{spread}, {len(got)} runs{failed}"


@dataclass
class Bench:
    cloud: Cloud
    admin: Connection
    demo: Connection
    password: str
    image: str
    flavor: str
    figures: Figures = field(default_factory=Figures)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{DASHBOARD + self.cloud.port_offset}"

    def session(self) -> requests.Session:
        """A logged-in session of `demo`, through the login form as a browser posts it."""
        http = requests.Session()
        form = http.get(f"{self.base}/auth/login", timeout=30)
        token = re.search(r'name="csrf_token" value="([^"]+)"', form.text)
        if token is None:
            raise RuntimeError("the login form has no CSRF token")
        done = http.post(f"{self.base}/auth/login", timeout=30, data={
            "csrf_token": token.group(1), "next": "", "username": "demo",
            "password": self.password, "domain": "Default"})  # fmt: skip
        if "/auth/logout" not in done.text:
            raise RuntimeError(f"logging in failed: {done.status_code}")
        return http

    def first_bytes(self, size: int, runs: int) -> None:
        label = f"first byte of the Instances page, {size:,} servers"
        http = self.session()
        for _ in range(runs):
            began = time.perf_counter()
            with http.get(f"{self.base}/project/instances", stream=True, timeout=WAIT) as got:
                next(got.iter_content(1))
                took = time.perf_counter() - began
                body = got.content
            if got.status_code != 200 or body.count(b'<tr id="server-') < size:
                self.figures.fail(label, f"HTTP {got.status_code}")
            else:
                self.figures.add(label, took)

    def drawn(self, driver: WebDriver, size: int, runs: int) -> None:
        label = f"Instances page fully drawn in Chromium, {size:,} servers"
        for _ in range(runs):
            driver.get(f"{self.base}/project/instances")
            first, loaded, rows = driver.execute_script(_TIMING)
            if rows < size:
                self.figures.fail(label, f"{rows} rows drawn")
                continue
            self.figures.add(label, loaded / 1000)
            self.figures.add(f"  (its first byte, as the browser saw it), {size:,}", first / 1000)

    def launch_in_page(self, driver: WebDriver, name: str) -> None:
        label = "Launch clicked -> ACTIVE shown on the Instances page"
        driver.get(f"{self.base}/project/instances/launch")
        driver.find_element(By.ID, "name").send_keys(name)
        Select(driver.find_element(By.ID, "image")).select_by_value(self.image)
        Select(driver.find_element(By.ID, "flavor")).select_by_value(self.flavor)
        began = time.perf_counter()
        driver.find_element(By.ID, "submit").click()
        status = _until(lambda: driver.execute_script(_ROW_STATUS, name) == "ACTIVE")
        self._record(label, began, status, name)

    def launch_by_cli(self, name: str) -> None:
        command = ["openstack", "--os-cloud", "demo", "server", "create", "--wait", "--image",
                   self.image, "--flavor", self.flavor, "--nic", "none", name]  # fmt: skip
        env = {"OS_CLIENT_CONFIG_FILE": str(self.cloud.state_dir / "clouds.yaml"),
               "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin"}  # fmt: skip
        began = time.perf_counter()
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=WAIT)
        label = "openstack server create --wait (the CLI's start-up included)"
        self._record(label, began, done.returncode == 0, done.stderr.strip()[-80:])

    def launch_by_sdk(self, name: str) -> None:
        began = time.perf_counter()
        server = self.demo.compute.create_server(
            name=name, image_id=self.image, flavor_id=self.flavor, networks="none"
        )
        status = _until(lambda: self.demo.compute.get_server(server.id).status == "ACTIVE")
        self._record("openstacksdk create, polled every 50 ms", began, status, name)

    def _record(self, label: str, began: float, ok: bool, why: str) -> None:
        if ok:
            self.figures.add(label, time.perf_counter() - began)
        else:
            self.figures.fail(label, f"not ACTIVE within {WAIT:.0f} s: {why}")


def _until(check: Callable[[], bool]) -> bool:
    """Asks ``check`` every POLL seconds (sleeping between) for at most WAIT seconds."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(POLL)
    return False


def log_in(driver: WebDriver, bench: Bench) -> None:
    driver.get(f"{bench.base}/auth/login")
    driver.find_element(By.ID, "username").send_keys("demo")
    driver.find_element(By.ID, "password").send_keys(bench.password)
    driver.find_element(By.ID, "login").click()
    if not _until(lambda: bool(driver.find_elements(By.ID, "instances"))):
        raise RuntimeError("the browser did not reach the Instances page")


def prepare(cloud: Cloud) -> Bench:
    clouds = cloud.state_dir / "clouds.yaml"
    config = OpenStackConfig(config_files=[str(clouds)], load_envvars=False)
    admin = Connection(config=config.get_one(cloud="admin"))
    demo = Connection(config=config.get_one(cloud="demo"))
    image = admin.image.create_image(name="bench-raw", data=b"\0" * 4096, disk_format="raw",
                                     container_format="bare", visibility="public")  # fmt: skip
    flavor = admin.compute.create_flavor(name="bench.tiny", ram=64, vcpus=1, disk=1)
    password = yaml.safe_load(clouds.read_text())["clouds"]["demo"]["auth"]["password"]
    return Bench(cloud, admin, demo, password, image.id, flavor.id)


def measure(bench: Bench, sizes: list[int], runs: int, launches: int) -> None:
    template = bench.demo.compute.create_server(
        name="template", image_id=bench.image, flavor_id=bench.flavor, networks="none"
    )
    bench.demo.compute.wait_for_server(template, wait=int(WAIT))
    have = 1
    with chrome() as page:
        log_in(page.driver, bench)
        for count in range(launches):
            bench.launch_in_page(page.driver, f"page-{count}")
            bench.launch_by_cli(f"cli-{count}")
            bench.launch_by_sdk(f"sdk-{count}")
        have += 3 * launches
        for size in sizes:
            if size > have:
                seed(bench.cloud.state_dir, template.id, size - have)
                have = size
            bench.first_bytes(size, runs)
            bench.drawn(page.driver, size, runs)


def emit_figures(figures: Figures, sizes: list[int]) -> None:
    """The report's figures (bench/report.py): each p50 in ms, by a stable key."""
    keys = {
        "Launch clicked -> ACTIVE shown on the Instances page": "launch_page",
        "openstack server create --wait (the CLI's start-up included)": "launch_cli",
        "openstacksdk create, polled every 50 ms": "launch_sdk",
    }
    for size in sizes:
        keys[f"first byte of the Instances page, {size:,} servers"] = f"first_byte_{size}"
        keys[f"Instances page fully drawn in Chromium, {size:,} servers"] = f"drawn_{size}"
    for label, key in keys.items():
        if got := figures.samples.get(label):
            emit(Figure(f"dashboard.{key}", f"{label}, p50", statistics.median(got) * 1000, "ms"))
    failed = sum(len(lost) for lost in figures.failed.values())
    emit(Figure("dashboard.failed", "launches and page loads that failed", failed, "runs"))


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--runs", type=int, default=5, help="page loads per size (default 5)")
    parser.add_argument("--launches", type=int, default=3, help="launches each way (default 3)")
    parser.add_argument("--sizes", default="20,200,1000", help="servers (default 20,200,1000)")
    return parser.parse_args()


def main() -> int:
    args = arguments()
    sizes = sorted(int(size) for size in args.sizes.split(","))
    warnings.filterwarnings("ignore", category=PendingDeprecationWarning, module="openstack")
    work = Path(tempfile.mkdtemp(prefix="saphira-bench-dashboard-"))
    (work / "bench.conf").write_text(CONF)
    cloud = Cloud([sys.executable, "-m", "saphira.cmd.up"], work / "state", free_offset(),
                  work / "saphira.log", extra_args=["--config-file", str(work / "bench.conf"),
                                                    *UP_FLAGS])  # fmt: skip
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    try:
        print(f"saphira up (fake driver, one host) ready after {cloud.start():.1f} s")
        bench = prepare(cloud)
        measure(bench, sizes, args.runs, args.launches)
    except ERRORS as error:
        cloud.stop()
        print(f"dashboard benchmark stopped: {error!r}\n  saphira log kept: {cloud.log_path}")
        return 1
    cloud.stop()
    for label in dict.fromkeys([*bench.figures.samples, *bench.figures.failed]):
        print(bench.figures.line(label))
    emit_figures(bench.figures, sizes)
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
