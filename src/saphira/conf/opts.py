"""The one list of every option, for registration and oslo-config-generator."""

from __future__ import annotations

from oslo_config import cfg

from saphira.conf import (
    agents,
    compute,
    compute_host,
    consoles,
    dashboard,
    database,
    default,
    engine,
    identity,
    image,
    keystone_authtoken,
    libvirt,
    messaging,
    metadata,
    network,
    placement_api,
    scheduler,
    security_compliance,
    services,
    spice_serial,
    ssl,
    wsgi,
)

_MODULES = (
    default,
    database,
    identity,
    security_compliance,
    keystone_authtoken,
    services,
    consoles,
    spice_serial,
    image,
    placement_api,
    network,
    agents,
    compute,
    compute_host,
    metadata,
    libvirt,
    messaging,
    scheduler,
    engine,
    wsgi,
    ssl,
    dashboard,
)


def list_opts() -> list[tuple[cfg.OptGroup | None, list[cfg.Opt]]]:
    result: list[tuple[cfg.OptGroup | None, list[cfg.Opt]]] = []
    for module in _MODULES:
        result.extend(module.list_opts())
    return result
