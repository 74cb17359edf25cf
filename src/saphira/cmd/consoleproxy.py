"""``saphira-spicehtml5proxy`` and ``saphira-serialproxy``: one console proxy alone,
as Nova's nova-spicehtml5proxy and nova-serialproxy.

Each listens on its own ``[spice] html5proxy_host``:``html5proxy_port``
(``[serial_console] serialproxy_host``:``serialproxy_port``) + ``port_offset``
and checks tokens in the cell databases the API database maps. Run with its
console type disabled it refuses to start: no URL of that type is handed out.
``saphira up`` runs the same proxies (when enabled) in its own process.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Sequence

from oslo_config import cfg

from saphira.conf.endpoints import by_type, listen_port
from saphira.consoleproxy.service import console_proxy
from saphira.exception import ServiceError
from saphira.objects import ConsoleType
from saphira.service.process import run


class _ProxyService:
    console_type: ConsoleType

    def __init__(self, conf: cfg.ConfigOpts) -> None:
        group, host = _LISTEN[self.console_type]
        if not conf[group].enabled:
            raise ServiceError(f"[{group}] enabled is off: no {self.console_type} consoles")
        address = (conf[group][host], listen_port(conf, by_type(self.console_type.value)))
        self.proxy = console_proxy(conf, address, self.console_type)
        try:
            self.proxy.prepare()
        except OSError as error:
            where = f"{address[0]}:{address[1]}"
            raise ServiceError(f"{self.console_type} proxy on {where}: {error}") from None
        self.thread = threading.Thread(target=self.proxy.serve, name=f"serve-{group}")
        self.thread.start()

    def check(self) -> None:
        if not self.thread.is_alive():
            raise ServiceError(f"the {self.console_type} proxy stopped")

    def stop(self) -> None:
        self.proxy.stop()
        self.thread.join(timeout=10)


_LISTEN = {
    ConsoleType.SPICE_HTML5: ("spice", "html5proxy_host"),
    ConsoleType.SERIAL: ("serial_console", "serialproxy_host"),
}


class SpiceProxyService(_ProxyService):
    console_type = ConsoleType.SPICE_HTML5


class SerialProxyService(_ProxyService):
    console_type = ConsoleType.SERIAL


def spice_main(argv: Sequence[str] | None = None) -> int:
    return run("saphira-spicehtml5proxy", SpiceProxyService, argv)


def serial_main(argv: Sequence[str] | None = None) -> int:
    return run("saphira-serialproxy", SerialProxyService, argv)


if __name__ == "__main__":
    sys.exit(serial_main())
