"""[placement_api] and [placement_database]: the Placement service Saphira serves.

The existing [placement] group is the client side (the user nova's services
talk to placement as); these are the server's own settings.
"""

from __future__ import annotations

from oslo_config import cfg

group = cfg.OptGroup("placement_api", help="The placement service (Placement API).")

opts: list[cfg.Opt] = [
    cfg.PortOpt("port", default=8778, help="Port of the placement API (before port_offset)."),
    cfg.IntOpt(
        "allocation_conflict_retry_count",
        default=10,
        min=1,
        help="Times an allocation write is retried server side when a resource provider "
        "changed under it, before the client gets 409 placement.concurrent_update.",
    ),
    cfg.IntOpt(
        "max_request_body_size",
        default=1024 * 1024,
        min=1024,
        help="Largest request body the placement API accepts, in bytes.",
    ),
]


def list_opts() -> list[tuple[cfg.OptGroup | None, list[cfg.Opt]]]:
    return [(group, opts)]
