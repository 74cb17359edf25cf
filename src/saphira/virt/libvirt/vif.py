"""Guest NICs from the network service's VIFs (the plug seam for the network issue).

libvirt plugs the tap itself: into a Linux bridge, or into an OVS bridge with
``<virtualport type='openvswitch'>`` carrying the port id, which the L2 agent
finds by its ``external_ids:iface-id``. OVS here runs the userspace datapath,
where virtio checksum offload corrupts packets, so it is turned off for OVS.
"""

from __future__ import annotations

from saphira.virt.errors import VirtError
from saphira.virt.libvirt.config import InterfaceConfig
from saphira.virt.types import VIF

TAP_PREFIX = "tap"
DEV_NAME_LEN = 14  # Linux allows 15; Nova uses tap + 11 characters of the port id


def tap_name(vif: VIF) -> str:
    return (TAP_PREFIX + vif.id)[:DEV_NAME_LEN]


def interface(vif: VIF, host: str) -> InterfaceConfig:
    tap = tap_name(vif)
    if vif.vif_type == "ovs":
        return InterfaceConfig(
            mac=vif.address, kind="bridge", source_bridge=vif.bridge, target_dev=tap,
            mtu=vif.mtu, virtualport="openvswitch", interface_id=vif.id,
            checksum_offload=False,
        )  # fmt: skip
    if vif.vif_type == "bridge":
        return InterfaceConfig(
            mac=vif.address, kind="bridge", source_bridge=vif.bridge, target_dev=tap, mtu=vif.mtu
        )
    if vif.vif_type in ("tap", "ethernet"):
        return InterfaceConfig(mac=vif.address, kind="ethernet", target_dev=tap, mtu=vif.mtu)
    raise VirtError(host=host, reason=f"port {vif.id}: unsupported vif_type {vif.vif_type!r}")
