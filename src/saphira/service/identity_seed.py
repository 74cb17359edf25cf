"""The identity data ``saphira up`` makes sure of on every start.

keystone-manage bootstrap (admin project and user, roles, region, catalog),
then what the install guide adds by hand: a ``service`` project holding the
service users whose passwords saphira.conf carries, and a ``demo`` project
and user with the member role. Passwords come from the caller, so a restart
keeps them; a changed one is reset, as bootstrap does.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from oslo_config import cfg
from sqlalchemy.engine import Engine

from saphira.identity import resources, user_options
from saphira.identity.backend import IdentityBackend
from saphira.identity.bootstrap import ServiceEndpoints, bootstrap, ensure_project_user
from saphira.service.statedir import SERVICE_USERS

LOG = logging.getLogger(__name__)
SERVICE_PROJECT = "service"


def _ensure_service_project(backend: IdentityBackend) -> None:
    """The project service users live in, even if saphira.conf names none."""
    with backend.session() as session:
        found = resources.list_projects(
            session, name=SERVICE_PROJECT, domain_id=resources.DEFAULT_DOMAIN_ID
        )
        if not found:
            resources.create_project(
                session, SERVICE_PROJECT, resources.DEFAULT_DOMAIN_ID, enabled=True
            )


def _service_users(backend: IdentityBackend, conf: cfg.ConfigOpts) -> None:
    """Each configured service user, with the admin role on its project (as the guide does)."""
    for group, _default_name in SERVICE_USERS:
        section = conf[group]
        if not (section.username and section.password):
            continue
        ensure_project_user(
            backend,
            project_name=section.project_name,
            username=section.username,
            password=section.password,
            role_name="admin",
            # Keystone's option: guessing a service user's password must not
            # lock the services out (the per-source throttle still applies).
            options={user_options.IGNORE_LOCKOUT: True},
        )


def seed(
    conf: cfg.ConfigOpts,
    engine: Engine,
    passwords: Mapping[str, str],
    endpoints: Mapping[str, str],
) -> None:
    """Bootstrap with ``passwords['admin']``; demo with ``passwords['demo']``.

    ``endpoints`` maps a catalog type to its URL; the all-in-one cloud serves
    public, internal and admin interfaces on the same address.
    """
    backend = IdentityBackend.from_conf(conf, engine)
    bootstrap(
        backend,
        password=passwords["admin"],
        region_id=conf.region_name,
        endpoints={kind: ServiceEndpoints(url, url, url) for kind, url in endpoints.items()},
    )
    _ensure_service_project(backend)
    _service_users(backend, conf)
    ensure_project_user(backend, project_name="demo", username="demo", password=passwords["demo"])
    LOG.info("identity: admin, demo and service users in place")
