"""[filter_scheduler] and the scheduler's own [scheduler] keys (Nova's names).

[scheduler] discover_hosts_in_cells_interval lives in conf/services.py; the
keys here join the same group (oslo.config merges a group's options).
"""

from __future__ import annotations

from oslo_config import cfg

scheduler_opts: list[cfg.Opt] = [
    cfg.IntOpt(
        "max_attempts",
        default=3,
        min=1,
        help="Hosts tried per build: the chosen one plus max_attempts - 1 alternates.",
    ),
    cfg.IntOpt(
        "max_placement_results",
        default=1000,
        min=1,
        help="Most allocation candidates asked of placement per request.",
    ),
    cfg.FloatOpt(
        "host_state_ttl",
        default=1.0,
        min=0.0,
        help="Seconds the scheduler reuses its cached host states before reading the "
        "rows changed since (services and compute nodes) from the cell databases.",
    ),
]

_FILTERS = [
    "ComputeFilter",
    "AvailabilityZoneFilter",
    "ImagePropertiesFilter",
    "ServerGroupAntiAffinityFilter",
    "ServerGroupAffinityFilter",
]

filter_opts: list[cfg.Opt] = [
    cfg.ListOpt("enabled_filters", default=_FILTERS, help="Filters every host must pass."),
    cfg.ListOpt(
        "weight_classes",
        default=["all"],
        help="Weighers to use ('all' or class names such as RAMWeigher).",
    ),
    cfg.FloatOpt(
        "ram_weight_multiplier",
        default=1.0,
        help="Positive spreads by free RAM, negative packs.",
    ),
    cfg.FloatOpt("cpu_weight_multiplier", default=1.0, help="Same for free vCPUs."),
    cfg.FloatOpt("disk_weight_multiplier", default=1.0, help="Same for free disk."),
    cfg.FloatOpt(
        "soft_affinity_weight_multiplier",
        default=1.0,
        min=0.0,
        help="Weight of soft-affinity: hosts with more group members rank higher.",
    ),
    cfg.FloatOpt(
        "soft_anti_affinity_weight_multiplier",
        default=1.0,
        min=0.0,
        help="Weight of soft-anti-affinity: hosts with fewer group members rank higher.",
    ),
    cfg.IntOpt(
        "host_subset_size",
        default=1,
        min=1,
        help="Pick at random among this many best hosts (reduces races between schedulers).",
    ),
    cfg.BoolOpt(
        "shuffle_best_same_weighed_hosts",
        default=False,
        help="Pick at random among hosts that tie for the best weight.",
    ),
]


def list_opts() -> list[tuple[cfg.OptGroup | None, list[cfg.Opt]]]:
    return [
        (cfg.OptGroup("scheduler", help="The scheduler."), scheduler_opts),
        (cfg.OptGroup("filter_scheduler", help="Filters and weighers."), filter_opts),
    ]
