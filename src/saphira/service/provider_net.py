"""The provider network of the all-in-one cloud: a bridge of our own with the
host's gateway address on it, and a shared flat network with a subnet there.

Each step is idempotent, so every start runs it: the bridge is found or made
(userspace datapath where the kernel has none), the address added if
missing, the network and subnet created only when no network of that name
exists.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import shutil

from oslo_config import cfg

from saphira.api.network import build_backend
from saphira.context import RequestContext
from saphira.netsvc import networks, subnets
from saphira.netsvc.caller import Caller
from saphira.network.l2.mappings import parse_bridge_mappings
from saphira.network.l2.ovs_bridge import ensure_bridge
from saphira.network.ovs_daemons import ensure_running
from saphira.privsep import links
from saphira.service.tiny_image import admin_project

LOG = logging.getLogger(__name__)


def unavailable_reason() -> str | None:
    """Why this host cannot wire guests itself, or None when it can."""
    if os.geteuid() != 0:
        return "the network agents need root"
    if shutil.which("ovs-vsctl") is None:
        return "Open vSwitch is not installed"
    return None


def gateway(conf: cfg.ConfigOpts) -> ipaddress.IPv4Interface:
    net = ipaddress.ip_network(conf.provider.cidr)
    return ipaddress.IPv4Interface(f"{next(net.hosts())}/{net.prefixlen}")


def prepare_host(conf: cfg.ConfigOpts) -> str:
    """Open vSwitch running, the provider bridge made, the gateway address on it."""
    ensure_running()
    bridge = parse_bridge_mappings(conf.ovs.bridge_mappings)[conf.provider.physical_network]
    info = ensure_bridge(bridge)
    address = str(gateway(conf))
    if address not in links.addresses(bridge):
        links.add_address(bridge, address)
    links.set_up(bridge)
    LOG.info("provider bridge %s (%s datapath): host at %s", bridge, info.datapath_type, address)
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
