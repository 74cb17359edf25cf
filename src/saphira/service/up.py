"""``saphira up``: layer the configuration, prepare the state, serve, stop cleanly.

Exit codes: 0 after SIGINT/SIGTERM, 1 when a service cannot start or dies
(the message says which and why), 2 for a configuration error (nothing has
started then).
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from types import FrameType
from typing import TextIO

from oslo_config import cfg

from saphira import conf as saphira_conf
from saphira.clients.tls import trust_own_endpoints
from saphira.exception import ConfigError, SaphiraError
from saphira.privsep import context as privileged
from saphira.service import (
    clientconf,
    firstrun,
    logs,
    memory,
    provider_net,
    registry,
    tiny_image,
)
from saphira.service.plane import ALL, NETWORK, NETWORK_AGENTS, ControlPlane
from saphira.service.purge import recorded
from saphira.service.runner import Runner
from saphira.service.statedir import CONF_NAME, default_state_dir

LOG = logging.getLogger(__name__)
READY = "saphira up: ready:"


def choose_state_dir(state_dir: str | None, config_files: Sequence[str]) -> str:
    """--state-dir, else state_path from the operator's files, else the default."""
    if state_dir:
        return os.path.abspath(state_dir)
    probe = saphira_conf.load(_file_args(config_files))
    where = probe.get_location("state_path")
    if where is not None and where.location == cfg.Locations.user:
        return os.path.abspath(str(probe.state_path))
    return default_state_dir()


def _file_args(files: Sequence[str]) -> list[str]:
    return [arg for path in files for arg in ("--config-file", path)]


def load_conf(
    state_dir: str,
    config_files: Sequence[str] = (),
    *,
    port_offset: int | None = None,
    bind_host: str | None = None,
    compute_driver: str | None = None,
) -> cfg.ConfigOpts:
    """Defaults < <state-dir>/saphira.conf < each --config-file < command-line flags."""
    files = list(config_files)
    own = os.path.join(state_dir, CONF_NAME)
    if os.path.exists(own):
        files.insert(0, own)
    flags: dict[str, object] = {"state_path": state_dir}
    if port_offset is not None:
        flags["port_offset"] = port_offset
    if bind_host is not None:
        flags["bind_host"] = bind_host
    if compute_driver is not None:
        flags["compute_driver"] = compute_driver
    conf = saphira_conf.load(_file_args(files))
    for key, value in flags.items():
        try:
            conf.set_override(key, value)
        except ValueError as error:
            raise ConfigError(f"<command line>: [DEFAULT] {key}: {error}") from None
    saphira_conf.validate(conf)
    return conf


def configure(
    state_dir: str,
    config_files: Sequence[str] = (),
    *,
    port_offset: int | None = None,
    bind_host: str | None = None,
    compute_driver: str | None = None,
) -> tuple[cfg.ConfigOpts, str | None]:
    """Load and validate; create the state directory and, on first start, saphira.conf.

    Returns the configuration (reloaded to include a saphira.conf just
    written, whose service passwords the identity seed needs) and the path of
    that file when this was the first start.
    """

    def load() -> cfg.ConfigOpts:
        return load_conf(
            state_dir, config_files,
            port_offset=port_offset, bind_host=bind_host, compute_driver=compute_driver,
        )  # fmt: skip

    conf = load()
    written = firstrun.prepare_state_dir(conf)
    if written:
        conf = load()
    trust_own_endpoints(conf)
    return conf, written


def _ready_line(runner: Runner, conf: cfg.ConfigOpts) -> str:
    parts = [
        f"{spec.catalog_type} {registry.public_url(conf, spec)}" for spec, _, _ in runner.urls()
    ]
    return f"{READY} {', '.join(parts)}"


@dataclass(frozen=True)
class Extras:
    """What ``saphira up`` adds to a bare cloud, each on by default.

    ``test_image``: the tiny image and its flavor (``--no-test-image``);
    ``provider_network``: this host's network agents, a bridge of our own and
    a shared network on it, where Open vSwitch and root allow
    (``--no-provider-network``).
    """

    test_image: bool = True
    provider_network: bool = True


def serve(conf: cfg.ConfigOpts, out: TextIO = sys.stdout, *, extras: Extras = Extras()) -> int:
    """Prepare the state directory, run every served service until told to stop."""
    memory.fix_mmap_threshold()
    memory.limit_arenas()  # before the services start their threads
    specs = registry.enabled(conf, registry.served()) + registry.proxies(conf=conf)
    runner = Runner(conf, specs, in_process=True)  # one process: its calls to itself skip HTTP

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        # No logging here: the handler may interrupt a log call in this same thread.
        runner.request_stop(f"{signal.Signals(signum).name} received")

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    logs.stacks_on_sigusr2()
    try:
        return _serve(conf, runner, out, extras)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _serve(conf: cfg.ConfigOpts, runner: Runner, out: TextIO, extras: Extras) -> int:
    plane = ControlPlane(conf, ALL | {NETWORK})
    try:
        runner.check_ports()
        firstrun.prepare(conf)
        recorded.write_record(conf)  # where its things go on the host, for saphira purge
        if extras.test_image:
            tiny_image.register(conf)
        if extras.provider_network:
            plane.parts |= _provider_network(conf)
        if runner.stop_requested:  # a signal arrived while the state was prepared
            return 0
        runner.start()
        plane.start()  # after the APIs listen: agents need identity and placement
    except SaphiraError as error:
        plane.stop()
        runner.stop()
        print(f"saphira up: error: {error.message}", file=sys.stderr, flush=True)
        return 1
    memory.tune_gc()  # what start-up made is frozen, before the first request's garbage
    print(f"saphira up: clients: {clientconf.usage(conf.state_path)}", file=out)
    print(_ready_line(runner, conf), file=out, flush=True)  # last: watchers wait for it
    try:
        runner.wait()
        LOG.info("%s: stopping", runner.stop_reason)
    except SaphiraError as error:
        print(f"saphira up: error: {error.message}", file=sys.stderr, flush=True)
        return 1
    finally:
        plane.stop()  # before the APIs: agents still talk to placement while stopping
        runner.stop()
        privileged.stop()  # last: the agents' root work is done
    left = _threads_left()
    if left:
        LOG.warning("threads still running after stop: %s", ", ".join(left))
    LOG.info("all services stopped")
    return 0


def _provider_network(conf: cfg.ConfigOpts) -> frozenset[str]:
    """The bridge and network made ready; the agents' part if the host allows them."""
    missing = provider_net.unavailable_reason(conf)
    if missing is not None:
        LOG.info("no provider network: %s", missing)
        return frozenset()
    provider_net.prepare_host(conf)
    provider_net.ensure_network(conf)
    return frozenset({NETWORK_AGENTS})


def _threads_left(grace: float = 2.0) -> list[str]:
    """Names of threads other than this one still alive after ``grace`` seconds.

    Every service joins what it started, so anything here is a leak worth a
    warning (the process still exits: such threads may be daemons).
    """
    deadline = time.monotonic() + grace
    while True:
        left = [t for t in threading.enumerate() if t is not threading.current_thread()]
        if not left or time.monotonic() > deadline:
            return sorted(t.name for t in left)
        time.sleep(0.05)
