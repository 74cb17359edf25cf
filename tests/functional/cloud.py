"""Run `saphira up` as a real subprocess and talk to it with the real clients.

Shared by the test_cloud_* modules through conftest fixtures. Every server is
bound to 127.0.0.1, on a port offset whose ports were free a moment before;
a start that still loses the race for a port is retried on another offset.
"""

from __future__ import annotations

import random
import signal
import socket
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from saphira.service import registry
from saphira.service.up import READY
from tests import cli, image_cache
from tests.functional.process import ManagedProcess

READY_TIMEOUT = 90.0
FAKE = "fake.FakeDriver"
STOP_TIMEOUT = 20.0


def ports_free(offset: int) -> bool:
    for spec in registry.SERVICES:
        with socket.socket() as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind(("127.0.0.1", spec.default_port + offset))
            except OSError:
                return False
    return True


def free_offset() -> int:
    """An offset that puts every registry port (5000..9696 today) on a free port.

    Every port stays below the kernel's ephemeral range (32768 and up), where
    outgoing connections (to RabbitMQ, PostgreSQL, ourselves) take their local
    port and could grab one of ours between the check and the bind.
    """
    for _ in range(200):
        offset = random.randrange(1000, 22000, 7)
        if ports_free(offset):
            return offset
    raise RuntimeError("no free port offset found")


@dataclass
class Cloud:
    """One `saphira up` process on a state directory."""

    state_dir: Path
    port_offset: int
    extra_args: list[str] = field(default_factory=list)
    process: ManagedProcess = field(init=False)

    def __post_init__(self) -> None:
        self.process = ManagedProcess(
            "saphira up",
            self.state_dir.parent / f"{self.state_dir.name}-saphira.log",
            lambda line: line.startswith(READY),
            ready_timeout=READY_TIMEOUT,
            stop_timeout=STOP_TIMEOUT,
        )

    @property
    def proc(self) -> subprocess.Popen[str] | None:
        return self.process.proc

    @property
    def stdout_lines(self) -> list[str]:
        return self.process.stdout_lines

    @property
    def clouds_yaml(self) -> Path:
        return self.state_dir / "clouds.yaml"

    @property
    def log_path(self) -> Path:
        return self.process.log_path

    def url(self, catalog_type: str) -> str:
        spec = registry.by_type(catalog_type)
        return f"http://127.0.0.1:{spec.default_port + self.port_offset}{spec.path}"

    def command(self) -> list[str]:
        """Unless extra_args say otherwise: the fake driver (no real guests), no test
        image (building and registering saphira-tiny costs seconds) and no provider
        network (its agents would share the host's bridges with other clouds)."""
        extra = self.extra_args
        pinned = [] if "--compute-driver" in extra else ["--compute-driver", FAKE]
        pinned += [] if "--test-image" in extra else ["--no-test-image"]
        pinned += [] if "--provider-network" in extra else ["--no-provider-network"]
        return [
            sys.executable, "-m", "saphira.cmd.up", "up",
            "--state-dir", str(self.state_dir),
            "--bind-host", "127.0.0.1",
            "--port-offset", str(self.port_offset),
            *pinned,
            *self.extra_args,
        ]  # fmt: skip

    def start(self) -> None:
        """Start and wait for the readiness line; raise with the log if it never comes."""
        self.process.launch(self.command())

    def log(self) -> str:
        return self.process.log()

    def stop(self, signum: int = signal.SIGTERM) -> int:
        """Signal the process by PID; its exit status (the caller asserts it)."""
        return self.process.stop(signum)

    def kill(self) -> None:
        self.process.kill()

    def openstack(self, *args: str, cloud: str = "admin", check: bool = True) -> Any:
        """The real CLI against this cloud (``tests.cli.openstack``)."""
        return cli.openstack(self.clouds_yaml, *args, cloud=cloud, check=check)


START_ATTEMPTS = 3


def start_cloud(
    cloud_factory_dir: str,
    extra_args: list[str] | None = None,
    factory: Callable[[Path, int, list[str]], Cloud] = Cloud,
) -> Cloud:
    """Start on a free offset; another offset if a port was taken meanwhile."""
    if "--test-image" in (extra_args or []):
        image_cache.prepare()
    error: RuntimeError | None = None
    for attempt in range(START_ATTEMPTS):
        state = Path(cloud_factory_dir) / f"state{attempt}"
        cloud = factory(state, free_offset(), list(extra_args or []))
        try:
            cloud.start()
            return cloud
        except RuntimeError as failed:
            if "cannot listen" not in str(failed):
                raise
            error = failed
    assert error is not None
    raise error
