"""The Glance v2 compatible image API over saphira.image.

``build_app(conf)`` is the whole service as one WSGI callable: request ids
outermost, the version documents before authentication, then the token
middleware and the routed app.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from oslo_config import cfg
from werkzeug.routing import Rule

from saphira.api import openapi
from saphira.api.auth import TokenValidator, from_conf
from saphira.api.image import actions, data, images, members, schemas
from saphira.api.image.app import Backend, ImageApp, Settings
from saphira.api.image.versions import VersionsFirst
from saphira.api.openapi import OpenAPIFirst
from saphira.api.wsgi import RequestIdMiddleware
from saphira.db.image import make_image_engine
from saphira.image.data import DataService, Limits
from saphira.image.quotas import parse_reserve, parse_size
from saphira.image.records import Records
from saphira.image.store import FilesystemStore
from saphira.policy import Enforcer

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIApplication

MAX_JSON_BODY = 65536


def settings_from_conf(conf: cfg.ConfigOpts) -> Settings:
    group = conf.image_api
    return Settings(
        disk_formats=tuple(group.disk_formats),
        container_formats=tuple(group.container_formats),
        limit_default=group.limit_param_default,
        limit_max=group.api_limit_max,
        count_quota=group.image_count_total,
        member_quota=group.image_member_quota,
        property_quota=group.image_property_quota,
        tag_quota=group.image_tag_quota,
        import_methods=tuple(group.enabled_import_methods),
    )


def limits_from_conf(conf: cfg.ConfigOpts) -> Limits:
    group = conf.image_api
    return Limits(
        size_cap=group.image_size_cap,
        storage_quota=parse_size(group.user_storage_quota),
        hash_algo=group.hashing_algorithm,
        qemu_img=group.qemu_img,
        staging_cap=parse_size(
            conf.os_glance_staging_store.total_size_cap,
            "[os_glance_staging_store] total_size_cap",
        ),
        reserve=parse_reserve(conf.glance_store.filesystem_store_reserve),
    )


def build_backend(conf: cfg.ConfigOpts) -> Backend:
    """Records, stores, limits and policy from the configuration; the database must be synced."""
    records = Records(make_image_engine(conf))
    store = FilesystemStore(conf.glance_store.filesystem_store_datadir)
    staging = FilesystemStore(conf.os_glance_staging_store.filesystem_store_datadir)
    store.ensure()
    staging.ensure()
    data = DataService(records, store, staging, limits_from_conf(conf))
    return Backend(records, data, settings_from_conf(conf), Enforcer(conf))


def routes() -> list[Rule]:
    """Every route of the API in matching order (the policy matrix test reads it)."""
    return [
        *schemas.routes(),
        *images.routes(),
        *data.routes(),
        *members.routes(),
        *actions.routes(),
    ]


def build_image_app(backend: Backend) -> ImageApp:
    rules = routes()
    return ImageApp(rules, backend, max_body_size=MAX_JSON_BODY)


def build_app(
    conf: cfg.ConfigOpts,
    validator: TokenValidator | None = None,
    backend: Backend | None = None,
) -> WSGIApplication:
    """The image WSGI app; interrupted uploads of a previous run are reset first."""
    backend = backend or build_backend(conf)
    backend.data.recover()
    app = build_image_app(backend)
    authenticated = from_conf(app, conf, validator, is_admin=backend.enforcer.is_admin)
    described = OpenAPIFirst(authenticated, openapi.described_image(backend.settings))
    return RequestIdMiddleware(VersionsFirst(described))


__all__ = [
    "build_app",
    "build_backend",
    "build_image_app",
    "limits_from_conf",
    "routes",
    "settings_from_conf",
]
