"""The web dashboard: Horizon's workflows, talking to the cloud only through its APIs.

Server-rendered pages (Werkzeug + Jinja2) with a little plain JavaScript of
our own; openstacksdk with the logged-in user's token for every call. It
imports no database, service layer or RPC (an import-linter contract says so).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from oslo_config import cfg

if TYPE_CHECKING:
    from saphira.dashboard.app import Dashboard


def build_app(conf: cfg.ConfigOpts) -> Dashboard:
    from saphira.dashboard.app import Dashboard
    from saphira.dashboard.views import VIEWS

    return Dashboard(conf, VIEWS)
