"""`saphira up`'s services call each other in process, and still answer HTTP.

The all-in-one runs under bench/tallied_up.py, which counts every request the
process sends: over a socket (``requests``) or handed to its own application
(``in-process`` in the detail). A build's calls to placement and the image
service must all be of the second kind, while the real CLI, from outside,
speaks HTTP to the same APIs.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from saphira.service import registry
from tests.functional.cloud import Cloud, start_cloud

pytestmark = pytest.mark.functional
TALLIED_UP = Path(__file__).resolve().parents[2] / "bench" / "tallied_up.py"
DUMP_TIMEOUT = 30.0  # seconds: only detects a process that never writes its counts


class TalliedCloud(Cloud):
    @property
    def tally_file(self) -> Path:
        return self.state_dir.parent / f"{self.state_dir.name}-tally.json"

    def command(self) -> list[str]:
        command = super().command()
        assert command[1:3] == ["-m", "saphira.cmd.up"], command
        return [sys.executable, str(TALLIED_UP), str(self.tally_file), *command[3:]]

    def requests_sent(self) -> list[str]:
        """``METHOD :port/path`` of each request the cloud sent, in-process ones so marked."""
        assert self.proc is not None
        self.tally_file.unlink(missing_ok=True)
        os.kill(self.proc.pid, signal.SIGUSR1)
        deadline = time.monotonic() + DUMP_TIMEOUT
        while not self.tally_file.exists():
            assert time.monotonic() < deadline, self.log()
            time.sleep(0.1)
        details: dict[str, int] = json.loads(self.tally_file.read_text())["details"]
        prefix = "http_requests "
        return sorted(key[len(prefix) :] for key in details if key.startswith(prefix))


def tallied(state: Path, offset: int, extra: list[str]) -> Cloud:
    return TalliedCloud(state, offset, extra)


def test_a_build_calls_placement_and_image_in_process(tmp_path: Path) -> None:
    # --user root: the tally file is written into the test's (root's) directory.
    cloud = start_cloud(str(tmp_path), ["--user", "root"], factory=tallied)
    assert isinstance(cloud, TalliedCloud)
    try:
        cloud.openstack("flavor", "create", "--vcpus", "1", "--ram", "64", "--disk", "1", "f1")
        disk = tmp_path / "disk.raw"
        disk.write_bytes(b"\0" * 4096)
        image: dict[str, Any] = cloud.openstack(
            "image", "create", "--disk-format", "raw", "--container-format", "bare",
            "--file", str(disk), "img", "-f", "json",
        )  # fmt: skip
        server: dict[str, Any] = cloud.openstack(
            "server", "create", "--flavor", "f1", "--image", image["id"], "--no-network",
            "--wait", "s1", "-f", "json",
        )  # fmt: skip
        assert server["status"] == "ACTIVE", server

        sent = cloud.requests_sent()
    finally:
        assert cloud.stop() == 0, cloud.log()
    placement = registry.by_type("placement").default_port + cloud.port_offset
    image_port = registry.by_type("image").default_port + cloud.port_offset
    assert [r for r in sent if not r.startswith("in-process ")] == []  # no socket to itself
    assert f"in-process GET :{placement}/allocation_candidates" in sent
    assert f"in-process PUT :{placement}/allocations/{{id}}" in sent
    assert f"in-process GET :{image_port}/v2/images/{{id}}" in sent
