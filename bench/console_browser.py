#!/usr/bin/env python3
"""noVNC in a real browser: console URL -> first frame drawn, in headless Chromium.

Starts `saphira up --compute-driver libvirt.LibvirtDriver --test-image`
([libvirt] virt_type = qemu: TCG), boots one tiny guest and waits for its boot
line, then, run by run, asks for a fresh console URL and times a fresh
Chromium tab (tests/browser.py: Debian's chromium through selenium) from
navigation to the first canvas with ink on it (the guest's VGA text), polling
every 50 ms. A run that draws nothing within 30 s counts as failed. Loopback
only; deletes its server and stops the cloud. Prints figures; asserts nothing.

    .venv/bin/python bench/console_browser.py [--runs N]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

import openstack
from keystoneauth1.exceptions import ClientException
from openstack.config.loader import OpenStackConfig
from openstack.connection import Connection
from selenium.common.exceptions import WebDriverException

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.browser
from common import Cloud, free_offset
from tests.browser import NoVncPage, chrome

from saphira.devtools.benchreport.figures import Figure, emit
from saphira.devtools.leftovers import purge
from saphira.guest_image import BOOTED

CONF = "[DEFAULT]\ninstances_path = {instances}\n\n[libvirt]\nvirt_type = qemu\n"
WAIT = 180.0
DRAWN_WITHIN = 30.0
ERRORS = (RuntimeError, openstack.exceptions.SDKException, ClientException, WebDriverException)


def boot(conn: Connection) -> str:
    """A tiny guest that has printed its boot line; its id."""
    image = conn.image.find_image("saphira-tiny", ignore_missing=False)
    flavor = conn.compute.find_flavor("saphira.tiny", ignore_missing=False)
    server = conn.compute.create_server(
        name="browser-bench", image_id=image.id, flavor_id=flavor.id, networks="none"
    )
    conn.compute.wait_for_server(server, wait=int(WAIT))
    deadline = time.monotonic() + WAIT
    while BOOTED not in (conn.compute.get_server_console_output(server)["output"] or ""):
        if time.monotonic() > deadline:
            raise RuntimeError("the guest never printed its boot line")
        time.sleep(1)
    return str(server.id)


def first_frame(page: NoVncPage, url: str) -> float | None:
    """Seconds from navigation to a canvas with ink; None when nothing is drawn in time."""
    began = time.perf_counter()
    page.open(url)
    while time.perf_counter() - began < DRAWN_WITHIN:
        state = page.state()
        if state.connected and state.canvas and state.canvas.ink:
            return time.perf_counter() - began
        time.sleep(0.05)
    return None


def measure(conn: Connection, server: str, runs: int) -> None:
    drawn: list[float] = []
    for _ in range(runs):
        url = conn.compute.create_server_remote_console(server, protocol="vnc", type="novnc").url
        with chrome() as page:
            seconds = first_frame(page, str(url))
        if seconds is not None:
            drawn.append(seconds)
    failed = runs - len(drawn)
    if drawn:
        print(f"  console URL -> first frame drawn (fresh Chromium tab): n={len(drawn)} "
              f"p50 {statistics.median(drawn) * 1000:.0f} ms, max {max(drawn) * 1000:.0f} ms, "
              f"failed {failed}")  # fmt: skip
        emit(
            Figure(
                "console_browser.p50",
                "console URL -> first frame drawn in Chromium, p50",
                statistics.median(drawn) * 1000,
                "ms",
            )
        )
    else:
        print(f"  console URL -> first frame drawn: every run failed ({failed})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--runs", type=int, default=5, help="browser runs (default 5)")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=PendingDeprecationWarning, module="openstack")
    work = Path(tempfile.mkdtemp(prefix="saphira-bench-browser-", dir="/var/tmp"))
    work.chmod(0o711)  # QEMU runs as its own user and must reach the instances
    instances = work / "instances"
    (work / "bench.conf").write_text(CONF.format(instances=instances))
    extra = ["--compute-driver", "libvirt.LibvirtDriver", "--test-image",
             "--config-file", str(work / "bench.conf")]  # fmt: skip
    cloud = Cloud([sys.executable, "-m", "saphira.cmd.up"], work / "state", free_offset(),
                  work / "saphira.log", extra_args=extra)  # fmt: skip
    try:
        ready = cloud.start()
        region = OpenStackConfig(
            config_files=[str(cloud.state_dir / "clouds.yaml")], load_envvars=False
        ).get_one(cloud="admin")
        conn = Connection(config=region)
        print(f"saphira browser console benchmark (libvirt, TCG, {args.runs} runs); "
              f"ready after {ready:.2f} s")  # fmt: skip
        server = boot(conn)
        measure(conn, server, args.runs)
        conn.compute.delete_server(server)
        conn.compute.wait_for_delete(conn.compute.get_server(server), wait=int(WAIT))
    except ERRORS as error:
        print(f"browser console benchmark stopped: {error}\n  saphira log kept: {cloud.log_path}")
        return 1
    finally:
        cloud.stop()
        purge(cloud.state_dir)
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
