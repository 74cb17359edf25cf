"""The console proxies from the options: the cell directory's tokens, [vnc]
([spice]), [console] and [consoleauth]; in ``saphira up`` and as
``saphira-novncproxy`` (``saphira-spicehtml5proxy``, ``saphira-serialproxy``)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from oslo_config import cfg

from saphira.computesvc import consoles
from saphira.consoleproxy.server import ConsoleProxy, ProxySettings
from saphira.context import RequestContext
from saphira.db.cell.console_tokens import ConsoleToken
from saphira.db.directory import CellDirectory
from saphira.exception import ConsoleTokenInvalid
from saphira.objects import ConsoleType
from saphira.rpc.rpcapi.compute import ComputeAPI
from saphira.rpc.transport import get_rpc_transport

LOG = logging.getLogger(__name__)
PURGE_EVERY = 60.0  # seconds between purges of expired tokens (Nova's hosts: 10 min)


class HostCheck:
    """Asks the guest's compute host whether the token's address is still its
    console's, as Nova's proxy does (validate_console_port): a guest started again
    may have another VNC port, and its old one may be another guest's by now."""

    def __init__(self, conf: cfg.ConfigOpts, directory: CellDirectory) -> None:
        self.conf, self.directory = conf, directory
        self._lock = threading.Lock()
        self._transport: Any = None
        self._compute: ComputeAPI | None = None

    def _stub(self) -> ComputeAPI:
        with self._lock:
            if self._compute is None:  # on first use: the bus may start after the proxy
                self._transport = get_rpc_transport(self.conf)
                self._compute = ComputeAPI(self._transport)
            return self._compute

    def __call__(self, record: ConsoleToken) -> None:
        instance = consoles.instance_of(self.directory, record.instance_uuid)
        if not instance.host:
            raise ConsoleTokenInvalid(token="***")
        kind = ConsoleType(record.console_type)
        found = self._stub().get_console_endpoint(RequestContext(), instance, kind)
        if (found.host, found.port) != (record.host, record.port):
            LOG.info("console token of %s names a port its guest no longer has",
                     record.instance_uuid)  # fmt: skip
            raise ConsoleTokenInvalid(token="***")

    def close(self) -> None:
        with self._lock:
            if self._transport is not None:
                self._transport.cleanup()
            self._transport = self._compute = None


class Tokens:
    """Token checks against every cell, then with the guest's host; now and then the
    expired ones are dropped."""

    def __init__(self, directory: CellDirectory, confirm: Callable[[ConsoleToken], None]) -> None:
        self.directory, self.confirm = directory, confirm
        self._next_purge = 0.0
        self._lock = threading.Lock()

    def __call__(self, token: str) -> ConsoleToken:
        self._purge_now_and_then()
        record = consoles.validate(self.directory, token)
        self.confirm(record)
        return record

    def _purge_now_and_then(self) -> None:
        with self._lock:
            now = time.monotonic()
            if now < self._next_purge:
                return
            self._next_purge = now + PURGE_EVERY
        purged = consoles.purge_expired(self.directory)
        if purged:
            LOG.info("purged %d expired console tokens", purged)


def web_root(conf: cfg.ConfigOpts, console_type: ConsoleType) -> str | None:
    """The client's files: Debian's novnc, spice-html5; none for serial (Nova's
    serial proxy serves only the websocket)."""
    if console_type is ConsoleType.NOVNC:
        return str(conf.vnc.novnc_web)
    if console_type is ConsoleType.SPICE_HTML5:
        return str(conf.spice.html5_web)
    return None


def settings(conf: cfg.ConfigOpts, console_type: ConsoleType) -> ProxySettings:
    return ProxySettings(
        console_type=console_type,
        web_root=web_root(conf, console_type),
        allowed_origins=list(conf.console.allowed_origins),
        max_connections_per_token=conf.consoleauth.max_connections_per_token,
        enforce_session_timeout=conf.consoleauth.enforce_session_timeout,
    )


def console_proxy(
    conf: cfg.ConfigOpts, address: tuple[str, int], console_type: ConsoleType
) -> ConsoleProxy:
    directory = CellDirectory.shared(conf)  # the process's, as the APIs' (saphira up)
    check = HostCheck(conf, directory)
    proxy = ConsoleProxy(address, Tokens(directory, check), settings(conf, console_type))
    proxy.on_stop += [check.close, directory.dispose]
    return proxy


def novnc_proxy(conf: cfg.ConfigOpts, address: tuple[str, int]) -> ConsoleProxy:
    return console_proxy(conf, address, ConsoleType.NOVNC)
