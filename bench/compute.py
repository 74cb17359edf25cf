"""Compute figures on `saphira up` with the fake driver: create->ACTIVE latency,
100 concurrent creates, GET /servers/detail with 1,000 servers, RSS.

Loopback only; every wait is bounded. Prints figures, never asserts them.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import requests
import yaml
from common import Cloud, free_offset, rss_kib
from tokens import password_body

CONF = """[fake_driver]
hosts = bench1, bench2, bench3, bench4
vcpus = 1024
memory_mb = 1048576
local_gb = 100000
"""
WAIT = 300.0


class Api:
    """The admin's token and the compute and image endpoints of the cloud."""

    def __init__(self, cloud: Cloud) -> None:
        clouds = yaml.safe_load((cloud.state_dir / "clouds.yaml").read_text())
        password = clouds["clouds"]["admin"]["auth"]["password"]
        made = requests.post(f"{cloud.identity_url}/auth/tokens", json=password_body(password),
                             timeout=30)  # fmt: skip
        self.token = made.headers["X-Subject-Token"]
        self.project = made.json()["token"]["project"]["id"]
        self.compute = f"http://127.0.0.1:{8774 + cloud.port_offset}/v2.1"
        self.image = f"http://127.0.0.1:{9292 + cloud.port_offset}/v2"
        self.session = requests.Session()
        self.session.headers.update({"X-Auth-Token": self.token,
                                     "OpenStack-API-Version": "compute 2.100"})  # fmt: skip

    def call(self, method: str, path: str, body: Any = None) -> Any:
        response = self.session.request(method, f"{self.compute}{path}", json=body, timeout=60)
        if response.status_code >= 400:
            raise RuntimeError(f"{method} {path}: {response.status_code} {response.text}")
        return response.json() if response.content else None


def prepare(api: Api) -> tuple[str, str]:
    """A 1-vCPU flavor, a 1 KiB raw image and quotas big enough for the run."""
    flavor = api.call("POST", "/flavors", {"flavor": {"name": "bench", "ram": 64, "vcpus": 1,
                                                      "disk": 1}})["flavor"]["id"]  # fmt: skip
    headers = {"X-Auth-Token": api.token}
    body = {"name": "bench", "disk_format": "raw", "container_format": "bare"}
    made = requests.post(f"{api.image}/images", headers=headers, timeout=30, json=body)
    image = made.json()["id"]
    requests.put(f"{api.image}/images/{image}/file", data=bytes(1024), timeout=30,
                 headers={**headers, "Content-Type": "application/octet-stream"})  # fmt: skip
    api.call("PUT", f"/os-quota-sets/{api.project}", {"quota_set": {
        "instances": 5000, "cores": 5000, "ram": 5000 * 64}})  # fmt: skip
    return flavor, image


def create(api: Api, flavor: str, image: str, count: int = 1) -> list[str]:
    server = {"name": "b", "flavorRef": flavor, "imageRef": image, "networks": "none",
              "min_count": count, "max_count": count, "return_reservation_id": True}  # fmt: skip
    reservation = api.call("POST", "/servers", {"server": server})["reservation_id"]
    found = api.call("GET", f"/servers?reservation_id={reservation}&limit=1000")["servers"]
    return [s["id"] for s in found]


def until_active(api: Api, ids: set[str]) -> float:
    """Seconds until every server in ``ids`` is ACTIVE (polling the detail list)."""
    began = time.perf_counter()
    pending = set(ids)
    while pending:
        listed = api.call("GET", "/servers/detail?status=ACTIVE&limit=1000")["servers"]
        pending -= {s["id"] for s in listed}
        errors = api.call("GET", "/servers/detail?status=ERROR&limit=1000")["servers"]
        if pending & {s["id"] for s in errors}:
            raise RuntimeError("servers went to ERROR; see the saphira log")
        if time.perf_counter() - began > WAIT:
            raise RuntimeError(f"{len(pending)} servers not ACTIVE after {WAIT:.0f} s")
        time.sleep(0.02)
    return time.perf_counter() - began


def one_latency(api: Api, flavor: str, image: str) -> float:
    """POST /servers to ACTIVE, polling GET /servers/{id} tightly."""
    server = {"name": "one", "flavorRef": flavor, "imageRef": image, "networks": "none"}
    began = time.perf_counter()
    server_id = api.call("POST", "/servers", {"server": server})["server"]["id"]
    while api.call("GET", f"/servers/{server_id}")["server"]["status"] != "ACTIVE":
        if time.perf_counter() - began > WAIT:
            raise RuntimeError(f"{server_id} not ACTIVE after {WAIT:.0f} s")
    return time.perf_counter() - began


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def run(cloud: Cloud, args: argparse.Namespace) -> None:
    ready = cloud.start()
    assert cloud.proc is not None
    api = Api(cloud)
    flavor, image = prepare(api)
    print(f"saphira compute benchmark (fake driver, 4 simulated hosts); ready after {ready:.2f} s")
    one_latency(api, flavor, image)  # warm-up: first-use caches, connection pools
    singles = [one_latency(api, flavor, image) for _ in range(args.singles)]
    print(f"  create->ACTIVE, one server ({args.singles} runs): "
          f"p50 {statistics.median(singles) * 1000:.0f} ms, "
          f"p99 {percentile(singles, 0.99) * 1000:.0f} ms")  # fmt: skip
    lock = threading.Lock()
    made: set[str] = set()

    def one(_: int) -> None:
        ids = create(api, flavor, image)
        with lock:
            made.update(ids)

    began = time.perf_counter()
    with ThreadPoolExecutor(max_workers=args.concurrent) as pool:
        list(pool.map(one, range(args.concurrent)))
    accepted = time.perf_counter() - began
    total = accepted + until_active(api, made)
    print(f"  {args.concurrent} concurrent creates: all accepted in {accepted:.2f} s, "
          f"all ACTIVE in {total:.2f} s")  # fmt: skip
    have = len(api.call("GET", "/servers?limit=1000")["servers"])
    batch: set[str] = set()
    while have + len(batch) < args.servers:
        batch.update(create(api, flavor, image, min(100, args.servers - have - len(batch))))
    until_active(api, batch)
    times = []
    for _ in range(args.lists):
        began = time.perf_counter()
        listed = api.call("GET", "/servers/detail?limit=1000")["servers"]
        times.append(time.perf_counter() - began)
    print(f"  GET /servers/detail with {len(listed)} servers ({args.lists} runs): "
          f"p50 {statistics.median(times) * 1000:.0f} ms, "
          f"p99 {percentile(times, 0.99) * 1000:.0f} ms")  # fmt: skip
    brief = []
    for _ in range(args.lists):
        began = time.perf_counter()
        api.call("GET", "/servers?limit=1000")
        brief.append(time.perf_counter() - began)
    print(f"  GET /servers (brief), same servers: p50 {statistics.median(brief) * 1000:.0f} ms")
    print(f"  RSS of the all-in-one: {rss_kib(cloud.proc.pid) / 1024:.1f} MiB")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--singles", type=int, default=50, help="one-server runs (default 50)")
    parser.add_argument("--concurrent", type=int, default=100, help="default 100")
    parser.add_argument("--servers", type=int, default=1000, help="for the list (default 1000)")
    parser.add_argument("--lists", type=int, default=20, help="list requests (default 20)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="saphira-bench-compute-"))
    (work / "bench.conf").write_text(CONF)
    extra = ["--config-file", str(work / "bench.conf")]
    cloud = Cloud([sys.executable, "-m", "saphira.cmd.up"], work / "state", free_offset(),
                  work / "saphira.log", extra_args=extra)  # fmt: skip
    try:
        run(cloud, args)
    except (RuntimeError, requests.RequestException) as error:
        cloud.stop()
        print(f"compute benchmark stopped: {error}\n  saphira log kept: {cloud.log_path}")
        return 1
    cloud.take_away()
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
