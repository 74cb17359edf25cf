"""``saphira-novncproxy``: the noVNC console proxy alone, as Nova's nova-novncproxy.

Listens on ``[vnc] novncproxy_host``:``novncproxy_port`` (+ ``port_offset``),
serves ``[vnc] novnc_web`` and checks tokens in the cell databases the API
database maps. ``saphira up`` runs the same proxy in its own process.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Sequence

from oslo_config import cfg

from saphira.conf.endpoints import by_type, listen_port
from saphira.consoleproxy.service import novnc_proxy
from saphira.exception import ServiceError
from saphira.service.process import run


class NovncProxyService:
    def __init__(self, conf: cfg.ConfigOpts) -> None:
        address = (conf.vnc.novncproxy_host, listen_port(conf, by_type("novnc")))
        self.proxy = novnc_proxy(conf, address)
        try:
            self.proxy.prepare()
        except OSError as error:
            raise ServiceError(f"novnc proxy on {address[0]}:{address[1]}: {error}") from None
        self.thread = threading.Thread(target=self.proxy.serve, name="serve-novnc")
        self.thread.start()

    def check(self) -> None:
        if not self.thread.is_alive():
            raise ServiceError("the noVNC proxy stopped")

    def stop(self) -> None:
        self.proxy.stop()
        self.thread.join(timeout=10)


def main(argv: Sequence[str] | None = None) -> int:
    return run("saphira-novncproxy", NovncProxyService, argv)


if __name__ == "__main__":
    sys.exit(main())
