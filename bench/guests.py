#!/usr/bin/env python3
"""Real-guest figures of the libvirt driver: the tiny image under TCG, against bare QEMU.

Starts `saphira up --compute-driver libvirt.LibvirtDriver --test-image` with
`[libvirt] virt_type = qemu` (this host's KVM cannot boot a guest) and, run by
run, boots the same qcow2 with bare `qemu-system-x86_64 -accel tcg` (the
floor: no libvirt, no API, no overlay) and one server through the compute
API, so both see the same load. Prints create->ACTIVE, create->boot marker
(the guest's console log), the floor and the distance to it, delete->gone,
and the host RSS of an idle guest's QEMU. Deletes every server it made and
stops the cloud with SIGTERM. Prints figures; asserts nothing.

    .venv/bin/python bench/guests.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import openstack
from keystoneauth1.exceptions import ClientException
from openstack.config.loader import OpenStackConfig
from openstack.connection import Connection

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import Cloud, free_offset, rss_kib
from qemu import FloorBoot, kill_domains, qemu_pid, wait_text

from saphira.devtools.benchreport.figures import Figure, emit
from saphira.guest_image import BOOTED, READY

IMAGE, FLAVOR = "saphira-tiny", "saphira.tiny"
CONF = "[DEFAULT]\ninstances_path = {instances}\n\n[libvirt]\nvirt_type = qemu\n"
WAIT = 180.0
ATTEMPTS = 3  # a run whose server goes to ERROR (libvirtd restarted meanwhile) is retried
ERRORS = (RuntimeError, openstack.exceptions.SDKException, ClientException)
GOALS = {"ACTIVE": 1.5, "marker": 0.5}  # seconds above the floor's p50 (the goal)


class ServerFailed(RuntimeError):
    pass


class Bench:
    """The admin's connection, the image and flavor ids, and every server still alive."""

    def __init__(self, cloud: Cloud, instances: Path) -> None:
        region = OpenStackConfig(
            config_files=[str(cloud.state_dir / "clouds.yaml")], load_envvars=False
        ).get_one(cloud="admin")
        self.conn = Connection(config=region)
        self.instances = instances
        self.image = self.conn.image.find_image(IMAGE, ignore_missing=False).id
        self.flavor = self.conn.compute.find_flavor(FLAVOR, ignore_missing=False).id
        self.made: set[str] = set()
        self.pool = ThreadPoolExecutor(max_workers=4)

    def console(self, server_id: str) -> Path:
        return self.instances / server_id / "console.log"

    def create(self, name: str) -> tuple[str, float]:
        """POST /servers; the id and the perf_counter() just before the request."""
        began = time.perf_counter()
        server = self.conn.compute.create_server(
            name=name, image_id=self.image, flavor_id=self.flavor, networks="none"
        )
        self.made.add(server.id)
        return server.id, began

    def until_active(self, server_id: str, began: float) -> float:
        """Seconds from ``began`` to the first GET that shows ACTIVE (polled every 50 ms)."""
        while True:
            server = self.conn.compute.get_server(server_id)
            now = time.perf_counter()
            if server.status == "ACTIVE":
                return now - began
            if server.status == "ERROR":
                fault = (server.fault or {}).get("message", "no fault recorded")
                raise ServerFailed(f"{server_id} went to ERROR: {fault[:300]}")
            if now - began > WAIT:
                raise RuntimeError(f"{server_id} not ACTIVE after {WAIT:.0f} s")
            time.sleep(0.05)

    def boot(self, name: str) -> tuple[float, float, str]:
        """One server: seconds to ACTIVE and to the boot marker on its console, and its id."""
        server_id, began = self.create(name)
        stop = threading.Event()
        seen = self.pool.submit(wait_text, self.console(server_id), BOOTED, began, stop)
        try:
            active = self.until_active(server_id, began)
        except BaseException:
            stop.set()
            raise
        found = seen.result()
        if found is None:
            raise RuntimeError(f"{BOOTED!r} never on {server_id}'s console")
        return active, found, server_id

    def delete(self, server_id: str) -> float:
        """Seconds from DELETE to the first GET that answers 404 (polled every 50 ms)."""
        began = time.perf_counter()
        self.conn.compute.delete_server(server_id)
        while time.perf_counter() - began < WAIT:
            try:
                self.conn.compute.get_server(server_id)
            except openstack.exceptions.NotFoundException:
                self.made.discard(server_id)
                return time.perf_counter() - began
            time.sleep(0.05)
        raise RuntimeError(f"{server_id} still there {WAIT:.0f} s after DELETE")

    def retried_boot(self, name: str) -> tuple[float, float, str]:
        for _ in range(ATTEMPTS - 1):
            try:
                return self.boot(name)
            except ServerFailed as failed:
                print(f"  (retrying in 5 s: {failed})")
                for server_id in list(self.made):
                    self.delete(server_id)
                time.sleep(5)
        return self.boot(name)

    def clean_up(self) -> None:
        """Delete what is left; domains the API could not remove go through libvirt."""
        for server_id in list(self.made):
            try:
                self.delete(server_id)
            except ERRORS as error:
                print(f"  could not delete {server_id} through the API: {error}")
        kill_domains(self.made)
        self.pool.shutdown(cancel_futures=True)
        self.conn.close()


def spread(values: list[float]) -> str:
    return (f"p50 {statistics.median(values):6.2f} s  (min {min(values):.2f}, "
            f"max {max(values):.2f})")  # fmt: skip


def versus_floor(label: str, values: list[float], floor: float) -> None:
    over = statistics.median(values) - floor
    verdict = "met" if over <= GOALS[label] else "NOT met"
    print(f"  {label} - floor: {over:+.2f} s, x{statistics.median(values) / floor:.2f} "
          f"(goal: within {GOALS[label]} s of the floor: {verdict})")  # fmt: skip


def measure(bench: Bench, floor: FloorBoot, runs: int) -> None:
    floor.boot(BOOTED)  # warm-up: QEMU's binary and the image into the page cache
    active, marker, server_id = bench.retried_boot("bench-first")
    print(f"  first server (image fetched into the cache): ACTIVE {active:.2f} s, "
          f"marker {marker:.2f} s, delete {bench.delete(server_id):.2f} s")  # fmt: skip
    floors: list[float] = []
    actives: list[float] = []
    markers: list[float] = []
    deletes: list[float] = []
    for run in range(runs):
        floors.append(floor.boot(BOOTED))
        active, marker, server_id = bench.retried_boot(f"bench-{run}")
        actives.append(active)
        markers.append(marker)
        deletes.append(bench.delete(server_id))
    print(f"  {'create->ACTIVE':<34} {spread(actives)}")
    print(f"  {'create->boot marker':<34} {spread(markers)}")
    print(f"  {'floor: bare QEMU to boot marker':<34} {spread(floors)}")
    versus_floor("ACTIVE", actives, statistics.median(floors))
    versus_floor("marker", markers, statistics.median(floors))
    print(f"  {'delete->gone (404)':<34} {spread(deletes)}")
    p50 = statistics.median
    emit(
        Figure("guests.active_p50", "tiny guest (TCG) create->ACTIVE, p50", p50(actives), "s"),
        Figure("guests.marker_p50", "tiny guest (TCG) create->boot marker, p50", p50(markers), "s"),
        Figure("guests.floor_p50", "bare QEMU (TCG) to the boot marker, p50", p50(floors), "s"),
        Figure("guests.delete_p50", "tiny guest delete->gone (404), p50", p50(deletes), "s"),
    )


def idle_rss(bench: Bench, floor: FloorBoot, guests: int = 3) -> None:
    """Boot ``guests`` servers at once, wait for their `ready` line, read their QEMU's RSS."""
    started = [bench.create(f"bench-idle-{n}") for n in range(guests)]
    for server_id, began in started:
        bench.until_active(server_id, began)
        if wait_text(bench.console(server_id), READY, began, threading.Event()) is None:
            raise RuntimeError(f"{server_id} never printed {READY!r}")
    sizes = [rss_kib(qemu_pid(server_id)) / 1024 for server_id, _ in started]
    each = ", ".join(f"{size:.0f}" for size in sizes)
    print(f"  RSS per idle guest ({guests} guests, 128 MiB flavor): "
          f"mean {statistics.mean(sizes):.0f} MiB (each: {each}); "
          f"bare QEMU after ready: {floor.ready_rss_kib(READY) / 1024:.0f} MiB")  # fmt: skip
    emit(
        Figure(
            "guests.idle_rss",
            "RSS per idle tiny guest (128 MiB flavor), mean",
            statistics.mean(sizes),
            "MiB",
        ),
        Figure(
            "guests.floor_rss",
            "RSS of bare QEMU after ready",
            floor.ready_rss_kib(READY) / 1024,
            "MiB",
        ),
    )
    for server_id, _ in started:
        bench.delete(server_id)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="servers and floor boots (10)")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=PendingDeprecationWarning, module="openstack")
    work = Path(tempfile.mkdtemp(prefix="saphira-bench-guests-", dir="/var/tmp"))
    work.chmod(0o711)  # QEMU runs as its own user and must reach the instances
    instances = work / "instances"
    (work / "bench.conf").write_text(CONF.format(instances=instances))
    extra = ["--compute-driver", "libvirt.LibvirtDriver", "--test-image",
             "--config-file", str(work / "bench.conf")]  # fmt: skip
    cloud = Cloud([sys.executable, "-m", "saphira.cmd.up"], work / "state", free_offset(),
                  work / "saphira.log", extra_args=extra)  # fmt: skip
    bench: Bench | None = None
    try:
        ready = cloud.start()
        bench = Bench(cloud, instances)
        floor = FloorBoot(work / "state" / "test-image" / "saphira-tiny.qcow2", work)
        print(f"saphira guest benchmark (libvirt, TCG, {IMAGE}, {args.runs} runs); "
              f"ready after {ready:.2f} s; {os.cpu_count()} CPUs, load average "
              f"{os.getloadavg()[0]:.2f}")  # fmt: skip
        measure(bench, floor, args.runs)
        idle_rss(bench, floor)
        print(f"  load average at the end: {os.getloadavg()[0]:.2f}")
    except ERRORS as error:
        print(f"guest benchmark stopped: {error}\n  saphira log kept: {cloud.log_path}")
        return 1
    finally:
        if bench is not None:
            bench.clean_up()
        cloud.take_away()
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
