"""Start and stop a `saphira up` process for the benchmarks; read its RSS.

Kept apart from the test helpers on purpose: benchmarks only print figures
and must run from a fresh clone without the test extras installed.
"""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from saphira.devtools.leftovers import purge

READY = "saphira up: ready:"
PORTS = (5000, 6080, 6082, 6083, 8080, 8774, 8775, 8778, 9292, 9696)  # every registry port


def free_offset() -> int:
    """An offset that puts every port on a free one of 127.0.0.1."""
    for _ in range(200):
        offset = random.randrange(1000, 22000, 7)  # below the ephemeral range (32768+)
        if all(_free(port + offset) for port in PORTS):
            return offset
    raise RuntimeError("no free port offset")


def _free(port: int) -> bool:
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def rss_kib(pid: int) -> int:
    """VmRSS of a process, in KiB, from /proc/<pid>/status."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for {pid}")


@dataclass
class Cloud:
    command: Sequence[str]  # the saphira executable (or python -m saphira.cmd.up)
    state_dir: Path
    port_offset: int
    log_path: Path
    preexec: Callable[[], None] | None = None
    extra_args: Sequence[str] = ()  # after "up": --config-file ...
    proc: subprocess.Popen[str] | None = None
    _ready: threading.Event = field(default_factory=threading.Event)

    @property
    def identity_url(self) -> str:
        return f"http://127.0.0.1:{5000 + self.port_offset}/v3"

    def start(self, timeout: float = 300.0) -> float:
        """Start and wait for the readiness line; seconds it took."""
        self._ready.clear()
        argv = [
            *self.command, "up",
            "--state-dir", str(self.state_dir),
            "--bind-host", "127.0.0.1",
            "--port-offset", str(self.port_offset),
            *self.extra_args,
        ]  # fmt: skip
        env = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
        began = time.perf_counter()
        with open(self.log_path, "a", encoding="utf-8") as log:
            self.proc = subprocess.Popen(
                argv, stdout=subprocess.PIPE, stderr=log, text=True, env=env,
                preexec_fn=self.preexec,
            )  # fmt: skip
        threading.Thread(target=self._watch, args=(self.proc,), daemon=True).start()
        while not self._ready.wait(0.01):
            if self.proc.poll() is not None or time.perf_counter() - began > timeout:
                self.stop()
                raise RuntimeError(f"saphira up did not get ready; see {self.log_path}")
        return time.perf_counter() - began

    def _watch(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith(READY):
                self._ready.set()

    def stop(self) -> float:
        """SIGTERM; seconds until the process exited."""
        if self.proc is None or self.proc.poll() is not None:
            return 0.0
        began = time.perf_counter()
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        return time.perf_counter() - began

    def take_away(self) -> None:
        """Stop, then remove what the cloud made on the host (``saphira purge``): its
        dnsmasq, namespaces and bridges outlive it by design, and once the bench removes
        the state directory nothing could find them."""
        self.stop()
        purge(self.state_dir)
