"""The HTTP server every API runs on: cheroot, with request heads read off the pool.

``FrontServer`` is cheroot's WSGI server with ``heads.HeadFirst`` as its
connection manager (idle and slow connections cost no worker thread), a
per-address connection count, and, when given an SSL adapter, TLS handshakes
done without blocking the accept loop.
"""

from __future__ import annotations

from typing import Any

from cheroot import wsgi
from cheroot.server import HTTPConnection
from cheroot.ssl.builtin import BuiltinSSLAdapter
from oslo_config import cfg

from saphira.api.wsgi.heads import HeadFirst, Limits
from saphira.conf.ssl import enabled
from saphira.exception import ConfigError


def limits_from_conf(conf: cfg.ConfigOpts) -> Limits:
    group = conf.wsgi
    return Limits(
        idle_timeout=group.client_socket_timeout,
        header_timeout=group.header_timeout,
        max_header_size=group.max_header_size,
        max_per_client=group.max_connections_per_client,
    )


def tls_adapter(conf: cfg.ConfigOpts) -> BuiltinSSLAdapter | None:
    """cheroot's builtin (Python ``ssl``) adapter for [ssl] cert_file/key_file, if set."""
    if not enabled(conf):
        return None
    try:
        return BuiltinSSLAdapter(conf.ssl.cert_file, conf.ssl.key_file)
    except (OSError, ValueError) as error:  # ssl.SSLError is an OSError
        raise ConfigError(
            f"[ssl] cert_file {conf.ssl.cert_file} / key_file {conf.ssl.key_file}: {error}"
        ) from None


class FrontConnection(HTTPConnection):
    """cheroot's connection, telling the manager when its address holds one fewer."""

    _released = False

    def close(self) -> None:
        try:
            super().close()
        finally:
            if not self._released:
                self._released = True
                manager = getattr(self.server, "_connections", None)
                if isinstance(manager, HeadFirst):
                    manager.release(self.remote_addr)


class FrontServer(wsgi.Server):
    ConnectionClass = FrontConnection

    def __init__(self, *args: Any, limits: Limits, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.timeout = limits.header_timeout  # each blocking read of a worker
        self.limits = limits

    def prepare(self) -> None:
        super().prepare()
        if not self.ready:
            return
        cheroot_manager: Any = getattr(self, "_connections")  # noqa: B009  # cheroot's
        self._connections = HeadFirst(self, self.limits)
        cheroot_manager._selector.close()  # never ran; ours serves the socket
