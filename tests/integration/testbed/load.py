"""Mixed load on the test bed (issue 15): simulated servers on the controller's fake
compute host and real tiny guests on the nodes, driven by concurrent clients.

Each client is a thread with its own openstacksdk connection and its own share of
the servers (so two clients never act on one server at once); it loops until the
deadline, one action at a time with a pause between, as a person's tool would:
list a page, show any server, reboot or stop-and-start one of its simulated
servers, create and delete one (churn), read one of its real guests' console.
Every wait polls once a second. An action that raises, a server that ends in ERROR
or a wait that runs out counts as failed, with its message kept.

``Sampler`` reads the RSS (``VmRSS``) of the given processes every ``every``
seconds; ``Sampler.grown`` names those whose memory did not stay flat after the
warm-up.
"""

from __future__ import annotations

import random
import statistics
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

POLL = 1.0  # seconds between the polls of a wait
PAUSE = 0.5  # seconds a client rests between actions
WAIT = 180.0  # seconds an action may wait for its server
FAKE, REAL, CHURN = "lf", "lr", "load-c"  # the name prefixes of the load's servers
NAMES = (f"{FAKE}-", f"{REAL}-", CHURN)
BATCH = 50  # simulated servers per create request (min_count = max_count)
ACTIONS = ("list", "show", "reboot", "stop_start", "churn", "console")
WEIGHTS = (3, 4, 2, 1, 1, 2)
# Flat: the last third's floor at most this much above the first third's median.
FLAT_RATIO, FLAT_SLACK_KB = 1.10, 16 * 1024


class Failed(Exception):
    """An action that did not end as it should."""


@dataclass(frozen=True)
class Plan:
    fake: int  # simulated servers, on the fake host
    real: int  # tiny guests, on the nodes
    clients: int
    seconds: float


@dataclass
class Tally:
    done: Counter[str] = field(default_factory=Counter)
    failed: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, action: str, error: BaseException | None) -> None:
        with self.lock:
            if error is None:
                self.done[action] += 1
                return
            self.failed[action] += 1
            if len(self.errors) < 20:
                self.errors.append(f"{action}: {type(error).__name__}: {error}")


def wait_status(conn: Any, server_id: str, status: str) -> None:
    """Until the server has ``status`` and no task; Failed on ERROR or after WAIT."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        found = conn.compute.get_server(server_id)
        if found.status == "ERROR":
            raise Failed(f"{server_id} ERROR: {found.fault}")
        if found.status == status and not found.task_state:
            return
        time.sleep(POLL)
    actions = [(a.action, a.start_time, a.message) for a in conn.compute.server_actions(server_id)]
    state = f"{found.status} (task {found.task_state}, power {found.power_state})"
    raise Failed(f"{server_id} not {status} within {WAIT:g} s but {state}; actions {actions}")


def wait_gone(conn: Any, server_id: str) -> None:
    deadline = time.monotonic() + WAIT
    while conn.compute.find_server(server_id) is not None:
        if time.monotonic() > deadline:
            raise Failed(f"{server_id} not deleted within {WAIT:g} s")
        time.sleep(POLL)


@dataclass(frozen=True)
class Fleet:
    """Where the load's servers go: the image, flavor, the fake host, the real network."""

    image: str
    flavor: str
    fake_host: str
    network: str

    def make_room(self, conn: Any, plan: Plan) -> None:
        """Quotas for the plan's servers and each client's churn (the flavor's size each)."""
        flavor = conn.compute.get_flavor(self.flavor)
        count = plan.fake + plan.real + plan.clients
        conn.compute.update_quota_set(
            conn.current_project_id, instances=count, cores=count * flavor.vcpus,
            ram=count * flavor.ram,
        )  # fmt: skip

    def create_fake(self, conn: Any, prefix: str, count: int) -> list[str]:
        """``count`` simulated servers named ``prefix-…``, ACTIVE; their ids."""
        for start in range(0, count, BATCH):
            size = min(BATCH, count - start)
            conn.compute.create_server(
                name=f"{prefix}-{start}", image_id=self.image, flavor_id=self.flavor,
                networks="none", availability_zone=f"nova:{self.fake_host}",
                min_count=size, max_count=size,
            )  # fmt: skip
        return self._active(conn, prefix, count)

    def create_real(self, conn: Any, prefix: str, count: int) -> list[str]:
        for n in range(count):
            conn.compute.create_server(
                name=f"{prefix}-{n}", image_id=self.image, flavor_id=self.flavor,
                networks=[{"uuid": self.network}],
            )  # fmt: skip
        return self._active(conn, prefix, count)

    def _active(self, conn: Any, prefix: str, count: int) -> list[str]:
        ids = [s.id for s in conn.compute.servers(name=f"^{prefix}-")]
        if len(ids) != count:
            raise Failed(f"{len(ids)} servers named {prefix}-*, not {count}")
        for server_id in ids:
            wait_status(conn, server_id, "ACTIVE")
        return ids


@dataclass
class Client:
    conn: Any
    fleet: Fleet
    fakes: list[str]  # its own simulated servers
    reals: list[str]  # its own real guests
    everyone: list[str]
    name: str
    rng: random.Random = field(default_factory=random.Random)
    churned: int = 0

    def run(self, deadline: float, tally: Tally) -> None:
        while time.monotonic() < deadline:
            action = self.rng.choices(ACTIONS, WEIGHTS)[0]
            try:
                getattr(self, action)()
            except Exception as error:  # counted; the client goes on
                tally.record(action, error)
            else:
                tally.record(action, None)
            time.sleep(PAUSE)

    def list(self) -> None:
        page = list(self.conn.compute.servers(details=True, limit=50, paginated=False))
        if not page:
            raise Failed("an empty server list")

    def show(self) -> None:
        self.conn.compute.get_server(self.rng.choice(self.everyone))

    def reboot(self) -> None:
        server_id = self.rng.choice(self.fakes)
        self.conn.compute.reboot_server(server_id, "SOFT")
        wait_status(self.conn, server_id, "ACTIVE")

    def stop_start(self) -> None:
        server_id = self.rng.choice(self.fakes)
        self.conn.compute.stop_server(server_id)
        wait_status(self.conn, server_id, "SHUTOFF")
        self.conn.compute.start_server(server_id)
        wait_status(self.conn, server_id, "ACTIVE")

    def churn(self) -> None:
        self.churned += 1
        [made] = self.fleet.create_fake(self.conn, f"{self.name}-churn{self.churned}", 1)
        self.conn.compute.delete_server(made)
        wait_gone(self.conn, made)

    def console(self) -> None:
        if not self.reals:
            return self.show()
        self.conn.compute.get_server_console_output(self.rng.choice(self.reals), length=10)
        return None


def delete_all(conn: Any, reals: list[str]) -> tuple[list[str], list[str]]:
    """Delete every server the load made and wait until each is gone: their ids and the
    real ones' ports, for the leak check."""
    ports = [p.id for i in reals for p in conn.network.ports(device_id=i)]
    ids = [s.id for s in conn.compute.servers() if s.name.startswith(NAMES)]
    for server_id in ids:
        conn.compute.delete_server(server_id)
    for server_id in ids:
        wait_gone(conn, server_id)
    return ids, ports


def drive(
    connect: Callable[[], Any], fleet: Fleet, plan: Plan, fakes: list[str], reals: list[str]
) -> Tally:
    """``plan.clients`` clients on their shares of the servers until ``plan.seconds`` pass."""
    tally = Tally()
    everyone = [*fakes, *reals]
    share = plan.clients
    clients = [
        Client(connect(), fleet, fakes[n::share], reals[n::share], everyone, f"{CHURN}{n}")
        for n in range(share)
    ]
    deadline = time.monotonic() + plan.seconds
    threads = [threading.Thread(target=c.run, args=(deadline, tally)) for c in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return tally


def start_and_floor(kbs: list[int]) -> tuple[int, int]:
    """The median of the first third of these RSS samples (in order) and the least of
    the last third, in kB; fewer than 3 samples cannot say, and are refused."""
    if len(kbs) < 3:
        raise ValueError(f"{len(kbs)} RSS samples cannot say whether memory grew")
    third = len(kbs) // 3
    return int(statistics.median(kbs[:third])), min(kbs[-third:])


def grew(kbs: list[int]) -> tuple[int, int] | None:
    """(start, floor) when these RSS samples grew: the floor above the start by more than
    FLAT_RATIO and FLAT_SLACK_KB; None when they stayed flat. The floor, because a leak
    lifts every later sample while a burst of work lifts a few and the allocator gives
    it back."""
    start, floor = start_and_floor(kbs)
    return (start, floor) if floor > start * FLAT_RATIO + FLAT_SLACK_KB else None


def rss_kb(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


class Sampler(threading.Thread):
    """The RSS of each process every ``every`` seconds until ``stop()``."""

    def __init__(self, pids: dict[str, int], every: float) -> None:
        super().__init__(daemon=True)
        self.pids, self.every = dict(pids), every
        # label -> (time.monotonic(), kB) in the order taken
        self.samples: dict[str, list[tuple[float, int]]] = {label: [] for label in pids}
        self._stop_event = threading.Event()
        self._lock = threading.Lock()

    def watch(self, label: str, pid: int) -> None:
        """Sample this process too, from now on."""
        with self._lock:
            self.pids[label] = pid

    def run(self) -> None:
        while True:
            with self._lock:
                pids = dict(self.pids)
            for label, pid in pids.items():
                kb = rss_kb(pid)
                if kb is not None:
                    self.samples.setdefault(label, []).append((time.monotonic(), kb))
            if self._stop_event.wait(self.every):
                return

    def stop(self) -> None:
        self._stop_event.set()
        self.join()

    def grown(self, since: float) -> dict[str, tuple[int, int]]:
        """Processes whose memory grew over the samples taken from ``since`` (a
        ``time.monotonic()``) on: label -> (start, floor) in kB (``grew``). What comes
        before ``since`` is the warm-up: caches filling, thread pools growing to the
        clients' concurrency, a working set that a leak check must not count."""
        found = {}
        for label, samples in self.samples.items():
            growth = grew([kb for at, kb in samples if at >= since])
            if growth is not None:
                found[label] = growth
        return found

    def table(self, since: float) -> list[str]:
        """A line per process: all its samples, then those judged (from ``since`` on):
        their first third's median and last third's floor, as ``grown`` compares them."""
        lines = []
        for label, samples in self.samples.items():
            kbs = [kb for _, kb in samples]
            judged = [kb for at, kb in samples if at >= since]
            if not kbs:
                continue
            line = (f"{label}: {len(kbs)} samples, {min(kbs) // 1024}-{max(kbs) // 1024} MiB, "
                    f"first {kbs[0] // 1024} MiB, last {kbs[-1] // 1024} MiB")  # fmt: skip
            if len(judged) >= 3:
                start, floor = start_and_floor(judged)
                line += (f"; after the warm-up {len(judged)} samples, median {start / 1024:.0f}"
                         f" MiB at first, floor {floor / 1024:.0f} MiB at last")  # fmt: skip
            lines.append(line)
        return lines
