"""Where the other services are: ``[group] endpoint_override``, else the all-in-one's own.

Catalog look-ups arrive with the multi-host issue; until then a service on
another host is named by its group's ``endpoint_override`` (``[glance]
api_servers`` for the image service, as in Nova).
"""

from __future__ import annotations

from oslo_config import cfg

from saphira.conf import endpoints
from saphira.conf.ssl import scheme


def local_url(conf: cfg.ConfigOpts, catalog_type: str) -> str:
    """The all-in-one's own endpoint for ``catalog_type``."""
    endpoint = endpoints.by_type(catalog_type)
    port = endpoints.listen_port(conf, endpoint)
    return f"{scheme(conf)}://127.0.0.1:{port}{endpoint.path}"


def service_url(conf: cfg.ConfigOpts, group: str, catalog_type: str) -> str:
    """``[group] endpoint_override`` (another host's service), else ``local_url``."""
    override = conf[group].endpoint_override
    return str(override).rstrip("/") if override else local_url(conf, catalog_type)


def image_url(conf: cfg.ConfigOpts) -> str:
    """``[glance] api_servers``' first, else the local image service (no path)."""
    servers = list(conf.glance.api_servers or [])
    return (servers[0] if servers else local_url(conf, "image")).rstrip("/")
