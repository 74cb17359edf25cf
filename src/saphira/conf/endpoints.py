"""The controller's HTTP endpoints: one table of names, ports and paths.

The catalog that bootstrap writes, the ports ``saphira up`` binds and the
URLs ``saphira-manage bootstrap`` registers must agree; they all read this
table. It lives beside the options because a port is configuration: the
application factories that serve these endpoints are attached higher up, in
``saphira.service.registry``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from oslo_config import cfg

from saphira.conf.ssl import scheme


@dataclass(frozen=True)
class Endpoint:
    name: str  # the catalog's service name, as Keystone's bootstrap and the guide write it
    catalog_type: str
    default_port: int
    path: str  # appended to http(s)://my_ip:port for the catalog URL; "" for the root
    description: str
    port_option: tuple[str | None, str] | None = None  # (group or None for DEFAULT, key)
    in_catalog: bool = True  # False for APIs clients never look up (metadata, consoles)


_METADATA_PORT = (None, "metadata_listen_port")
ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint("keystone", "identity", 5000, "/v3", "Identity", ("identity", "port")),
    Endpoint("nova", "compute", 8774, "/v2.1", "Compute", (None, "osapi_compute_listen_port")),
    Endpoint("glance", "image", 9292, "", "Image", ("image_api", "bind_port")),
    Endpoint("neutron", "network", 9696, "", "Network"),
    Endpoint("placement", "placement", 8778, "", "Placement", ("placement_api", "port")),
    # Not an API: the noVNC console proxy, whose URLs the compute API hands out.
    Endpoint(
        "nova-novncproxy",
        "novnc",
        6080,
        "/vnc_auto.html",
        "noVNC console proxy",
        ("vnc", "novncproxy_port"),
        in_catalog=False,
    ),
    Endpoint("nova-metadata", "metadata", 8775, "", "Metadata", _METADATA_PORT, in_catalog=False),
    # The SPICE html5 and serial console proxies ([spice], [serial_console] enabled).
    Endpoint(
        "nova-spicehtml5proxy",
        "spice-html5",
        6082,
        "/spice_auto.html",
        "SPICE html5 console proxy",
        ("spice", "html5proxy_port"),
        in_catalog=False,
    ),
    Endpoint(
        "nova-serialproxy",
        "serial",
        6083,
        "/",
        "Serial console proxy",
        ("serial_console", "serialproxy_port"),
        in_catalog=False,
    ),
    # The web dashboard: in the catalog, as Horizon is registered where it is deployed.
    Endpoint("horizon", "dashboard", 8080, "/", "Dashboard", ("dashboard", "port")),
)


def by_type(catalog_type: str) -> Endpoint:
    return next(ep for ep in ENDPOINTS if ep.catalog_type == catalog_type)


def base_port(conf: cfg.ConfigOpts, endpoint: Endpoint) -> int:
    """The configured port before the offset; the default until an option exists."""
    if endpoint.port_option is None:
        return endpoint.default_port
    group, key = endpoint.port_option
    value: Any = conf[group][key] if group else conf[key]
    return int(value)


def listen_port(conf: cfg.ConfigOpts, endpoint: Endpoint) -> int:
    return base_port(conf, endpoint) + int(conf.port_offset)


def url_host(host: str) -> str:
    """``host`` as a URL writes it (an IPv6 address in brackets)."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def public_url(conf: cfg.ConfigOpts, endpoint: Endpoint) -> str:
    """The catalog URL: reachable at my_ip, whatever address the server binds."""
    host = url_host(conf.my_ip)
    return f"{scheme(conf)}://{host}:{listen_port(conf, endpoint)}{endpoint.path}"


def console_base_url(conf: cfg.ConfigOpts, endpoint: Endpoint) -> str:
    """A console proxy's URL at my_ip; plain http (the proxies serve no TLS yet)."""
    return f"http://{url_host(conf.my_ip)}:{listen_port(conf, endpoint)}{endpoint.path}"


def bind_url(conf: cfg.ConfigOpts, endpoint: Endpoint) -> str:
    return f"{scheme(conf)}://{url_host(conf.bind_host)}:{listen_port(conf, endpoint)}"
