"""[vnc], [glance], [oslo_concurrency], [placement], [scheduler], [neutron].

The remaining keys of the install guide; the services that use them come in
later issues but the operator's nova.conf is accepted and checked today.
"""

from __future__ import annotations

from oslo_config import cfg


def auth_opts() -> list[cfg.Opt]:
    """The keystoneauth password plugin keys the guide writes for a service user."""
    return [
        cfg.StrOpt("region_name", default="RegionOne", help="Region of the service."),
        cfg.StrOpt("auth_type", default="password", choices=["password"], help="Auth plugin."),
        cfg.URIOpt("auth_url", help="Identity endpoint."),
        cfg.StrOpt("project_domain_name", default="Default", help="Service project's domain."),
        cfg.StrOpt("user_domain_name", default="Default", help="Service user's domain."),
        cfg.StrOpt("project_name", default="service", help="Service project."),
        cfg.StrOpt("username", help="Service user."),
        cfg.StrOpt("password", secret=True, help="Service user's password."),
        *catalog_opts(),
        cfg.URIOpt(
            "endpoint_override",
            help="The service's URL, used as it is; unset, the identity catalog's (the "
            "all-in-one and saphira-api: their own listener on this host).",
        ),
    ]


def catalog_opts() -> list[cfg.Opt]:
    """How a service's URL is picked from the identity catalog (keystoneauth's keys)."""
    return [
        cfg.ListOpt(
            "valid_interfaces",
            default=["internal", "public"],
            help="Catalog interfaces to use, most preferred first.",
        ),
    ]


_GROUPS: dict[str, tuple[str, list[cfg.Opt]]] = {
    "vnc": (
        "VNC consoles.",
        [
            cfg.BoolOpt("enabled", default=True, help="Give guests VNC graphics."),
            cfg.HostAddressOpt(
                "server_listen", default="127.0.0.1", help="Where guest VNC servers listen."
            ),
            cfg.HostAddressOpt(
                "server_proxyclient_address",
                default="127.0.0.1",
                help="Address the console proxy uses to reach guest VNC servers.",
            ),
            cfg.URIOpt(
                "novncproxy_base_url",
                help="URL users open for a noVNC console; unset, "
                "http://[DEFAULT] my_ip:novncproxy_port (+ port_offset)/vnc_auto.html.",
            ),
            cfg.HostAddressOpt(
                "novncproxy_host",
                default="0.0.0.0",
                help="Address saphira-novncproxy listens on (saphira up: [DEFAULT] bind_host).",
            ),
            cfg.PortOpt("novncproxy_port", default=6080, help="Port of the noVNC proxy."),
            cfg.StrOpt(
                "novnc_web",
                default="/usr/share/novnc",
                help="The noVNC client files the proxy serves (Debian's novnc package).",
            ),
        ],
    ),
    "glance": (
        "The image service.",
        [
            cfg.ListOpt(
                "api_servers",
                help="Image API URLs, e.g. http://controller:9292; unset, the identity "
                "catalog's (the all-in-one and saphira-api: their own listener).",
            ),
            cfg.StrOpt(
                "region_name",
                default="RegionOne",
                help="Region of the image service in the identity catalog.",
            ),
            *catalog_opts(),
        ],
    ),
    "oslo_concurrency": (
        "Inter-process locks.",
        [cfg.StrOpt("lock_path", default="$state_path/tmp", help="Directory of lock files.")],
    ),
    "placement": ("The placement service and the user that talks to it.", auth_opts()),
    "scheduler": (
        "The scheduler.",
        [
            cfg.IntOpt(
                "discover_hosts_in_cells_interval",
                default=-1,
                min=-1,
                help="Seconds between automatic host discoveries; -1 disables it.",
            ),
        ],
    ),
    "neutron": (
        "The network service and the user that talks to it.",
        [
            *auth_opts(),
            cfg.BoolOpt(
                "service_metadata_proxy",
                default=False,
                help="The network service proxies metadata requests.",
            ),
            cfg.StrOpt(
                "metadata_proxy_shared_secret",
                default="",
                secret=True,
                help="Secret that signs instance ids forwarded by the metadata proxy.",
            ),
        ],
    ),
}


def list_opts() -> list[tuple[cfg.OptGroup | None, list[cfg.Opt]]]:
    return [(cfg.OptGroup(name, help=title), opts) for name, (title, opts) in _GROUPS.items()]
