"""One service per OS process: what every ``saphira-*`` main shares.

Parse ``--config-file`` (repeatable, later files win), validate the whole
configuration before anything starts, log as ``saphira up`` does, start the
service, print ``<prog>: ready`` and run until SIGTERM or SIGINT; then stop
it and exit 0. Exit 1 when it cannot start or dies, 2 on a configuration
error (nothing has started then). SIGUSR2 writes every thread's stack to stderr.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from types import FrameType
from typing import Protocol

from oslo_config import cfg

from saphira import conf as saphira_conf
from saphira.clients import endpoints
from saphira.clients.tls import trust_own_endpoints
from saphira.exception import ConfigError, SaphiraError, ServiceError
from saphira.privsep import context as privileged
from saphira.service import logs, memory, registry
from saphira.service.netplane import agent_host_problem, drop_to
from saphira.service.plane import NETWORK, NETWORK_AGENTS, ControlPlane
from saphira.service.runner import Runner

LOG = logging.getLogger(__name__)
POLL = 0.5  # seconds between health checks; signals are handled between them


class Service(Protocol):
    def check(self) -> None:
        """Raise SaphiraError if the service died on its own."""

    def stop(self) -> None: ...


Starter = Callable[[cfg.ConfigOpts], Service]


class PlaneService:
    """One or more of scheduler, conductor, compute in this process."""

    def __init__(self, conf: cfg.ConfigOpts, *parts: str) -> None:
        self.plane = ControlPlane(conf, frozenset(parts))
        self.plane.start()

    def check(self) -> None:
        """Their RPC servers and timers log and carry on; nothing to watch."""

    def stop(self) -> None:
        self.plane.stop()


class AgentHostService(PlaneService):
    """This host's L2 and DHCP agents (``saphira-network-agent``), root work in the helper.

    ``user``: started as root, run as this user once the helper runs.
    """

    def __init__(self, conf: cfg.ConfigOpts, user: str | None = None) -> None:
        try:
            problem = agent_host_problem(conf)  # starts the helper
            if problem is not None:
                raise ServiceError(problem)
            if user is not None:
                drop_to(user, conf)
            super().__init__(conf, NETWORK_AGENTS)
        except BaseException:
            privileged.stop()  # a helper that serves no agent goes too
            raise

    def stop(self) -> None:
        super().stop()
        privileged.stop()  # last: the agents' root work is done


class ApiService:
    """Every HTTP API of the registry, each on its cheroot server (saphira-api).

    The process that serves the network API also answers its agents over
    RPC, as neutron-server does: both need the network database, and an
    agent then has a service exactly where the API it serves runs.
    """

    def __init__(self, conf: cfg.ConfigOpts, only: tuple[str, ...] = ()) -> None:
        """``only``: these catalog types (``saphira-api-metadata``, ``saphira-dashboard``),
        else every enabled API but those with a main of their own."""
        specs = api_specs(conf, only)
        if any(spec.catalog_type == "identity" for spec in specs):
            endpoints.use_catalog(False)  # the catalog is ours: our own listeners
        self.runner = Runner(conf, specs)
        self.runner.check_ports()
        self.runner.start()
        self.plane: ControlPlane | None = None
        if any(spec.catalog_type == "network" for spec in specs):
            self.plane = ControlPlane(conf, frozenset({NETWORK}))
            try:
                self.plane.start()
            except BaseException:
                self.runner.stop()
                raise

    def check(self) -> None:
        if self.runner.stop_requested:  # only a dying server sets it here
            self.runner.wait()  # raises ServiceError naming it
            raise ServiceError("an API server stopped")

    def stop(self) -> None:
        if self.plane is not None:
            self.plane.stop()
        self.runner.stop()


def api_specs(conf: cfg.ConfigOpts, only: tuple[str, ...] = ()) -> list[registry.ServiceSpec]:
    """The services an API process serves: ``only`` these catalog types, else every
    enabled API but those with a main of their own (the dashboard)."""
    specs = registry.enabled(conf, registry.served())
    if only:
        return [s for s in specs if s.catalog_type in only]
    return [s for s in specs if s.catalog_type not in registry.OWN_MAIN]


def load_conf(prog: str, argv: Sequence[str] | None) -> cfg.ConfigOpts:
    parser = argparse.ArgumentParser(prog=prog)
    parser.add_argument(
        "--config-file", metavar="FILE", action="append", default=[],
        help="nova.conf-style file; repeatable, later files win",
    )  # fmt: skip
    args = parser.parse_args(argv)
    files = [arg for path in args.config_file for arg in ("--config-file", path)]
    conf = saphira_conf.load(files, prog=prog)
    saphira_conf.validate(conf)
    return conf


def run(prog: str, start: Starter, argv: Sequence[str] | None = None) -> int:
    try:
        conf = load_conf(prog, argv)
        logs.setup(conf)
        trust_own_endpoints(conf)
        endpoints.use_catalog()  # unless the process serves identity (ApiService)
    except ConfigError as error:
        print(f"{prog}: configuration error: {error.message}", file=sys.stderr)
        return 2
    except OSError as error:  # the log file cannot be opened
        print(f"{prog}: error: {error}", file=sys.stderr)
        return 2
    stopping = threading.Event()

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        stopping.set()  # no logging here: it may interrupt a log call of this thread

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, on_signal)
    logs.stacks_on_sigusr2()
    try:
        service = start(conf)
    except SaphiraError as error:
        print(f"{prog}: error: {error.message}", file=sys.stderr, flush=True)
        return 1
    memory.tune_gc()  # what start-up made is frozen, before the first request's garbage
    print(f"{prog}: ready", flush=True)
    return _until_stopped(prog, service, stopping)


def _until_stopped(prog: str, service: Service, stopping: threading.Event) -> int:
    code = 0
    try:
        while not stopping.wait(POLL):
            service.check()
        LOG.info("%s: signal received: stopping", prog)
    except SaphiraError as error:
        print(f"{prog}: error: {error.message}", file=sys.stderr, flush=True)
        code = 1
    finally:
        service.stop()
    LOG.info("%s: stopped", prog)
    return code
