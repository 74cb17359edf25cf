"""The HTTP services of the controller: one typed table for ports, paths and apps.

The catalog and the listeners must agree on every port; keeping both in one
table means a later issue adds a service by adding one row (and its factory),
and the catalog endpoint bootstrap writes is the port the runner binds.
Rows without a factory are in the catalog already but not served yet.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from oslo_config import cfg

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIApplication

AppFactory = Callable[[cfg.ConfigOpts], "WSGIApplication"]


@dataclass(frozen=True)
class ServiceSpec:
    name: str  # the catalog's service name, as Keystone's bootstrap and the guide write it
    catalog_type: str
    default_port: int
    path: str  # appended to http://my_ip:port for the catalog URL; "" for the root
    description: str
    port_option: tuple[str | None, str] | None = None  # (group or None for DEFAULT, key)
    factory: AppFactory | None = None
    in_catalog: bool = True  # False for APIs clients never look up (metadata, consoles)

    @property
    def served(self) -> bool:
        return self.factory is not None


def _identity_app(conf: cfg.ConfigOpts) -> WSGIApplication:
    # Imported on use: building the registry must not pull in every API.
    from saphira.api.identity import build_app

    return build_app(conf)


SERVICES: tuple[ServiceSpec, ...] = (
    ServiceSpec(
        "keystone", "identity", 5000, "/v3", "Identity", ("identity", "port"), _identity_app
    ),
    ServiceSpec("nova", "compute", 8774, "/v2.1", "Compute"),
    ServiceSpec("glance", "image", 9292, "", "Image"),
    ServiceSpec("neutron", "network", 9696, "", "Network"),
    ServiceSpec("placement", "placement", 8778, "", "Placement"),
)


def served(specs: Iterable[ServiceSpec] = SERVICES) -> list[ServiceSpec]:
    return [spec for spec in specs if spec.served]


def catalog(specs: Iterable[ServiceSpec] = SERVICES) -> list[ServiceSpec]:
    """What bootstrap writes into the identity catalog, served yet or not."""
    return [spec for spec in specs if spec.in_catalog]


def base_port(conf: cfg.ConfigOpts, spec: ServiceSpec) -> int:
    """The configured port before the offset; the default until an option exists."""
    if spec.port_option is None:
        return spec.default_port
    group, key = spec.port_option
    value: Any = conf[group][key] if group else conf[key]
    return int(value)


def listen_port(conf: cfg.ConfigOpts, spec: ServiceSpec) -> int:
    return base_port(conf, spec) + int(conf.port_offset)


def _host_for_url(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def public_url(conf: cfg.ConfigOpts, spec: ServiceSpec) -> str:
    """The catalog URL: reachable at my_ip, whatever address the server binds."""
    return f"http://{_host_for_url(conf.my_ip)}:{listen_port(conf, spec)}{spec.path}"


def bind_url(conf: cfg.ConfigOpts, spec: ServiceSpec) -> str:
    return f"http://{_host_for_url(conf.bind_host)}:{listen_port(conf, spec)}"
