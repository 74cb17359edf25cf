"""What this hypervisor has and uses, from libvirt and the instances filesystem."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import libvirt

from saphira.virt.types import HostResources

GIB = 1024**3


def host_resources(conn: Any, node: str, instances_path: Path, virt_type: str) -> HostResources:
    """Totals from the host; "used" from the running guests, as Nova counts them."""
    _model, memory_mb, cpus, *_ = conn.getInfo()
    disk = shutil.disk_usage(instances_path)
    vcpus_used = memory_used = 0
    for dom in conn.listAllDomains(libvirt.VIR_CONNECT_LIST_DOMAINS_ACTIVE):
        _state, _max_kib, kib, vcpus, _cpu_time = dom.info()
        vcpus_used += vcpus
        memory_used += kib // 1024
    return HostResources(
        hypervisor_hostname=node,
        vcpus=cpus,
        memory_mb=memory_mb,
        local_gb=disk.total // GIB,
        vcpus_used=vcpus_used,
        memory_mb_used=memory_used,
        local_gb_used=(disk.total - disk.free) // GIB,
        hypervisor_type="QEMU",
        hypervisor_version=conn.getVersion(),
        cpu_info=json.dumps(cpu_info(conn.getCapabilities())),
    )


def cpu_info(capabilities_xml: str) -> dict[str, Any]:
    """os-hypervisors' cpu_info: the host CPU as libvirt's capabilities describe it."""
    cpu = ET.fromstring(capabilities_xml).find("host/cpu")
    if cpu is None:
        return {}
    topology = cpu.find("topology")
    topo = dict(topology.attrib) if topology is not None else {}
    return {
        "arch": cpu.findtext("arch", ""),
        "model": cpu.findtext("model", ""),
        "vendor": cpu.findtext("vendor", ""),
        "topology": {key: int(value) for key, value in topo.items() if value.isdigit()},
        "features": sorted(f.get("name", "") for f in cpu.findall("feature")),
    }
