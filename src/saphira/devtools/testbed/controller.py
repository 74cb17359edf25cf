"""The controller: ``saphira-api``, ``-conductor`` and ``-scheduler`` in the root
namespace, listening on the bed's management address, over RabbitMQ and a
database server, each its own process running as the ``saphira`` user.

As an installer would, the bed writes the controller's configuration,
prepares databases, cells and identity with ``saphira.service.firstrun`` (the
steps of ``saphira up``'s first start, safe to repeat), then starts the
services and waits for each one's ``ready`` line. The test RabbitMQ listens
on loopback only, so a ``socat`` relay on the management address carries
the nodes' (and the controller's own) AMQP connections to it: every
``transport_url`` names the management address, as on a real controller.
(socat rather than a relay of our own: one packaged, well-known process.)
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from saphira.devtools.testbed.errors import TestbedError
from saphira.devtools.testbed.layout import Layout
from saphira.devtools.testbed.runner import Runner
from saphira.devtools.testbed.servers import Databases, Vhost
from saphira.devtools.testbed.state import BedState
from saphira.service import firstrun, reach, unprivileged
from saphira.service import up as service_up

SERVICES = ("conductor", "scheduler", "api")  # saphira.cmd.<module>, in start order
USER = "saphira"
AMQP_PORT = 5672
READY_TIMEOUT = 120.0
POLL = 0.2
# A compute service is down after this many seconds without a report: three of a
# node's 10 s report intervals, where a real controller keeps Nova's 60.
SERVICE_DOWN_TIME = 30
LOST_BUILD_TIMEOUT = 120  # twice rpc_response_timeout, which bounds a schedule
FAKE_HOST = "fakes"  # the compute service of simulated hypervisors (``fake_compute``)


@dataclass(frozen=True)
class FakeSize:
    """What each simulated hypervisor offers."""

    vcpus: int = 64
    memory_mb: int = 65536
    local_gb: int = 1000


# The services and the relay run on after `up` returns; while this process lives, it keeps
# their Popen objects (a collected one warns that its child still runs) and reaps them at down.
_CHILDREN: dict[int, subprocess.Popen[bytes]] = {}


def reap() -> None:
    """Wait for every child of ours that has ended, so none stays a zombie."""
    for pid, child in list(_CHILDREN.items()):
        if child.poll() is not None:
            del _CHILDREN[pid]


@dataclass(frozen=True)
class Controller:
    layout: Layout
    address: str
    runner: Runner
    database_url: str
    rabbit_url: str
    rabbitmqctl: tuple[str, ...]

    @property
    def directory(self) -> Path:
        return self.layout.bed_dir / "controller"

    @property
    def databases(self) -> Databases:
        return Databases(self.database_url, f"saphira_tb_{self.layout.bed}")

    @property
    def vhost(self) -> Vhost:
        return Vhost(
            self.rabbit_url, f"saphira_tb_{self.layout.bed}", self.runner, self.rabbitmqctl
        )

    def up(self, state: BedState) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        self.databases.create()
        self.vhost.create()
        self._relay(state)
        account = unprivileged.ensure_user(USER)
        nova_conf = self._write_conf(account)
        conf, _ = service_up.configure(str(self.directory / "state"), [str(nova_conf)])
        firstrun.prepare(conf)
        try:
            reach.ensure(account, reach.needed(str(self.directory)))
        except reach.ReachError as error:
            raise TestbedError(
                detail=f"the {USER} user cannot reach the controller: {error}"
            ) from None
        unprivileged.hand_over(str(self.directory / "state"), account)
        for module in SERVICES:
            if not _running(state, f"controller/{module}"):
                self.start_service(state, module, account)

    def start_service(
        self, state: BedState, module: str, account: reach.Account | None = None
    ) -> None:
        """Start one of SERVICES over ``nova.conf`` and record it: ``up``, and a fault
        test starting again one it killed."""
        account = account or unprivileged.ensure_user(USER)
        started = self._start(module, [self.directory / "nova.conf"], account)
        state.add(f"controller/{module}", started)
        state.save(self.layout.state_file)

    def _relay(self, state: BedState) -> None:
        if _running(state, "controller/amqp-relay"):
            return
        listen = f"TCP-LISTEN:{AMQP_PORT},bind={self.address},reuseaddr,fork"
        upstream = self.rabbit_url.rsplit("@", 1)[1].split("/", 1)[0]
        with open(self.directory / "amqp-relay.log", "ab") as log:
            relay = subprocess.Popen(
                ["socat", listen, f"TCP:{upstream}"],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log,
                start_new_session=True,
            )  # fmt: skip
        _CHILDREN[relay.pid] = relay
        state.add("controller/amqp-relay", relay.pid)
        state.save(self.layout.state_file)

    def _write_conf(self, account: reach.Account) -> Path:
        """``nova.conf``: root's, readable by the services' group (it holds passwords)."""
        sections: dict[str, dict[str, str]] = {
            "DEFAULT": {
                "state_path": str(self.directory / "state"),
                "transport_url": self.vhost.url(self.address),
                "bind_host": self.address, "my_ip": self.address, "host": "controller",
                "service_down_time": str(SERVICE_DOWN_TIME),
                # A build no conductor placed (its cast taken while the database was
                # down) is failed after this; the default 300 s is as long as a fault
                # test waits for every build to end.
                "lost_build_timeout": str(LOST_BUILD_TIMEOUT),
            },
        }  # fmt: skip
        for group, url in self.databases.urls().items():
            sections.setdefault(group, {})["connection"] = url
        path = self.directory / "nova.conf"
        text = "".join(
            f"[{group}]\n" + "".join(f"{key} = {value}\n" for key, value in values.items())
            for group, values in sections.items()
        )
        path.write_text(text, encoding="utf-8")
        os.chown(path, 0, account.gid)
        path.chmod(0o640)
        return path

    def fake_compute(self, state: BedState, nodes: int, size: FakeSize) -> None:
        """A compute service of simulated hypervisors beside the controller's services
        (``saphira-compute`` with the fake driver, host FAKE_HOST, nodes ``fake1``…),
        for load beyond what the nodes' real guests can be."""
        label = f"controller/{FAKE_HOST}"
        if not _running(state, label):
            account = unprivileged.ensure_user(USER)
            extra = self.directory / f"{FAKE_HOST}.conf"
            extra.write_text(
                f"[DEFAULT]\nhost = {FAKE_HOST}\ncompute_driver = fake.FakeDriver\n"
                f"[fake_driver]\nnodes = {','.join(f'fake{n}' for n in range(1, nodes + 1))}\n"
                f"vcpus = {size.vcpus}\nmemory_mb = {size.memory_mb}\nlocal_gb = {size.local_gb}\n",
                encoding="utf-8",
            )
            files = [self.directory / "nova.conf", extra]
            state.add(label, self._start("compute", files, account, log_name=FAKE_HOST))
            state.save(self.layout.state_file)

    def _start(
        self, module: str, confs: list[Path], account: reach.Account, log_name: str = ""
    ) -> int:
        files = [self.directory / "state" / "saphira.conf", *confs]
        argv = [sys.executable, "-m", f"saphira.cmd.{module}"]
        argv += [arg for path in files for arg in ("--config-file", str(path))]
        log = self.directory / f"{log_name or module}.log"
        with open(log, "ab") as out:
            before = out.tell()  # a service started again appends to its log
            process = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                cwd=self.directory, start_new_session=True,
                user=account.uid, group=account.gid, extra_groups=list(account.groups),
            )  # fmt: skip
        _CHILDREN[process.pid] = process
        _wait_ready(process, log, log_name or module, before)
        return process.pid

    def join_token(self) -> str:
        """A single-use join token (``saphira-manage compute-token create``), for one node."""
        files = [self.directory / "state" / "saphira.conf", self.directory / "nova.conf"]
        argv = [sys.executable, "-m", "saphira.cmd.manage"]
        argv += [arg for path in files for arg in ("--config-file", str(path))]
        out = self.runner.run([*argv, "compute-token", "create"]).out.strip()
        if not out:
            raise TestbedError(detail="saphira-manage compute-token create printed no token")
        return out.splitlines()[-1]

    def down(self) -> None:
        """Drop the bed's virtual host and databases (its processes end by PID in Bed.down)."""
        self.vhost.delete()
        self.databases.drop()


def _running(state: BedState, label: str) -> bool:
    return any(s.label == label and s.alive() for s in state.started)


def _wait_ready(process: subprocess.Popen[bytes], log: Path, module: str, offset: int) -> None:
    """Until the log past ``offset`` (what this process wrote) says ready."""
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline:
        with open(log, "rb") as found:
            found.seek(offset)
            text = found.read().decode(errors="replace")
        if ": ready" in text:
            return
        if process.poll() is not None:
            raise TestbedError(
                detail=f"saphira-{module} exited ({process.returncode}): {text[-2000:]}"
            )
        time.sleep(POLL)
    raise TestbedError(detail=f"saphira-{module} not ready within {READY_TIMEOUT:g} s (see {log})")
