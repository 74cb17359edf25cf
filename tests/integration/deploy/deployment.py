"""A process deployment: ``saphira-api``, ``-conductor``, ``-scheduler`` and one
``saphira-compute`` per host, each its own OS process, over RabbitMQ and a
database server. The test process plays the installer: it writes the
configuration, prepares the databases and identity as ``saphira up``'s first
start does, and maps hosts as ``saphira-manage cell_v2 discover_hosts`` does.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from oslo_config import cfg

from saphira.db import cells
from saphira.service import firstrun
from saphira.service import up as service_up
from tests.functional.cloud import OPENSTACK, clean_env, free_offset

READY_TIMEOUT = 90.0
STOP_TIMEOUT = 30.0


@dataclass
class Process:
    """One ``python -m saphira.cmd.<name>``; its stderr goes to ``<dir>/<label>.log``."""

    label: str
    args: list[str]
    log_path: Path
    proc: subprocess.Popen[str] | None = None
    _ready: threading.Event = field(default_factory=threading.Event)
    _reader: threading.Thread | None = None

    def start(self) -> None:
        with open(self.log_path, "a", encoding="utf-8") as log:
            self.proc = subprocess.Popen(
                self.args, stdout=subprocess.PIPE, stderr=log, text=True, env=clean_env()
            )
        self._reader = threading.Thread(target=self._read, args=(self.proc,), daemon=True)
        self._reader.start()
        deadline = time.monotonic() + READY_TIMEOUT
        while not self._ready.wait(0.1):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                code = self.proc.poll()
                self.kill()
                raise RuntimeError(f"{self.label} did not get ready (exit {code}):\n{self.log()}")

    def _read(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.rstrip().endswith(": ready"):
                self._ready.set()

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8") if self.log_path.exists() else ""

    def stop(self) -> int:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=STOP_TIMEOUT)
        finally:
            self.kill()

    def kill(self) -> None:
        """Make sure the process is gone and its pipe closed."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self._reader is not None:
            self._reader.join(timeout=10)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


@dataclass
class Deployment:
    root: Path
    databases: dict[str, str]
    transport_url: str
    extra: dict[str, dict[str, object]] = field(default_factory=dict)
    conf: cfg.ConfigOpts | None = None
    processes: dict[str, Process] = field(default_factory=dict)

    @property
    def state(self) -> Path:
        return self.root / "state"

    def _write_conf(self) -> Path:
        sections: dict[str, dict[str, object]] = {
            "DEFAULT": {
                "state_path": self.state, "transport_url": self.transport_url,
                "port_offset": free_offset(), "bind_host": "127.0.0.1", "my_ip": "127.0.0.1",
                "report_interval": 1, "service_down_time": 4, "host": "controller",
            },
            "scheduler": {"host_state_ttl": 0},
            "oslo_messaging_rabbit": {"rabbit_retry_interval": 1},
        }  # fmt: skip
        for group, url in self.databases.items():
            sections.setdefault(group, {})["connection"] = url
        for group, values in self.extra.items():
            sections.setdefault(group, {}).update(values)
        path = self.root / "nova.conf"
        path.write_text(
            "".join(
                f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in values.items())
                for group, values in sections.items()
            ),
            encoding="utf-8",
        )
        return path

    def prepare(self) -> None:
        """Configuration, databases, cells, identity: what an installer does once."""
        self.nova_conf = self._write_conf()
        self.conf, _ = service_up.configure(str(self.state), [str(self.nova_conf)])
        firstrun.prepare(self.conf)

    def files(self, *more: Path) -> list[str]:
        paths = [self.state / "saphira.conf", self.nova_conf, *more]
        return [arg for path in paths for arg in ("--config-file", str(path))]

    def start(self, label: str, module: str, host: str | None = None) -> Process:
        more = []
        if host is not None:
            more.append(self.root / f"{label}.conf")
            more[0].write_text(f"[DEFAULT]\nhost = {host}\n", encoding="utf-8")
        args = [sys.executable, "-m", f"saphira.cmd.{module}", *self.files(*more)]
        process = Process(label, args, self.root / f"{label}.log")
        self.processes[label] = process
        process.start()
        return process

    def discover_hosts(self) -> list[str]:
        assert self.conf is not None
        return [info.host for info in cells.discover_hosts(self.conf)]

    def logs(self) -> str:
        return "\n".join(f"--- {p.label}\n{p.log()[-6000:]}" for p in self.processes.values())

    def stop_all(self) -> dict[str, int | None]:
        """SIGTERM every process still running (compute hosts first); their exit codes."""
        codes: dict[str, int | None] = {}
        for label in reversed(list(self.processes)):
            process = self.processes[label]
            if process.proc is not None and process.proc.poll() is None:
                codes[label] = process.stop()
            process.kill()
        return codes

    def openstack(self, *args: str) -> Any:
        env = clean_env(OS_CLIENT_CONFIG_FILE=str(self.state / "clouds.yaml"))
        result = subprocess.run(
            [OPENSTACK, "--os-cloud", "admin", *args],
            capture_output=True, text=True, env=env, timeout=180,
        )  # fmt: skip
        assert result.returncode == 0, f"openstack {' '.join(args)}: {result.stderr}"
        return json.loads(result.stdout) if "json" in args else result.stdout
