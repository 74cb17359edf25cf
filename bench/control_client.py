"""The benchmark's client: openstacksdk as the cloud's admin, polling every 50 ms."""

from __future__ import annotations

import queue
import re
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from openstack.config.loader import OpenStackConfig
from openstack.connection import Connection
from openstack.exceptions import SDKException

POLL = 0.05
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
WAIT = 600.0
VERSION = "2.100"


class Failures:
    """Runs that did not end ACTIVE, by phase and why; never dropped silently."""

    def __init__(self) -> None:
        self.seen: Counter[str] = Counter()
        self._lock = threading.Lock()

    def add(self, why: str, count: int = 1) -> None:
        with self._lock:
            self.seen[UUID.sub("<id>", why)] += count

    def describe(self) -> str:
        return ", ".join(f"{n} {why}" for why, n in sorted(self.seen.items())) or "none"


class Client:
    """The admin's connection, a 1-vCPU flavor, a 1 KiB raw image and room in the quota."""

    last, name = "", ""  # the server single() made last

    def __init__(self, state_dir: Path) -> None:
        self.region = OpenStackConfig(
            config_files=[str(state_dir / "clouds.yaml")], load_envvars=False
        ).get_one(cloud="admin")
        self.conn = self.connect()
        self.flavor = self.conn.compute.create_flavor(name="bench", ram=64, vcpus=1, disk=1).id
        self.image = self._image()
        project = self.conn.current_project_id
        quota = {"instances": -1, "cores": -1, "ram": -1}
        self.call("PUT", f"/os-quota-sets/{project}", {"quota_set": quota})

    def connect(self) -> Connection:
        conn = Connection(config=self.region)
        conn.authorize()  # the token now, not inside a timed request
        return conn

    def _image(self) -> str:
        body = {"name": "bench", "disk_format": "raw", "container_format": "bare"}
        image = _ok(self.conn.image.post("/images", json=body)).json()["id"]
        headers = {"Content-Type": "application/octet-stream"}
        _ok(self.conn.image.put(f"/images/{image}/file", data=bytes(1024), headers=headers))
        return str(image)

    def call(self, method: str, path: str, body: Any = None, conn: Connection | None = None) -> Any:
        response = _ok((conn or self.conn).compute.request(
            path, method, json=body, microversion=VERSION))  # fmt: skip
        return response.json() if response.content else None

    def network(self) -> str:
        """A project network and a /16 (no agent wires it: the fake driver does not wait)."""
        network = self.conn.network.create_network(name="bench")
        self.conn.network.create_subnet(network_id=network.id, ip_version=4,
                                        cidr="10.99.0.0/16", name="bench")  # fmt: skip
        return str(network.id)

    def host(self) -> dict[str, Any]:
        """The one hypervisor, as 2.87 shows it (2.88 dropped the sizes)."""
        listed = self.conn.compute.get("/os-hypervisors/detail", microversion="2.87")
        (found,) = _ok(listed).json()["hypervisors"]
        return dict(found)

    def post(
        self, name: str, count: int = 1, conn: Connection | None = None, network: str | None = None
    ) -> Any:
        networks: Any = [{"uuid": network}] if network else "none"
        server = {"name": name, "flavorRef": self.flavor, "imageRef": self.image,
                  "networks": networks, "min_count": count, "max_count": count}  # fmt: skip
        return self.call("POST", "/servers", {"server": server}, conn)

    def single(
        self, name: str, failures: Failures, network: str | None, *, quiet: bool = False
    ) -> float | None:
        """Seconds from POST to the first poll that shows it ACTIVE; None if it failed.

        Polls are GET /servers/{id}, or with ``quiet`` the brief list filtered by
        name and status, which the cloud answers from its databases alone.
        """
        began = time.perf_counter()
        try:
            self.last, self.name = self.post(name, network=network)["server"]["id"], name
        except (RuntimeError, SDKException) as error:
            failures.add(f"one-at-a-time create refused ({str(error)[:120]})")
            return None
        while time.perf_counter() - began < WAIT:
            status = self.quiet_poll() if quiet else self.show()["status"]
            if status == "ACTIVE":
                return time.perf_counter() - began
            if status == "ERROR":
                fault = self.show().get("fault", {}).get("message", "no fault")
                failures.add(f"one-at-a-time create went to ERROR ({fault[:120]})")
                return None
            time.sleep(POLL)
        failures.add("one-at-a-time create not ACTIVE in time")
        return None

    def show(self) -> dict[str, Any]:
        """GET /servers/{id} of the last server single() made."""
        return dict(self.call("GET", f"/servers/{self.last}")["server"])

    def quiet_poll(self) -> str:
        """ACTIVE or ERROR when the brief list shows the last server so, else BUILD."""
        for status in ("ACTIVE", "ERROR"):
            if self.call("GET", f"/servers?name=^{self.name}$&status={status}")["servers"]:
                return status
        return "BUILD"

    def connections(self, count: int) -> queue.Queue[Connection]:
        """``count`` connections, each with its token, for the threads of a burst."""
        idle: queue.Queue[Connection] = queue.Queue()
        for _ in range(count):
            idle.put(self.connect())
        return idle

    def burst(self, count: int, idle: queue.Queue[Connection]) -> tuple[float, int]:
        """``count`` creates posted by a thread per connection; seconds until all settled,
        and how many did not end ACTIVE."""
        threads = idle.qsize()

        def one(number: int) -> bool:
            conn = idle.get()
            try:
                self.post(f"burst-{number}", conn=conn)
            except (RuntimeError, SDKException):
                return False  # refused: counted as failed, the rest go on
            finally:
                idle.put(conn)
            return True

        began = time.perf_counter()
        with ThreadPoolExecutor(max_workers=threads) as pool:
            posted = sum(pool.map(one, range(count)))
        active, _ = self.settle("?name=^burst-", posted, began)
        return time.perf_counter() - began, count - active

    def settle(self, query: str, expected: int, began: float) -> tuple[int, int]:
        """Poll until ``expected`` servers of the query are ACTIVE or ERROR: (active, error)."""
        glue = "&" if query else "?"
        polls, errors = 0, 0
        while time.perf_counter() - began < WAIT:
            active = len(self.call("GET", f"/servers{query}{glue}status=ACTIVE")["servers"])
            if polls % 10 == 0 or active + errors >= expected:
                errors = len(self.call("GET", f"/servers{query}{glue}status=ERROR")["servers"])
            if active + errors >= expected:
                return active, errors
            polls += 1
            time.sleep(POLL)
        return active, errors

    def fill(self, missing: int) -> tuple[int, int]:
        """Make ``missing`` more servers, 100 per request; (made ACTIVE, failed)."""
        began = time.perf_counter()
        for first in range(0, missing, 100):
            self.post("fill", min(100, missing - first))
        active, _ = self.settle("?name=^fill", missing, began)
        return active, missing - active

    def count(self) -> int:
        return len(self.call("GET", "/servers?limit=1000")["servers"])

    def template(self) -> str:
        """An ACTIVE server to copy."""
        return str(self.call("GET", "/servers?status=ACTIVE&limit=1")["servers"][0]["id"])

    def lists(self, runs: int, query: str) -> list[float]:
        times = []
        for _ in range(runs):
            began = time.perf_counter()
            self.call("GET", f"/servers/detail{query}")
            times.append(time.perf_counter() - began)
        return times


def _ok(response: Any) -> Any:
    if response.status_code >= 400:
        raise RuntimeError(f"{response.request.method} {response.url}: "
                           f"{response.status_code} {response.text[:300]}")  # fmt: skip
    return response
