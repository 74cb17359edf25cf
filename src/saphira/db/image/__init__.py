"""The image database: Glance's data (images, properties, tags, members) in its
own Alembic history, so it can live on its own server as Glance's does."""

from __future__ import annotations

from oslo_config import cfg
from sqlalchemy.engine import Engine

from saphira.db import migration, urls


def database_url(conf: cfg.ConfigOpts) -> str:
    return urls.database_url(conf, "image_database")


def make_image_engine(conf: cfg.ConfigOpts) -> Engine:
    return urls.make_group_engine(conf, "image_database")


def sync(engine: Engine) -> None:
    """Bring the image schema to head; idempotent."""
    migration.upgrade("image", engine)
