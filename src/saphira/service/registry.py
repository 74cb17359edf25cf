"""The HTTP services ``saphira up`` serves: the endpoint table plus app factories.

Ports, paths and catalog names live in ``saphira.conf.endpoints`` (the
catalog and the listeners read the same row); this module attaches the WSGI
application that serves each. A later issue serves a new API by adding its
factory to ``_FACTORIES``; rows without one are in the catalog but not served.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from oslo_config import cfg

from saphira.conf.endpoints import ENDPOINTS, Endpoint, bind_url, listen_port, public_url

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIApplication

AppFactory = Callable[[cfg.ConfigOpts], "WSGIApplication"]


@dataclasses.dataclass(frozen=True)
class ServiceSpec(Endpoint):
    factory: AppFactory | None = None

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


_FACTORIES: dict[str, AppFactory] = {
    "image": _image_app,
    "identity": _identity_app,
    "compute": _compute_app,
    "placement": _placement_app,
    "network": _network_app,
    "metadata": _metadata_app,
}

#: ``[DEFAULT] enabled_apis`` names the APIs Nova's API process serves.
_ENABLED_APIS = {"compute": "osapi_compute", "metadata": "metadata"}


def _spec(endpoint: Endpoint) -> ServiceSpec:
    fields = {f.name: getattr(endpoint, f.name) for f in dataclasses.fields(endpoint)}
    return ServiceSpec(**fields, factory=_FACTORIES.get(endpoint.catalog_type))


SERVICES: tuple[ServiceSpec, ...] = tuple(_spec(endpoint) for endpoint in ENDPOINTS)


def by_type(catalog_type: str) -> ServiceSpec:
    return next(spec for spec in SERVICES if spec.catalog_type == catalog_type)


def served(specs: Iterable[ServiceSpec] = SERVICES) -> list[ServiceSpec]:
    return [spec for spec in specs if spec.served]


def enabled(conf: cfg.ConfigOpts, specs: Iterable[ServiceSpec]) -> list[ServiceSpec]:
    """``specs`` less the compute-side APIs ``[DEFAULT] enabled_apis`` leaves out."""
    apis = set(conf.enabled_apis)
    return [s for s in specs if _ENABLED_APIS.get(s.catalog_type, "") in apis | {""}]


def catalog(specs: Iterable[ServiceSpec] = SERVICES) -> list[ServiceSpec]:
    """What bootstrap writes into the identity catalog, served yet or not."""
    return [spec for spec in specs if spec.in_catalog]


__all__ = [
    "SERVICES",
    "ServiceSpec",
    "bind_url",
    "by_type",
    "catalog",
    "enabled",
    "listen_port",
    "public_url",
    "served",
]
