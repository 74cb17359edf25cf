"""The provider network of the all-in-one cloud: a bridge of our own with the
host's gateway address on it, and a shared flat network with a subnet there.

Each step is idempotent, so every start runs it: the bridge is found or made
(an Open vSwitch bridge, with the userspace datapath where the kernel has
none; a Linux bridge where the host's L2 mechanism is linuxbridge), the
address added if missing, the network and subnet created only when no
network of that name exists. A bridge made is recorded in the state
directory's ``host_bridges``, an address added in ``host_addresses``:
``saphira purge`` removes those bridges, and leaves a bridge it found (the
operator's), taking only the cloud's ports, flows and addresses off it.
"""

from __future__ import annotations

import ipaddress
import logging

from oslo_config import cfg

from saphira.api.network import build_backend
from saphira.context import RequestContext
from saphira.netsvc import networks, subnets
from saphira.netsvc.caller import Caller
from saphira.network.l2.mappings import host_bridge_mappings, mechanism
from saphira.network.l2.ovs_bridge import ensure_bridge
from saphira.network.ovs_daemons import ensure_running
from saphira.privsep import bridge as linux_bridges
from saphira.privsep import context as privileged
from saphira.privsep import links, ovs
from saphira.service.purge import recorded
from saphira.service.tiny_image import admin_project

LOG = logging.getLogger(__name__)


def unavailable_reason(conf: cfg.ConfigOpts) -> str | None:
    """Why this host cannot wire guests itself, or None when it can."""
    why = privileged.unavailable_reason()
    if why is not None:
        return f"the network agents need root: {why}"
    if mechanism(conf) is None:
        return "Open vSwitch is not installed and [ml2] mechanism_drivers leaves out linuxbridge"
    return None


def gateway(conf: cfg.ConfigOpts) -> ipaddress.IPv4Interface:
    net = ipaddress.ip_network(conf.provider.cidr)
    return ipaddress.IPv4Interface(f"{next(net.hosts())}/{net.prefixlen}")


def prepare_host(conf: cfg.ConfigOpts) -> str:
    """The provider bridge made (Open vSwitch running first, if it is the mechanism),
    the gateway address on it. The DHCP agent plugs as the L2 agent wires."""
    chosen = mechanism(conf)
    bridge = host_bridge_mappings(conf, chosen)[conf.provider.physical_network]
    if chosen == "linuxbridge":
        if links.show(bridge) is None:
            linux_bridges.create(bridge)
            recorded.record_bridge(str(conf.state_path), bridge)
        kind = "Linux bridge"
    else:
        ensure_running()
        made = ovs.bridge(bridge) is None
        kind = f"Open vSwitch, {ensure_bridge(bridge).datapath_type} datapath"
        if made:
            recorded.record_bridge(str(conf.state_path), bridge)
    conf.set_override("interface_driver", chosen)
    address = str(gateway(conf))
    if address not in links.addresses(bridge):
        links.add_address(bridge, address)
        recorded.record_address(str(conf.state_path), bridge, address)
    links.set_up(bridge)
    LOG.info("provider bridge %s (%s): host at %s", bridge, kind, address)
    return bridge


def ensure_network(conf: cfg.ConfigOpts) -> str | None:
    """The shared provider network and its subnet; the network id when it was made."""
    backend = build_backend(conf)
    admin = Caller(RequestContext(project_id=admin_project(conf), roles=("admin",)),
                   backend.enforcer)  # fmt: skip
    try:
        with backend.db.writer() as session:
            existing = networks.by_name(session, conf.provider.network_name)
            if existing is not None:
                return None
            network = networks.create(session, admin, backend.settings, {
                "name": conf.provider.network_name, "shared": True,
                "provider:network_type": "flat",
                "provider:physical_network": conf.provider.physical_network,
            })  # fmt: skip
            subnets.create(session, admin, backend.settings, {
                "network_id": network.id, "name": f"{conf.provider.network_name}-v4",
                "ip_version": 4, "cidr": conf.provider.cidr,
                "gateway_ip": str(gateway(conf).ip),
            })  # fmt: skip
            LOG.info("created network %s (%s) on %s", network.name, network.id, conf.provider.cidr)
            return network.id
    finally:
        backend.db.engine.dispose()
