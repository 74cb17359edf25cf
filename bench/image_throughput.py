#!/usr/bin/env python3
"""Image upload and download throughput on loopback, next to `cp` on the same disk.

Starts `saphira up` on a temporary state directory, writes a file of
non-zero data (so neither side can skip it as sparse) next to the store,
then times: `cp` of the file plus fsync (the disk's ceiling for a copy, the
same work the store does), PUT /v2/images/{id}/file with Content-Length (the
quota is claimed once, up front), the same chunked (size unknown: the quota is
checked against the database before every 1 MiB chunk), and GET .../file into
/dev/null. The server's RSS is sampled during the upload. Prints figures;
asserts nothing.

    python3 bench/image_throughput.py [--size-mib 2048] [--user-storage-quota 0]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import requests
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import Cloud, free_offset, rss_kib

from saphira.devtools.benchreport.figures import Figure, emit

MIB = 1024 * 1024


def make_file(path: Path, size_mib: int) -> None:
    block = os.urandom(MIB)
    with open(path, "wb") as handle:
        for _ in range(size_mib):
            handle.write(block)
        handle.flush()
        os.fsync(handle.fileno())


def timed_cp(source: Path, target: Path) -> float:
    began = time.perf_counter()
    subprocess.run(["cp", str(source), str(target)], check=True)
    fd = os.open(target, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    return time.perf_counter() - began


def token(cloud: Cloud) -> str:
    clouds = yaml.safe_load((cloud.state_dir / "clouds.yaml").read_text())
    password = clouds["clouds"]["admin"]["auth"]["password"]
    user = {"name": "admin", "domain": {"name": "Default"}, "password": password}
    body = {
        "auth": {
            "identity": {"methods": ["password"], "password": {"user": user}},
            "scope": {"project": {"name": "admin", "domain": {"name": "Default"}}},
        }
    }
    response = requests.post(f"{cloud.identity_url}/auth/tokens", json=body, timeout=30)
    response.raise_for_status()
    return response.headers["X-Subject-Token"]


class RssPeak(threading.Thread):
    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.peak, self.stop = pid, rss_kib(pid), threading.Event()

    def run(self) -> None:
        while not self.stop.wait(0.05):
            self.peak = max(self.peak, rss_kib(self.pid))


def pieces(path: Path) -> Iterator[bytes]:
    with open(path, "rb") as handle:
        while piece := handle.read(MIB):
            yield piece


def new_image(http: requests.Session, base: str) -> str:
    image = http.post(
        f"{base}/v2/images",
        json={"name": "bench", "disk_format": "raw", "container_format": "bare"},
        timeout=30,
    ).json()
    return str(image["id"])


def put_file(http: requests.Session, base: str, image_id: str, data: Any) -> float:
    """Seconds of one upload of ``data`` (a file: Content-Length; a generator: chunked)."""
    began = time.perf_counter()
    put = http.put(
        f"{base}/v2/images/{image_id}/file",
        data=data,
        headers={"Content-Type": "application/octet-stream"},
        timeout=3600,
    )
    seconds = time.perf_counter() - began
    put.raise_for_status()
    return seconds


def timed_put(http: requests.Session, base: str, data: Any) -> float:
    """One upload of ``data`` into a new image, which is deleted afterwards."""
    image_id = new_image(http, base)
    seconds = put_file(http, base, image_id, data)
    http.delete(f"{base}/v2/images/{image_id}", timeout=60).raise_for_status()
    return seconds


def run(cloud: Cloud, work: Path, size_mib: int) -> None:
    cloud.start()
    assert cloud.proc is not None
    source = work / "source.img"
    make_file(source, size_mib)
    os.sync()
    cp_seconds = timed_cp(source, work / "copy.img")
    (work / "copy.img").unlink()
    base = f"http://127.0.0.1:{9292 + cloud.port_offset}"
    http = requests.Session()
    http.headers["X-Auth-Token"] = token(cloud)
    image_id = new_image(http, base)
    rss_before = rss_kib(cloud.proc.pid)
    watcher = RssPeak(cloud.proc.pid)
    watcher.start()
    try:
        with open(source, "rb") as handle:
            upload = put_file(http, base, image_id, handle)
    finally:
        watcher.stop.set()
        watcher.join()
    began = time.perf_counter()
    with http.get(f"{base}/v2/images/{image_id}/file", stream=True, timeout=3600) as got:
        got.raise_for_status()
        for _ in got.iter_content(4 * MIB):
            pass
    download = time.perf_counter() - began
    chunked = timed_put(http, base, pieces(source))
    print(f"file size:           {size_mib} MiB (random data, not sparse)")
    print(f"cp + fsync:          {size_mib / cp_seconds:8.1f} MiB/s")
    print(f"upload (PUT /file):  {size_mib / upload:8.1f} MiB/s  (md5 + sha512 + qemu-img)")
    print(f"upload chunked:      {size_mib / chunked:8.1f} MiB/s  (quota checked per chunk)")
    print(f"download (GET /file):{size_mib / download:8.1f} MiB/s")
    print(f"server RSS before upload: {rss_before / 1024:.1f} MiB")
    print(f"server RSS peak during upload: {watcher.peak / 1024:.1f} MiB "
          f"(+{(watcher.peak - rss_before) / 1024:.1f} MiB)")  # fmt: skip
    emit(
        Figure("image.cp", "cp + fsync", size_mib / cp_seconds, "MiB/s", "higher"),
        Figure(
            "image.upload", f"image upload, {size_mib} MiB", size_mib / upload, "MiB/s", "higher"
        ),
        Figure(
            "image.chunked",
            f"image upload chunked, {size_mib} MiB",
            size_mib / chunked,
            "MiB/s",
            "higher",
        ),
        Figure(
            "image.download",
            f"image download, {size_mib} MiB",
            size_mib / download,
            "MiB/s",
            "higher",
        ),
        Figure(
            "image.rss_peak",
            f"image server RSS peak during a {size_mib} MiB upload",
            watcher.peak / 1024,
            "MiB",
        ),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mib", type=int, default=2048)
    parser.add_argument(
        "--user-storage-quota", help="[image_api] user_storage_quota (0: no per-chunk check)"
    )
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="saphira-bench-image-"))
    config: list[str] = []
    if args.user_storage_quota is not None:
        (work / "bench.conf").write_text(
            f"[image_api]\nuser_storage_quota = {args.user_storage_quota}\n"
        )
        config = ["--config-file", str(work / "bench.conf")]
    cloud = Cloud(
        [sys.executable, "-m", "saphira.cmd.up"], work / "state", free_offset(),
        work / "saphira.log",
        # only the image service is measured: no guests, test image or provider bridge
        extra_args=["--compute-driver", "fake.FakeDriver", "--no-test-image",
                    "--no-provider-network", *config],
    )  # fmt: skip
    try:
        run(cloud, work, args.size_mib)
    finally:
        cloud.stop()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
