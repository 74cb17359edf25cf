"""The network service (Neutron v2 API) and its ML2 choices, under Neutron's own names.

[DEFAULT] keys are neutron.conf's; [ml2], [ml2_type_flat], [ml2_type_vlan],
[ovs] and [linux_bridge] are ml2_conf.ini's, openvswitch_agent.ini's and
linuxbridge_agent.ini's; [quotas] is
neutron.conf's [QUOTAS] (Nova's [quota] is a different group); [nova] is the
user neutron.conf names for telling the compute API that ports came up.
"""

from __future__ import annotations

from oslo_config import cfg, types

from saphira.conf.services import auth_opts

default_opts: list[cfg.Opt] = [
    cfg.IntOpt(
        "agent_down_time",
        default=75,
        min=1,
        help="Seconds after an agent's last heartbeat at which it is reported dead.",
    ),
    cfg.IntOpt(
        "global_physnet_mtu",
        default=1500,
        min=68,
        help="MTU of the physical networks; a network's mtu defaults to it and may not exceed it.",
    ),
    cfg.StrOpt(
        "base_mac",
        default="fa:16:3e:00:00:00",
        regex=r"^([0-9a-f]{2}:){5}[0-9a-f]{2}$",
        help="Port MAC addresses keep its first three octets; the rest are random.",
    ),
]

ml2_group = cfg.OptGroup("ml2", help="The Modular Layer 2 plugin.")
ml2_opts: list[cfg.Opt] = [
    cfg.ListOpt(
        "type_drivers",
        default=["flat", "vlan"],
        item_type=types.String(choices=["flat", "vlan"]),
        help="Network types that may be created.",
    ),
    cfg.ListOpt(
        "tenant_network_types",
        default=["vlan"],
        item_type=types.String(choices=["flat", "vlan"]),
        help="Types tried, in order, for a network created without provider attributes.",
    ),
    cfg.ListOpt(
        "mechanism_drivers",
        default=["openvswitch", "linuxbridge"],
        item_type=types.String(choices=["openvswitch", "linuxbridge"]),
        help="L2 mechanisms in order of preference: a host's agents use the first it has "
        "(openvswitch needs Open vSwitch installed; linuxbridge only the kernel).",
    ),
]

flat_group = cfg.OptGroup("ml2_type_flat", help="Flat (untagged) provider networks.")
flat_opts: list[cfg.Opt] = [
    cfg.ListOpt(
        "flat_networks",
        default=["*"],
        help="Physical networks on which flat networks may be created; '*' for any.",
    ),
]

vlan_group = cfg.OptGroup("ml2_type_vlan", help="VLAN networks.")
vlan_opts: list[cfg.Opt] = [
    cfg.ListOpt(
        "network_vlan_ranges",
        default=["physnet1:1000:1999"],
        help="<physical_network>[:<vlan_min>:<vlan_max>] entries: where VLAN networks may be "
        "created, and the ranges project networks are given VLAN ids from.",
    ),
]

ovs_group = cfg.OptGroup("ovs", help="The L2 agent's bridges.")
ovs_opts: list[cfg.Opt] = [
    cfg.ListOpt(
        "bridge_mappings",
        default=["physnet1:br-physnet1"],
        help="<physical_network>:<bridge> pairs: the bridge that carries each physical network.",
    ),
]

linux_bridge_group = cfg.OptGroup(
    "linux_bridge", help="The Linux bridge agent, where Open vSwitch is absent."
)
linux_bridge_opts: list[cfg.Opt] = [
    cfg.ListOpt(
        "bridge_mappings",
        default=["physnet1:br-physnet1"],
        help="<physical_network>:<bridge> pairs: the Linux bridge that carries each one.",
    ),
]

quotas_group = cfg.OptGroup("quotas", help="Default network quotas (Neutron's [QUOTAS]).")
quotas_opts: list[cfg.Opt] = [
    cfg.IntOpt("quota_network", default=100, min=-1, help="Networks per project; -1: no limit."),
    cfg.IntOpt("quota_subnet", default=100, min=-1, help="Subnets per project; -1: no limit."),
    cfg.IntOpt("quota_port", default=500, min=-1, help="Ports per project; -1: no limit."),
    cfg.IntOpt("quota_security_group", default=10, min=-1, help="Security groups per project."),
    cfg.IntOpt(
        "quota_security_group_rule", default=100, min=-1, help="Security group rules per project."
    ),
]


nova_group = cfg.OptGroup(
    "nova", help="The compute API's service user: network-vif-plugged events go out as it."
)


def list_opts() -> list[tuple[cfg.OptGroup | None, list[cfg.Opt]]]:
    return [
        (None, default_opts),
        (ml2_group, ml2_opts),
        (flat_group, flat_opts),
        (vlan_group, vlan_opts),
        (ovs_group, ovs_opts),
        (linux_bridge_group, linux_bridge_opts),
        (quotas_group, quotas_opts),
        (nova_group, auth_opts()),
    ]
