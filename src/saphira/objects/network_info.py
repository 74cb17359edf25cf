"""An instance's NICs as its network info cache keeps them (Nova's info cache).

The compute agent writes one ``InstanceVIF`` per port when it builds the
server; the compute API renders ``addresses`` from them, and every later
action that (re)defines the guest plugs the same NICs without asking the
network service again. 1.1: ``tag``, the device tag the user gave the NIC
(os-interface from 2.49), shown again from 2.70.
"""

from __future__ import annotations

import dataclasses

from saphira.objects.base import SaphiraObject


@dataclasses.dataclass
class InstanceVIF(SaphiraObject):
    VERSION = "1.1"

    port_id: str
    mac_address: str
    network_id: str
    network_name: str = ""
    fixed_ips: list[str] = dataclasses.field(default_factory=list)
    vif_type: str = ""  # the port's binding:vif_type ("ovs", "bridge")
    bridge: str | None = None  # binding:vif_details["bridge_name"]
    mtu: int | None = None  # the network's
    active: bool = False  # the port was ACTIVE: no network-vif-plugged event will come
    preserve_on_delete: bool = False  # the user brought the port: unbind it, never delete it
    tag: str | None = None
