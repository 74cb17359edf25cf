"""Each node's inventory to placement and its compute_nodes row (through the
conductor), as Nova's resource tracker reports them."""

from __future__ import annotations

from oslo_config import cfg

from saphira.clients.placement import PlacementClient
from saphira.context import RequestContext
from saphira.objects import ComputeNode
from saphira.rpc.rpcapi.conductor import ConductorAPI
from saphira.virt.driver import ComputeDriver


def _ratio(conf: cfg.ConfigOpts, name: str) -> float:
    value = getattr(conf, f"{name}_allocation_ratio")
    return float(value if value is not None else getattr(conf, f"initial_{name}_allocation_ratio"))


def inventory(conf: cfg.ConfigOpts, node: ComputeNode) -> dict[str, dict[str, object]]:
    """VCPU, MEMORY_MB and DISK_GB with the configured ratios and reservations."""
    disk_reserved = (conf.reserved_host_disk_mb + 1023) // 1024
    rows = {
        "VCPU": (node.vcpus, conf.reserved_host_cpus, node.cpu_allocation_ratio),
        "MEMORY_MB": (node.memory_mb, conf.reserved_host_memory_mb, node.ram_allocation_ratio),
        "DISK_GB": (node.local_gb, disk_reserved, node.disk_allocation_ratio),
    }
    return {
        rc: {"total": total, "reserved": min(reserved, total), "allocation_ratio": ratio,
             "min_unit": 1, "max_unit": total, "step_size": 1}
        for rc, (total, reserved, ratio) in rows.items()
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
    placement.set_inventory(provider.uuid, inventory(conf, saved))
    return saved
