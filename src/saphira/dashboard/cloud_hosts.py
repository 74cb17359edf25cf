"""Hypervisors with their usage: from the hypervisor where the microversion still has
it (before 2.88), else from placement, as Horizon's newer code does.

Compute 2.88 took the usage figures (``vcpus``, ``memory_mb_used``,
``running_vms``...) out of ``os-hypervisors``: placement holds them. The
compute node's resource provider has the hypervisor's id (a UUID since 2.53)
or, before that, its hostname as its name. Its inventories give the totals
(capacity is ``(total - reserved) * allocation_ratio``, what the scheduler can
place), its usages what is allocated, its allocations one consumer per
instance on the host (the running VMs).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

from openstack.compute.v2.hypervisor import Hypervisor
from openstack.placement.v1.resource_provider import ResourceProvider
from openstack.warnings import RemovedFieldWarning

from saphira.dashboard import charts
from saphira.dashboard.cloud import Conn

# (resource class, label, unit); the figures the charts show, in this order.
RESOURCES = (("VCPU", "vCPUs", ""), ("MEMORY_MB", "RAM", "MiB"), ("DISK_GB", "Disk", "GiB"))


@dataclass(frozen=True)
class Usage:
    resource: str
    label: str
    used: int
    capacity: int  # what may be allocated: (total - reserved) * allocation ratio
    total: int  # the host's own
    ratio: float
    unit: str

    @property
    def percent(self) -> int:
        """Used over capacity, 0 to 100 (an over-committed host shows full)."""
        return charts.percent(self.used, max(self.capacity, 0))

    @property
    def level(self) -> str:
        return charts.level(self.used, max(self.capacity, 0))


@dataclass(frozen=True)
class ProviderUsage:
    """What placement says of one resource provider."""

    id: str
    name: str
    usages: tuple[Usage, ...]
    consumers: int  # allocations on it: one per instance (or migration) on the host


@dataclass(frozen=True)
class HypervisorRow:
    id: str
    name: str
    state: str  # "up" or "down"
    status: str  # "enabled" or "disabled"
    host_ip: str
    kind: str  # hypervisor_type
    running_vms: int | None  # None: neither the hypervisor nor placement said
    usages: tuple[Usage, ...]
    source: str  # where the usage came from: "compute" or "placement" ("" for none)

    @property
    def up(self) -> bool:
        return self.state == "up"


@contextmanager
def _removed_fields_read() -> Iterator[None]:
    """openstacksdk warns on each read of a field 2.88 removed, even where an older
    microversion served it: muted where the dashboard reads them on purpose."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RemovedFieldWarning)
        yield


def _int(value: object) -> int:
    try:
        return int(float(str(value or 0)))
    except ValueError:
        return 0


def usages(
    inventories: Mapping[str, Mapping[str, object]], used: Mapping[str, object]
) -> tuple[Usage, ...]:
    """The charted resources from placement's inventories (by class) and usages."""
    found = []
    for resource, label, unit in RESOURCES:
        inventory = inventories.get(resource)
        if inventory is None:
            continue
        total, reserved = _int(inventory.get("total")), _int(inventory.get("reserved"))
        ratio = float(str(inventory.get("allocation_ratio") or 1.0))
        capacity = int((total - reserved) * ratio)
        found.append(Usage(resource, label, _int(used.get(resource)), capacity, total, ratio, unit))
    return tuple(found)


def legacy_usages(hypervisor: Hypervisor) -> tuple[Usage, ...]:
    """The figures a hypervisor body carries before 2.88 (no ratio: the host's own).

    The cloud served them (an older microversion): they are read on purpose."""
    with _removed_fields_read():
        pairs = (
            (hypervisor.vcpus_used, hypervisor.vcpus),
            (hypervisor.memory_used, hypervisor.memory_size),
            (hypervisor.local_disk_used, hypervisor.local_disk_size),
        )
    return tuple(
        Usage(resource, label, _int(used), _int(total), _int(total), 1.0, unit)
        for (resource, label, unit), (used, total) in zip(RESOURCES, pairs, strict=True)
    )


def _running(hypervisor: Hypervisor) -> int:
    with _removed_fields_read():
        return _int(hypervisor.running_vms)


def providers(conn: Conn) -> list[ResourceProvider]:
    return list(conn.placement.resource_providers())


def provider_usage(conn: Conn, provider: ResourceProvider) -> ProviderUsage:
    """One provider's inventories, usages and allocations (three calls)."""
    placement = conn.placement
    inventories = {
        str(i.resource_class): {
            "total": i.total, "reserved": i.reserved, "allocation_ratio": i.allocation_ratio,
        }
        for i in placement.resource_provider_inventories(provider)
    }  # fmt: skip
    used = placement.fetch_resource_provider_usages(provider).usages or {}
    consumers = sum(1 for _ in placement.resource_provider_allocations(provider))
    return ProviderUsage(
        str(provider.id), str(provider.name or ""), usages(inventories, used), consumers
    )


def hypervisors(conn: Conn) -> list[Hypervisor]:
    with _removed_fields_read():  # openstacksdk reads every field as it builds each one
        return list(conn.compute.hypervisors(details=True))


def _has_usage(hypervisor: Hypervisor) -> bool:
    with _removed_fields_read():
        return hypervisor.vcpus is not None


def needs_placement(found: Iterable[Hypervisor]) -> bool:
    return any(not _has_usage(h) for h in found)


def _row(h: Hypervisor, provider: ProviderUsage | None) -> HypervisorRow:
    figures: tuple[Usage, ...] = ()
    vms: int | None = None
    source = ""
    if _has_usage(h):
        figures, vms, source = legacy_usages(h), _running(h), "compute"
    elif provider is not None:
        figures, vms, source = provider.usages, provider.consumers, "placement"
    return HypervisorRow(
        str(h.id), str(h.name or ""), str(h.state or ""), str(h.status or ""),
        str(h.host_ip or ""), str(h.hypervisor_type or ""), vms, figures, source,
    )  # fmt: skip


def rows(found: Iterable[Hypervisor], placed: Iterable[ProviderUsage]) -> list[HypervisorRow]:
    """The hypervisors with their usage: their own figures, else their provider's
    (the provider of the hypervisor's id, else of its hostname)."""
    by_key: dict[str, ProviderUsage] = {}
    for p in placed:
        by_key.setdefault(p.id, p)
        by_key.setdefault(f"name:{p.name}", p)
    made = [_row(h, by_key.get(str(h.id)) or by_key.get(f"name:{h.name}")) for h in found]
    return sorted(made, key=lambda r: r.name)


def summary(hosts: Iterable[HypervisorRow]) -> tuple[Usage, ...]:
    """Every host's figures added up, resource by resource (Horizon's summary charts)."""
    found = [u for h in hosts for u in h.usages]
    return tuple(
        Usage(resource, label, sum(u.used for u in mine), sum(u.capacity for u in mine),
              sum(u.total for u in mine), 1.0, unit)
        for resource, label, unit in RESOURCES
        if (mine := [u for u in found if u.resource == resource])
    )  # fmt: skip
