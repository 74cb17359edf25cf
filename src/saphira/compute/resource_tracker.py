"""Each node's inventory to placement and its compute_nodes row (through the
conductor), as Nova's resource tracker reports them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from oslo_config import cfg

from saphira.clients.placement import PlacementClient
from saphira.context import RequestContext
from saphira.objects import ComputeNode
from saphira.rpc.rpcapi.conductor import ConductorAPI
from saphira.virt.driver import ComputeDriver

Inventories = Mapping[str, Mapping[str, Any]]  # resource class -> placement's record


def _ratio(conf: cfg.ConfigOpts, name: str, current: Mapping[str, Any] | None = None) -> float:
    """Nova's rule: the configured ratio; unset, the one the provider has now (an operator
    may have set it through the placement API); on a new inventory, the initial one."""
    value = getattr(conf, f"{name}_allocation_ratio")
    if value is not None:
        return float(value)
    if current is not None:
        return float(current["allocation_ratio"])
    return float(getattr(conf, f"initial_{name}_allocation_ratio"))


def inventory(
    conf: cfg.ConfigOpts, node: ComputeNode, current: Inventories
) -> dict[str, dict[str, object]]:
    """VCPU, MEMORY_MB and DISK_GB with the reservations and ratios (``_ratio``) for the
    provider whose inventory is ``current`` now."""
    disk_reserved = (conf.reserved_host_disk_mb + 1023) // 1024
    rows = {
        "VCPU": (node.vcpus, conf.reserved_host_cpus, "cpu"),
        "MEMORY_MB": (node.memory_mb, conf.reserved_host_memory_mb, "ram"),
        "DISK_GB": (node.local_gb, disk_reserved, "disk"),
    }
    return {
        rc: {"total": total, "reserved": min(reserved, total),
             "allocation_ratio": _ratio(conf, name, current.get(rc)),
             "min_unit": 1, "max_unit": total, "step_size": 1}
        for rc, (total, reserved, name) in rows.items()
        if total > 0
    }  # fmt: skip


def update_node(
    conf: cfg.ConfigOpts,
    driver: ComputeDriver,
    conductor: ConductorAPI,
    placement: PlacementClient,
    ctxt: RequestContext | None = None,
) -> ComputeNode:
    ctxt = ctxt or RequestContext()
    res = driver.get_available_resource()
    node = ComputeNode(
        uuid="", host=driver.host, hypervisor_hostname=res.hypervisor_hostname,
        hypervisor_type=res.hypervisor_type, hypervisor_version=res.hypervisor_version,
        vcpus=res.vcpus, memory_mb=res.memory_mb, local_gb=res.local_gb,
        vcpus_used=res.vcpus_used, memory_mb_used=res.memory_mb_used,
        local_gb_used=res.local_gb_used, cpu_info=res.cpu_info,
        cpu_allocation_ratio=_ratio(conf, "cpu"), ram_allocation_ratio=_ratio(conf, "ram"),
        disk_allocation_ratio=_ratio(conf, "disk"),
    )  # fmt: skip
    saved = conductor.compute_node_update(ctxt, node)
    provider = placement.ensure_provider(saved.hypervisor_hostname, uuid=saved.uuid)
    current = placement.get_inventories(provider.uuid)
    placement.set_inventory(provider.uuid, inventory(conf, saved, current))
    return saved
