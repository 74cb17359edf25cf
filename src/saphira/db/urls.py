"""Where each database is: its group's ``connection``, or the embedded SQLite file."""

from __future__ import annotations

import os

from oslo_config import cfg
from sqlalchemy.engine import Engine

from saphira.conf import database
from saphira.db import shared


def database_url(conf: cfg.ConfigOpts, group: str) -> str:
    """[group] connection, or sqlite:///$state_path/<the service's usual file name>."""
    url: str | None = conf[group].connection
    if url:
        return url
    path = os.path.join(os.path.abspath(conf.state_path), database.get(group).sqlite_name)
    return f"sqlite:///{path}"


def make_group_engine(conf: cfg.ConfigOpts, group: str) -> Engine:
    """The process's engine for [group]'s database (``saphira.db.shared``)."""
    return shared.engine(database_url(conf, group), connect_timeout=conf[group].connect_timeout)
