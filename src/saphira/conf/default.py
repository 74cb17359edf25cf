"""[DEFAULT]: the keys of the install guide plus where Saphira keeps state.

transport_url and the other bus keys are oslo.messaging's own: see conf/messaging.py.
"""

from __future__ import annotations

import socket

from oslo_config import cfg, types

opts: list[cfg.Opt] = [
    cfg.HostAddressOpt(
        "my_ip",
        default="127.0.0.1",
        help="This host's management address. Catalog endpoints and the VNC "
        "server address are derived from it.",
    ),
    cfg.StrOpt(
        "host",
        default=socket.gethostname(),
        sample_default="<this machine's hostname>",
        help="Name of this host in the cloud.",
    ),
    cfg.ListOpt(
        "enabled_apis",
        default=["osapi_compute", "metadata"],
        item_type=types.String(choices=["osapi_compute", "metadata"]),
        help="Compute-side APIs this process serves.",
    ),
    cfg.StrOpt(
        "state_path",
        default="/var/lib/saphira",
        help="Top directory for every file Saphira keeps (databases, keys, images).",
    ),
    cfg.HostAddressOpt(
        "bind_host",
        default="0.0.0.0",
        help="Address the HTTP APIs listen on.",
    ),
    cfg.IntOpt(
        "port_offset",
        default=0,
        min=0,
        max=50000,
        help="Added to every listening port so several clouds can run side by side.",
    ),
    cfg.StrOpt("region_name", default="RegionOne", help="Region this controller serves."),
    cfg.BoolOpt("debug", default=False, help="Log at DEBUG level."),
    cfg.StrOpt("log_file", help="Log to this file instead of standard error."),
]


def list_opts() -> list[tuple[cfg.OptGroup | None, list[cfg.Opt]]]:
    return [(None, opts)]
