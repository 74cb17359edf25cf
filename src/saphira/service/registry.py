"""The HTTP services ``saphira up`` serves: the endpoint table plus app factories.

Ports, paths and catalog names live in ``saphira.conf.endpoints`` (the
catalog and the listeners read the same row); this module attaches the WSGI
application that serves each. A later issue serves a new API by adding its
factory to ``_FACTORIES``; rows without one are in the catalog but not served.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Protocol

from oslo_config import cfg

from saphira.conf.endpoints import ENDPOINTS, Endpoint, bind_url, listen_port, public_url

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIApplication

AppFactory = Callable[[cfg.ConfigOpts], "WSGIApplication"]


class Listener(Protocol):
    """A server that is not a WSGI app (a console proxy): bind, serve, stop."""

    def prepare(self) -> None: ...

    def serve(self) -> None: ...

    def stop(self) -> None: ...


ListenerFactory = Callable[[cfg.ConfigOpts, tuple[str, int]], Listener]


@dataclasses.dataclass(frozen=True)
class ServiceSpec(Endpoint):
    factory: AppFactory | None = None
    listener: ListenerFactory | None = None  # served by its own server, not cheroot
    threads: Callable[[cfg.ConfigOpts], int] | None = None  # its server's workers, if not 16

    @property
    def served(self) -> bool:
        return self.factory is not None


def _image_app(conf: cfg.ConfigOpts) -> WSGIApplication:
    # In process, tokens are validated against the identity backend directly.
    from saphira.api.auth import LocalValidator
    from saphira.api.image import build_app
    from saphira.identity.backend import IdentityBackend

    return build_app(conf, LocalValidator(IdentityBackend.from_conf(conf)))


def _compute_app(conf: cfg.ConfigOpts) -> WSGIApplication:
    from saphira.api.auth import LocalValidator
    from saphira.api.compute import build_app
    from saphira.identity.backend import IdentityBackend

    return build_app(conf, LocalValidator(IdentityBackend.from_conf(conf)))


def _placement_app(conf: cfg.ConfigOpts) -> WSGIApplication:
    from saphira.api.auth import LocalValidator
    from saphira.api.placement import build_app
    from saphira.identity.backend import IdentityBackend

    return build_app(conf, LocalValidator(IdentityBackend.from_conf(conf)))


def _network_app(conf: cfg.ConfigOpts) -> WSGIApplication:
    from saphira.api.auth import LocalValidator
    from saphira.api.network import build_app
    from saphira.identity.backend import IdentityBackend

    return build_app(conf, LocalValidator(IdentityBackend.from_conf(conf)))


def _metadata_app(conf: cfg.ConfigOpts) -> WSGIApplication:
    from saphira.api.metadata import build_app

    return build_app(conf)


def _identity_app(conf: cfg.ConfigOpts) -> WSGIApplication:
    # Imported on use: building the registry must not pull in every API.
    from saphira.api.identity import build_app

    return build_app(conf)


def _dashboard_app(conf: cfg.ConfigOpts) -> WSGIApplication:
    from saphira.dashboard import build_app

    return build_app(conf)


def _novnc_proxy(conf: cfg.ConfigOpts, address: tuple[str, int]) -> Listener:
    from saphira.consoleproxy.service import novnc_proxy

    return novnc_proxy(conf, address)


def _spice_proxy(conf: cfg.ConfigOpts, address: tuple[str, int]) -> Listener:
    from saphira.consoleproxy.service import console_proxy
    from saphira.objects import ConsoleType

    return console_proxy(conf, address, ConsoleType.SPICE_HTML5)


def _serial_proxy(conf: cfg.ConfigOpts, address: tuple[str, int]) -> Listener:
    from saphira.consoleproxy.service import console_proxy
    from saphira.objects import ConsoleType

    return console_proxy(conf, address, ConsoleType.SERIAL)


_LISTENERS: dict[str, ListenerFactory] = {
    "novnc": _novnc_proxy,
    "spice-html5": _spice_proxy,
    "serial": _serial_proxy,
}
# The proxies that run only when their console type is on (as Nova's are deployed).
_ENABLED: dict[str, Callable[[cfg.ConfigOpts], bool]] = {
    "spice-html5": lambda conf: bool(conf.spice.enabled),
    "serial": lambda conf: bool(conf.serial_console.enabled),
}

_FACTORIES: dict[str, AppFactory] = {
    "image": _image_app,
    "identity": _identity_app,
    "compute": _compute_app,
    "placement": _placement_app,
    "network": _network_app,
    "metadata": _metadata_app,
    "dashboard": _dashboard_app,
}
# Servers whose requests are long-lived (the dashboard's event streams) size their pool.
_THREADS: dict[str, Callable[[cfg.ConfigOpts], int]] = {
    "dashboard": lambda conf: int(conf.dashboard.threads),
}
#: Served by ``saphira up`` and by a main of their own, not by ``saphira-api``.
OWN_MAIN = frozenset({"dashboard"})

#: ``[DEFAULT] enabled_apis`` names the APIs Nova's API process serves.
_ENABLED_APIS = {"compute": "osapi_compute", "metadata": "metadata"}


def _spec(endpoint: Endpoint) -> ServiceSpec:
    fields = {f.name: getattr(endpoint, f.name) for f in dataclasses.fields(endpoint)}
    kind = endpoint.catalog_type
    return ServiceSpec(
        **fields,
        factory=_FACTORIES.get(kind),
        listener=_LISTENERS.get(kind),
        threads=_THREADS.get(kind),
    )


SERVICES: tuple[ServiceSpec, ...] = tuple(_spec(endpoint) for endpoint in ENDPOINTS)


def by_type(catalog_type: str) -> ServiceSpec:
    return next(spec for spec in SERVICES if spec.catalog_type == catalog_type)


def served(specs: Iterable[ServiceSpec] = SERVICES) -> list[ServiceSpec]:
    return [spec for spec in specs if spec.served]


def proxies(
    specs: Iterable[ServiceSpec] = SERVICES, conf: cfg.ConfigOpts | None = None
) -> list[ServiceSpec]:
    """The console proxies ``saphira up`` runs beside the APIs (saphira-api does not);
    given ``conf``, only those whose console type is enabled (SPICE, serial: off)."""
    found = [spec for spec in specs if spec.listener is not None]
    if conf is None:
        return found
    return [s for s in found if s.catalog_type not in _ENABLED or _ENABLED[s.catalog_type](conf)]


def enabled(conf: cfg.ConfigOpts, specs: Iterable[ServiceSpec]) -> list[ServiceSpec]:
    """``specs`` less the compute-side APIs ``[DEFAULT] enabled_apis`` leaves out."""
    apis = set(conf.enabled_apis)
    return [s for s in specs if _ENABLED_APIS.get(s.catalog_type, "") in apis | {""}]


def catalog(specs: Iterable[ServiceSpec] = SERVICES) -> list[ServiceSpec]:
    """What bootstrap writes into the identity catalog, served yet or not."""
    return [spec for spec in specs if spec.in_catalog]


__all__ = [
    "OWN_MAIN",
    "SERVICES",
    "ServiceSpec",
    "bind_url",
    "by_type",
    "catalog",
    "enabled",
    "listen_port",
    "proxies",
    "public_url",
    "served",
]
