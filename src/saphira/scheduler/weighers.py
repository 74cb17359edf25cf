"""Weighers, as Nova's: each raw value is normalized to [0, 1] over the hosts,
times its multiplier, and the sums rank the hosts (highest first).

A positive resource multiplier spreads (most free first); a negative one packs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from oslo_config import cfg

from saphira.domain.sizing import DISK_GB, MEMORY_MB, VCPU
from saphira.exception import ConfigError
from saphira.scheduler.host_state import Candidate, Request


class BaseWeigher:
    name: ClassVar[str]
    option: ClassVar[str]

    def __init__(self, multiplier: float) -> None:
        self.multiplier = multiplier

    def raw(self, candidate: Candidate, request: Request) -> float:
        raise NotImplementedError


class _FreeResource(BaseWeigher):
    resource_class: ClassVar[str]

    def raw(self, candidate: Candidate, request: Request) -> float:
        return float(candidate.free(self.resource_class))


class RAMWeigher(_FreeResource):
    name, option, resource_class = "RAMWeigher", "ram_weight_multiplier", MEMORY_MB


class CPUWeigher(_FreeResource):
    name, option, resource_class = "CPUWeigher", "cpu_weight_multiplier", VCPU


class DiskWeigher(_FreeResource):
    name, option, resource_class = "DiskWeigher", "disk_weight_multiplier", DISK_GB


class ServerGroupSoftAffinityWeigher(BaseWeigher):
    name, option = "ServerGroupSoftAffinityWeigher", "soft_affinity_weight_multiplier"

    def raw(self, candidate: Candidate, request: Request) -> float:
        if request.spec.instance_group_policy != "soft-affinity":
            return 0.0
        return float(request.group_hosts.count(candidate.state.host))


class ServerGroupSoftAntiAffinityWeigher(BaseWeigher):
    name, option = "ServerGroupSoftAntiAffinityWeigher", "soft_anti_affinity_weight_multiplier"

    def raw(self, candidate: Candidate, request: Request) -> float:
        if request.spec.instance_group_policy != "soft-anti-affinity":
            return 0.0
        return -float(request.group_hosts.count(candidate.state.host))


WEIGHERS: dict[str, type[BaseWeigher]] = {
    cls.name: cls
    for cls in (
        RAMWeigher,
        CPUWeigher,
        DiskWeigher,
        ServerGroupSoftAffinityWeigher,
        ServerGroupSoftAntiAffinityWeigher,
    )
}


def load(conf: cfg.ConfigOpts) -> list[BaseWeigher]:
    """[filter_scheduler] weight_classes with their multipliers; 'all' means every weigher."""
    group = conf.filter_scheduler
    names = list(WEIGHERS) if "all" in group.weight_classes else list(group.weight_classes)
    unknown = [name for name in names if name not in WEIGHERS]
    if unknown:
        raise ConfigError(
            f"[filter_scheduler] weight_classes: unknown {', '.join(unknown)}; "
            f"available: {', '.join(sorted(WEIGHERS))}"
        )
    return [WEIGHERS[name](float(getattr(group, WEIGHERS[name].option))) for name in names]


def _normalize(values: list[float]) -> list[float]:
    low, high = min(values), max(values)
    if high == low:
        return [0.0] * len(values)
    span = high - low
    return [(value - low) / span for value in values]


def weigh(
    weighers: Sequence[BaseWeigher], candidates: Sequence[Candidate], request: Request
) -> list[tuple[float, Candidate]]:
    """(weight, candidate) pairs, best first; ties keep the input order."""
    if not candidates:
        return []
    totals = [0.0] * len(candidates)
    for weigher in weighers:
        if not weigher.multiplier:
            continue
        normalized = _normalize([weigher.raw(c, request) for c in candidates])
        for index, value in enumerate(normalized):
            totals[index] += weigher.multiplier * value
    ranked = sorted(range(len(candidates)), key=lambda i: -totals[i])
    return [(totals[i], candidates[i]) for i in ranked]
