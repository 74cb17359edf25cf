"""The metadata API and the config drive: Nova's names and defaults.

``[DEFAULT] metadata_listen_port`` and
``force_config_drive`` live in Nova's ``[DEFAULT]``; the cache, the domain
appended to hostnames and the versions left off a config drive in its
``[api]``.
"""

from __future__ import annotations

from oslo_config import cfg

from saphira.conf.keystone_authtoken import api_group

_EC2_LEGACY = "1.0 2007-01-19 2007-03-01 2007-08-29 2007-10-10 2007-12-15 2008-02-01 2008-09-01"

default_opts: list[cfg.Opt] = [
    cfg.PortOpt(
        "metadata_listen_port",
        default=8775,
        help="Port of the metadata API (before port_offset).",
    ),
    cfg.BoolOpt(
        "force_config_drive",
        default=False,
        help="Give every new server a config drive, whether or not its create asked for one.",
    ),
]

api_opts: list[cfg.Opt] = [
    cfg.IntOpt(
        "metadata_cache_expiration",
        default=15,
        min=0,
        help="Seconds an instance's metadata is cached by the metadata API; 0 disables the cache.",
    ),
    cfg.IntOpt(
        "metadata_cache_size",
        default=4096,
        min=1,
        help="Instances whose metadata the metadata API keeps at most; the least "
        "recently used goes first. Saphira's own bound (Nova's cache has none).",
    ),
    cfg.StrOpt(
        "dhcp_domain",
        default="novalocal",
        help="Domain appended to a server's hostname in its metadata; empty for none.",
    ),
    cfg.ListOpt(
        "config_drive_skip_versions",
        default=_EC2_LEGACY.split(),
        help="EC2 metadata versions left off a config drive (the metadata API serves all).",
    ),
]


def list_opts() -> list[tuple[cfg.OptGroup | None, list[cfg.Opt]]]:
    return [(None, default_opts), (api_group, api_opts)]
