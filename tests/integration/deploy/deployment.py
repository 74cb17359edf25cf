"""A process deployment: ``saphira-api``, ``-conductor``, ``-scheduler`` and one
``saphira-compute`` per host, each its own OS process, over RabbitMQ and a
database server. The test process plays the installer: it writes the
configuration, prepares the databases and identity as ``saphira up``'s first
start does, and maps hosts as ``saphira-manage cell_v2 discover_hosts`` does.
Every service runs as the saphira user, as the systemd units run them; ``root``
must then be a directory that user can pass through.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from oslo_config import cfg

from saphira.db import cells
from saphira.service import firstrun, reach, unprivileged
from saphira.service import up as service_up
from tests import cli
from tests.functional.cloud import free_offset
from tests.functional.process import ManagedProcess
from tests.unprivileged import reachable

READY_TIMEOUT = 90.0
STOP_TIMEOUT = 30.0


@dataclass
class Deployment:
    root: Path
    databases: dict[str, str]
    transport_url: str
    extra: dict[str, dict[str, object]] = field(default_factory=dict)
    conf: cfg.ConfigOpts | None = None
    account: reach.Account | None = None
    processes: dict[str, ManagedProcess] = field(default_factory=dict)

    @property
    def state(self) -> Path:
        return self.root / "state"

    def _write_conf(self) -> Path:
        sections: dict[str, dict[str, object]] = {
            "DEFAULT": {
                "state_path": self.state, "transport_url": self.transport_url,
                "port_offset": free_offset(), "bind_host": "127.0.0.1", "my_ip": "127.0.0.1",
                "report_interval": 1, "service_down_time": 4, "host": "controller",
                "compute_driver": "fake.FakeDriver",
            },
            "scheduler": {"host_state_ttl": 0},
            "oslo_messaging_rabbit": {"rabbit_retry_interval": 1},
        }  # fmt: skip
        for group, url in self.databases.items():
            sections.setdefault(group, {})["connection"] = url
        for group, values in self.extra.items():
            sections.setdefault(group, {}).update(values)
        path = self.root / "nova.conf"
        path.write_text(_ini(sections), encoding="utf-8")
        return path

    def prepare(self) -> None:
        """Configuration, databases, cells, identity: what an installer does once."""
        self.nova_conf = self._write_conf()
        self.conf, _ = service_up.configure(str(self.state), [str(self.nova_conf)])
        firstrun.prepare(self.conf)
        self.account = reachable(str(self.root))
        unprivileged.hand_over(str(self.state), self.account)  # as systemd's StateDirectory=
        self.nova_conf.chmod(0o644)

    def files(self, *more: Path) -> list[str]:
        paths = [self.state / "saphira.conf", self.nova_conf, *more]
        return [arg for path in paths for arg in ("--config-file", str(path))]

    def start(
        self,
        label: str,
        module: str,
        host: str | None = None,
        *,
        own: dict[str, dict[str, object]] | None = None,
        as_root: bool = False,
        env: dict[str, str] | None = None,
    ) -> ManagedProcess:
        """``python -m saphira.cmd.<module>``, ready; its stderr goes to ``<label>.log``.

        ``host`` and ``own`` (sections) go into ``<label>.conf``, read last.
        ``as_root``: started as root, not as the saphira user (the network
        agent: it starts the privileged helper, then drops to that user; this
        machine has no sudoers rule for the helper).
        """
        sections = dict(own or {})
        if host is not None:
            sections["DEFAULT"] = {**sections.get("DEFAULT", {}), "host": host}
        more = []
        if sections:
            more.append(self.root / f"{label}.conf")
            more[0].write_text(_ini(sections), encoding="utf-8")
            more[0].chmod(0o644)
        args = [sys.executable, "-m", f"saphira.cmd.{module}", *self.files(*more)]
        process = ManagedProcess(
            label,
            self.root / f"{label}.log",
            lambda line: line.endswith(": ready"),
            ready_timeout=READY_TIMEOUT,
            stop_timeout=STOP_TIMEOUT,
        )
        self.processes[label] = process  # before launch: a failed start still shows its log
        assert self.account is not None, "prepare() first"
        ids = (self.account.uid, self.account.gid, list(self.account.groups))
        process.launch(args, env=env, ids=None if as_root else ids)
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

    def tiny_flavor_and_image(self, workdir: Path) -> str:
        """Flavor ``tiny`` (1 vCPU, 64 MB, 1 GB) and a 4 KiB raw image ``tiny-image``: its id."""
        self.openstack("flavor", "create", "--vcpus", "1", "--ram", "64", "--disk", "1", "tiny")
        disk = workdir / "disk.raw"
        disk.write_bytes(b"\0" * 4096)
        image: dict[str, Any] = self.openstack(
            "image", "create", "--disk-format", "raw", "--container-format", "bare",
            "--file", str(disk), "tiny-image", "-f", "json",
        )  # fmt: skip
        return str(image["id"])

    def openstack(self, *args: str) -> Any:
        return cli.openstack(self.state / "clouds.yaml", *args, timeout=180)


def _ini(sections: dict[str, dict[str, object]]) -> str:
    return "".join(
        f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in values.items())
        for group, values in sections.items()
    )
