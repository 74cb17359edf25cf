"""The console proxies from the options: the cell directory's tokens, [vnc]
([spice]), [console] and [consoleauth]; in ``saphira up`` and as
``saphira-novncproxy`` (``saphira-spicehtml5proxy``, ``saphira-serialproxy``)."""

from __future__ import annotations

import logging
import threading
import time

from oslo_config import cfg

from saphira.computesvc import consoles
from saphira.consoleproxy.server import ConsoleProxy, ProxySettings
from saphira.db.cell.console_tokens import ConsoleToken
from saphira.db.directory import CellDirectory
from saphira.objects import ConsoleType

LOG = logging.getLogger(__name__)
PURGE_EVERY = 60.0  # seconds between purges of expired tokens (Nova's hosts: 10 min)


class Tokens:
    """Token checks against every cell; now and then the expired ones are dropped."""

    def __init__(self, directory: CellDirectory) -> None:
        self.directory = directory
        self._next_purge = 0.0
        self._lock = threading.Lock()

    def __call__(self, token: str) -> ConsoleToken:
        self._purge_now_and_then()
        return consoles.validate(self.directory, token)

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
    directory = CellDirectory.from_conf(conf)
    proxy = ConsoleProxy(address, Tokens(directory), settings(conf, console_type))
    proxy.on_stop.append(directory.dispose)
    return proxy


def novnc_proxy(conf: cfg.ConfigOpts, address: tuple[str, int]) -> ConsoleProxy:
    return console_proxy(conf, address, ConsoleType.NOVNC)
