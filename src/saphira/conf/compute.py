"""[DEFAULT] compute API keys and [quota]: Nova's names and defaults."""

from __future__ import annotations

from oslo_config import cfg

from saphira.conf.keystone_authtoken import api_group

default_opts: list[cfg.Opt] = [
    cfg.HostAddressOpt(
        "osapi_compute_listen",
        default="0.0.0.0",
        help="Address the compute API listens on when it runs as its own process.",
    ),
    cfg.PortOpt(
        "osapi_compute_listen_port",
        default=8774,
        help="Port of the compute API (before port_offset).",
    ),
    cfg.IntOpt(
        "service_down_time",
        default=60,
        min=1,
        help="Seconds since a service's last heartbeat after which it is reported down.",
    ),
    cfg.StrOpt(
        "default_availability_zone",
        default="nova",
        help="Availability zone of compute hosts that are in no aggregate with a zone.",
    ),
    cfg.StrOpt(
        "internal_service_availability_zone",
        default="internal",
        help="Availability zone reported for services other than nova-compute.",
    ),
    cfg.BoolOpt(
        "allow_resize_to_same_host",
        default=True,
        help="Whether a resize may land on the server's own host (a cold migrate never "
        "does). Nova's default is false; ours is true so a one-host all-in-one can resize "
        "(devstack sets it for the same reason); a cloud of several hosts may turn it off.",
    ),
]

quota_group = cfg.OptGroup("quota", help="Default quotas (a project or user may override them).")


def _limit(name: str, default: int, what: str) -> cfg.IntOpt:
    return cfg.IntOpt(name, default=default, min=-1, help=f"{what} (-1: unlimited).")


quota_opts: list[cfg.Opt] = [
    _limit("instances", 10, "Instances per project"),
    _limit("cores", 20, "Instance cores (vCPUs) per project"),
    _limit("ram", 51200, "Megabytes of instance RAM per project"),
    _limit("metadata_items", 128, "Metadata items per instance"),
    _limit("injected_files", 5, "Injected files per instance"),
    _limit("injected_file_content_bytes", 10240, "Bytes of content per injected file"),
    _limit("injected_file_path_length", 255, "Length of an injected file's path"),
    _limit("key_pairs", 100, "Key pairs per user"),
    _limit("server_groups", 10, "Server groups per project"),
    _limit("server_group_members", 10, "Servers per server group"),
]


api_opts: list[cfg.Opt] = [
    cfg.IntOpt(
        "multi_create_max_count",
        default=100,
        min=1,
        help="The most servers one POST /servers may create. A larger max_count is "
        "lowered to it (as to the quota's headroom: as many as fit); a min_count "
        "above it is refused with 400.",
    ),
]


def list_opts() -> list[tuple[cfg.OptGroup | None, list[cfg.Opt]]]:
    return [(None, default_opts), (quota_group, quota_opts), (api_group, api_opts)]
