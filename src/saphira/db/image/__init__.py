"""The image database: Glance's data (images, properties, tags, members) in its
own Alembic history, so it can live on its own server as Glance's does."""

from __future__ import annotations

import os

from oslo_config import cfg
from sqlalchemy.engine import Engine

from saphira.db import migration
from saphira.db.engine import make_engine

SQLITE_NAME = "glance.sqlite"


def database_url(conf: cfg.ConfigOpts) -> str:
    """[image_database] connection, or the embedded SQLite file under state_path."""
    url: str | None = conf.image_database.connection
    if url:
        return url
    path = os.path.join(os.path.abspath(conf.state_path), SQLITE_NAME)
    return f"sqlite:///{path}"


def make_image_engine(conf: cfg.ConfigOpts) -> Engine:
    return make_engine(database_url(conf), connect_timeout=conf.image_database.connect_timeout)


def sync(engine: Engine) -> None:
    """Bring the image schema to head; idempotent."""
    migration.upgrade("image", engine)
