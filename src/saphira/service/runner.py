"""Serve several WSGI apps, one cheroot server (and thread pool) each.

Every socket is bound before any server starts serving, so a busy port stops
the cloud before it half-starts. Any server that dies stops all the others:
an all-in-one cloud with a missing API is worse than one that is down.
"""

from __future__ import annotations

import logging
import re
import socket
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from oslo_config import cfg

from saphira.api.wsgi.front import FrontServer, limits_from_conf, tls_adapter
from saphira.clients import transport
from saphira.clients.inprocess import WSGITransport
from saphira.conf.ssl import scheme
from saphira.exception import ServiceError
from saphira.service.registry import Listener, ServiceSpec, listen_port

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIApplication

LOG = logging.getLogger(__name__)

THREADS_PER_SERVICE = 16
# The listen backlog. cheroot's default of 5 resets connections as soon as a
# burst of clients (100 concurrent creates, a tempest run) outpaces accept();
# eventlet-era OpenStack services used 4096.
LISTEN_BACKLOG = 1024
SHUTDOWN_TIMEOUT = 2  # seconds a worker may take to finish its request on stop
_ERRNO_TEXT = re.compile(r"\[Errno \d+\] ([^)\]]+)")


class _Server(FrontServer):
    """cheroot's server, logging through ``logging`` instead of raw stderr."""

    def error_log(self, msg: str = "", level: int = logging.INFO, traceback: bool = False) -> None:
        LOG.log(level, "%s: %s", self.server_name, msg, exc_info=traceback)


def _why(error: BaseException) -> str:
    """cheroot folds the socket error into a long message; keep its reason."""
    cause = error.__cause__ if isinstance(error.__cause__, OSError) else error
    if isinstance(cause, OSError) and cause.strerror:
        return cause.strerror.lower()
    found = _ERRNO_TEXT.findall(str(error))
    return found[-1].lower() if found else str(error)


def _where(spec: ServiceSpec, host: str, port: int) -> str:
    return f"{spec.catalog_type} ({spec.name}) on {host}:{port}"


def _probe(host: str, port: int) -> None:
    """Bind and release the port first: cheroot leaks its socket when bind fails."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as cheroot binds
        sock.bind((host, port))


@dataclass
class _Served:
    spec: ServiceSpec
    host: str
    port: int
    server: Listener  # cheroot's server, or a proxy's own
    thread: threading.Thread | None = None
    app: WSGIApplication | None = None  # None for a proxy


@dataclass
class Runner:
    """Start, watch and stop the given services; one instance per cloud."""

    conf: cfg.ConfigOpts
    specs: list[ServiceSpec]
    in_process: bool = False  # this process's calls to its own APIs skip the socket
    _served: list[_Served] = field(default_factory=list)
    _origins: list[str] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _failure: str | None = None
    stop_reason: str | None = None

    def check_ports(self) -> None:
        """Fail early, before any state is touched, if a port is already taken."""
        for spec in self.specs:
            host, port = self.conf.bind_host, listen_port(self.conf, spec)
            try:
                _probe(host, port)
            except OSError as error:
                raise ServiceError(
                    f"{_where(spec, host, port)}: cannot listen: {_why(error)}"
                ) from None

    def start(self) -> None:
        """Build every app and bind every port, then serve; ServiceError if any fails."""
        try:
            for spec in self.specs:
                self._served.append(self._prepare(spec))
        except BaseException:
            self.stop()
            raise
        if self.in_process:
            self._serve_locally()
        for served in self._served:
            served.thread = threading.Thread(
                target=self._serve, args=(served,), name=f"serve-{served.spec.catalog_type}"
            )
            served.thread.start()

    def _prepare(self, spec: ServiceSpec) -> _Served:
        host, port = self.conf.bind_host, listen_port(self.conf, spec)
        if spec.listener is not None:
            return self._prepared(spec, host, port, spec.listener(self.conf, (host, port)))
        assert spec.factory is not None, f"{spec.name} is not served"
        app: WSGIApplication = spec.factory(self.conf)
        server = _Server(
            (host, port),
            app,
            numthreads=spec.threads(self.conf) if spec.threads else THREADS_PER_SERVICE,
            request_queue_size=LISTEN_BACKLOG,
            server_name=spec.catalog_type,
            shutdown_timeout=SHUTDOWN_TIMEOUT,
            limits=limits_from_conf(self.conf),
        )
        server.ssl_adapter = tls_adapter(self.conf)
        served = self._prepared(spec, host, port, server)
        served.app = app
        return served

    def _serve_locally(self) -> None:
        """Every served app reached in process at each origin this process listens on."""
        limit = self.conf.wsgi.max_header_size
        for served in self._served:
            if served.app is None:
                continue
            local = WSGITransport(
                served.app, server_name=served.spec.catalog_type, max_header_size=limit
            )
            for origin in own_origins(self.conf, served.port):
                transport.serve_locally(origin, local)
                self._origins.append(origin)

    def _prepared(self, spec: ServiceSpec, host: str, port: int, server: Listener) -> _Served:
        where = _where(spec, host, port)
        try:
            _probe(host, port)
            server.prepare()
        except OSError as error:
            raise ServiceError(f"{where}: cannot listen: {_why(error)}") from None
        LOG.info("%s: listening", where)
        return _Served(spec, host, port, server)

    def _serve(self, served: _Served) -> None:
        try:
            served.server.serve()
        except BaseException as error:
            self._fail(f"{served.spec.catalog_type} ({served.spec.name}) failed: {error}")
            return
        if not self._stop.is_set():
            self._fail(f"{served.spec.catalog_type} ({served.spec.name}) stopped unexpectedly")

    def _fail(self, why: str) -> None:
        if self._failure is None:
            self._failure = why
        LOG.error("%s", why)
        self._stop.set()

    def request_stop(self, reason: str = "stop requested") -> None:
        """Ask every server to stop; safe from a signal handler (it only sets flags)."""
        if self.stop_reason is None:
            self.stop_reason = reason
        self._stop.set()

    @property
    def stop_requested(self) -> bool:
        return self._stop.is_set()

    def wait(self, poll: float = 0.5) -> None:
        """Block until a stop is requested; ServiceError if a service died.

        Waits in short slices so the main thread keeps running signal handlers.
        """
        while not self._stop.wait(poll):
            pass
        if self._failure is not None:
            raise ServiceError(self._failure)

    def stop(self) -> None:
        self._stop.set()
        for origin in self._origins:
            transport.withdraw_local(origin)
        self._origins.clear()
        for served in reversed(self._served):
            _close(served.app)  # ends what holds a worker (the dashboard's event streams)
            served.server.stop()
        for served in self._served:
            if served.thread is not None:
                served.thread.join(timeout=SHUTDOWN_TIMEOUT + 3)
        self._served.clear()

    def urls(self) -> list[tuple[ServiceSpec, str, int]]:
        return [(s.spec, s.host, s.port) for s in self._served]


def _close(app: WSGIApplication | None) -> None:
    """An app with a ``close()`` is told the server stops, before its workers are."""
    close = getattr(app, "close", None)
    if callable(close):
        close()


_WILDCARDS = frozenset({"0.0.0.0", "::", ""})


def own_origins(conf: cfg.ConfigOpts, port: int) -> list[str]:
    """``scheme://host:port`` for each address a listener on ``port`` answers at:
    the bind address, and on a wildcard bind also loopback and ``my_ip``."""
    bind = str(conf.bind_host)
    hosts = {bind} - _WILDCARDS
    if bind in _WILDCARDS or bind == conf.my_ip:
        hosts |= {str(conf.my_ip), "127.0.0.1", "localhost"}
        hosts |= {"::1"} if ":" in bind else set()
    return sorted(f"{scheme(conf)}://{_bracketed(host)}:{port}" for host in hosts)


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host else host
