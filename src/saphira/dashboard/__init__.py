"""The web dashboard: Horizon's workflows, talking to the cloud only through its APIs.

Server-rendered pages (Werkzeug + Jinja2) with a little plain JavaScript of
our own; openstacksdk with the logged-in user's token for every call. It
imports no database, service layer or RPC (an import-linter contract says so).

``build_app`` gives a ``Deferred`` dashboard: it is made on its first request,
so a ``saphira up`` nobody opens the dashboard of never imports openstacksdk
and Jinja2 (their import is most of the dashboard's cost in start-up time and
memory).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING

from oslo_config import cfg

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIEnvironment

    from saphira.dashboard.app import Dashboard


class Deferred:
    """A WSGI app that makes the dashboard on its first request (once, under a lock)."""

    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self.conf = conf
        self._made: Dashboard | None = None
        self._closed = False
        self._lock = threading.Lock()

    def __call__(self, environ: WSGIEnvironment, start: StartResponse) -> Iterable[bytes]:
        return self._dashboard()(environ, start)

    def _dashboard(self) -> Dashboard:
        with self._lock:
            if self._made is None:
                self._made = _make(self.conf)
                if self._closed:
                    self._made.close()
            return self._made

    def close(self) -> None:
        """The server stops: the dashboard, if made, ends its event streams."""
        with self._lock:
            self._closed = True
            made = self._made
        if made is not None:
            made.close()


def _make(conf: cfg.ConfigOpts) -> Dashboard:
    from saphira.dashboard.app import Dashboard
    from saphira.dashboard.views import VIEWS

    return Dashboard(conf, VIEWS)


def build_app(conf: cfg.ConfigOpts) -> Deferred:
    return Deferred(conf)
