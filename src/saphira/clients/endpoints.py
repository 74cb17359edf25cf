"""Where the other services are: ``[group] endpoint_override``, else the identity
catalog (or, where the catalog is this process's own, its own listeners).

An override always wins (``[glance] api_servers`` for the image service, as
in Nova). Without one, a process that serves identity itself (``saphira
up``, ``saphira-api``) reaches the other services at its own listeners on
127.0.0.1, which are what its catalog lists: no look-up, no round trip.
Every other process (the compute, scheduler, conductor and network agent
mains, on a controller or a compute node) reads the catalog its service
user's token comes with (``clients.catalog``): the group's
``valid_interfaces`` and ``region_name`` pick the endpoint, as keystoneauth
does. ``saphira.service.process.run`` turns that on for the per-service mains, once
per process, as it sets the TLS trust (``clients.tls``).
"""

from __future__ import annotations

from typing import Any

from oslo_config import cfg

from saphira.clients.base import FixedURL, Locator
from saphira.clients.catalog import CatalogURL, Wanted
from saphira.clients.identity import PasswordToken
from saphira.conf import endpoints
from saphira.conf.ssl import scheme

_catalog = False


def use_catalog(on: bool = True) -> None:
    """This process finds services without an override in the catalog (or not)."""
    global _catalog
    _catalog = on


WILDCARDS = ("0.0.0.0", "::", "")


def local_url(conf: cfg.ConfigOpts, catalog_type: str) -> str:
    """The all-in-one's own endpoint for ``catalog_type``: 127.0.0.1 while the APIs listen
    on every address, else ``[DEFAULT] bind_host`` (a controller bound to its management
    address, as the test bed's, has nothing listening on loopback)."""
    endpoint = endpoints.by_type(catalog_type)
    port = endpoints.listen_port(conf, endpoint)
    host = "127.0.0.1" if conf.bind_host in WILDCARDS else endpoints.url_host(conf.bind_host)
    return f"{scheme(conf)}://{host}:{port}{endpoint.path}"


def service_url(conf: cfg.ConfigOpts, group: str, catalog_type: str) -> str:
    """``[group] endpoint_override`` (another host's service), else ``local_url``.

    For clients in a process that serves identity itself; the others use
    ``service_locator``.
    """
    override = conf[group].endpoint_override
    return str(override).rstrip("/") if override else local_url(conf, catalog_type)


def image_url(conf: cfg.ConfigOpts) -> str:
    """``[glance] api_servers``' first, else the local image service (no path)."""
    servers = list(conf.glance.api_servers or [])
    return (servers[0] if servers else local_url(conf, "image")).rstrip("/")


def service_locator(
    conf: cfg.ConfigOpts, group: str, catalog_type: str, token: PasswordToken
) -> Locator:
    """The override, else (catalog on) the catalog as ``token``'s user sees it, else local."""
    if conf[group].endpoint_override or not _catalog:
        return FixedURL(service_url(conf, group, catalog_type))
    return _from_catalog(conf[group], catalog_type, token)


def image_locator(conf: cfg.ConfigOpts, token: PasswordToken) -> Locator:
    """``[glance] api_servers``, else (catalog on) the catalog, else the local image service."""
    if conf.glance.api_servers or not _catalog:
        return FixedURL(image_url(conf))
    return _from_catalog(conf.glance, "image", token)


def _from_catalog(section: Any, catalog_type: str, token: PasswordToken) -> CatalogURL:
    """Read at the identity service ``token``'s user authenticates with."""
    wanted = Wanted(catalog_type, tuple(section.valid_interfaces), section.region_name or None)
    return CatalogURL(str(token.section.auth_url), token, wanted, transport=token.transport)
