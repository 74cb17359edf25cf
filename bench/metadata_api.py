"""The metadata API under a boot storm: ``--guests`` (50) fake-driver servers each ask
cloud-init's usual paths at once, signed as the metadata proxy signs them (the
proxy itself, the network side, is not in the path: requests go straight to
the API on loopback). Prints p50/p99/max per request for the first pass
(every instance's metadata built from the databases) and a second pass
(answered from the per-instance cache), and the same first pass with the
cache off (``[api] metadata_cache_expiration = 0``) when ``--no-cache`` is
given. Asserts nothing.

    .venv/bin/python bench/metadata_api.py [--guests 50] [--no-cache]
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import os
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests
from common import Cloud, free_offset
from control_client import Client

SECRET = "bench-metadata-secret"
PATHS = (  # what cloud-init's OpenStack data source reads, in its order
    "/openstack", "/openstack/latest/meta_data.json", "/openstack/latest/user_data",
    "/openstack/latest/vendor_data.json", "/openstack/latest/vendor_data2.json",
    "/openstack/latest/network_data.json", "/latest/meta-data/", "/latest/meta-data/instance-id",
    "/latest/meta-data/public-keys/", "/latest/user-data",
)  # fmt: skip
HOST = "[fake_driver]\nvcpus = 1000\nmemory_mb = 800000\nlocal_gb = 600000\n"  # room for all
UP_FLAGS = ["--compute-driver", "fake.FakeDriver", "--no-test-image", "--no-provider-network",
            "--user", "root"]  # fmt: skip


def _guest(url: str, server: tuple[str, str]) -> list[float]:
    """One guest's requests in turn; each one's seconds (a non-2xx/404 answer raises)."""
    uuid, project = server
    headers = {"X-Instance-ID": uuid, "X-Tenant-ID": project, "X-Forwarded-For": "10.0.0.2",
               "X-Instance-ID-Signature": hmac.new(SECRET.encode(), uuid.encode(),
                                                   hashlib.sha256).hexdigest()}  # fmt: skip
    times = []
    with requests.Session() as session:
        for path in PATHS:
            began = time.perf_counter()
            answer = session.get(url + path, headers=headers, timeout=60)
            times.append(time.perf_counter() - began)
            if answer.status_code not in (200, 404):
                raise RuntimeError(f"{path}: {answer.status_code} {answer.text[:200]}")
    return times


def _storm(url: str, servers: list[tuple[str, str]]) -> list[float]:
    with ThreadPoolExecutor(max_workers=len(servers)) as pool:
        return [t for times in pool.map(lambda s: _guest(url, s), servers) for t in times]


def _print(label: str, times: list[float]) -> None:
    ms = sorted(t * 1000 for t in times)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    print(f"{label:<34} {len(ms):>5} requests  p50 {statistics.median(ms):7.1f} ms  "
          f"p99 {p99:7.1f} ms  max {ms[-1]:7.1f} ms")  # fmt: skip


def _servers(state: Path, count: int) -> list[tuple[str, str]]:
    client = Client(state)
    client.post("md-bench", count=count)
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        listed = client.call("GET", "/servers/detail?name=^md-bench")["servers"]
        if len(listed) == count and all(s["status"] == "ACTIVE" for s in listed):
            return [(s["id"], s["tenant_id"]) for s in listed]
        if any(s["status"] == "ERROR" for s in listed):
            raise RuntimeError(f"a server went to ERROR: {listed[0].get('fault')}")
        time.sleep(0.5)
    raise RuntimeError(f"{count} servers not ACTIVE in time")


def run(work: Path, guests: int, cache: bool) -> None:
    work.mkdir(parents=True, exist_ok=True)
    conf = work / "bench.conf"
    conf.write_text(f"[neutron]\nmetadata_proxy_shared_secret = {SECRET}\n"
                    f"[api]\nmetadata_cache_expiration = {15 if cache else 0}\n"
                    f"{HOST}")  # fmt: skip
    flags = ["--config-file", str(conf), *UP_FLAGS]
    up = [sys.executable, "-m", "saphira.cmd.up"]
    cloud = Cloud(up, work / "state", free_offset(), work / "saphira.log", extra_args=flags)
    try:
        cloud.start()
        servers = _servers(work / "state", guests)
        url = f"http://127.0.0.1:{8775 + cloud.port_offset}"
        which = "cache on" if cache else "cache off"
        _print(f"{guests} guests at once, first ({which})", _storm(url, servers))
        if cache:
            _print(f"{guests} guests at once, again (cached)", _storm(url, servers))
    finally:
        cloud.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--guests", type=int, default=50)
    parser.add_argument("--no-cache", action="store_true", help="also a run with the cache off")
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}, "
          f"{os.cpu_count()} CPUs")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="saphira-md-bench-") as tmp:
        run(Path(tmp) / "on", args.guests, cache=True)
        if args.no_cache:
            run(Path(tmp) / "off", args.guests, cache=False)


if __name__ == "__main__":
    main()
