"""The network agents' keys, under Neutron's names: [agent] (neutron.conf's
[AGENT]) and the DHCP agent's interface driver (dhcp_agent.ini)."""

from __future__ import annotations

from oslo_config import cfg

agent_group = cfg.OptGroup("agent", help="The L2 and DHCP agents.")

agent_opts: list[cfg.Opt] = [
    cfg.FloatOpt(
        "report_interval",
        default=30.0,
        min=0.1,
        help="Seconds between an agent's heartbeats to the network service.",
    ),
    cfg.FloatOpt(
        "polling_interval",
        default=2.0,
        min=0.1,
        help="Seconds between reconciles when nothing woke the agent sooner.",
    ),
]

default_opts: list[cfg.Opt] = [
    cfg.StrOpt(
        "interface_driver",
        default="openvswitch",
        choices=["openvswitch", "linuxbridge"],
        help="How the DHCP agent's namespaces join the provider bridges.",
    ),
]


def list_opts() -> list[tuple[cfg.OptGroup | None, list[cfg.Opt]]]:
    return [(None, default_opts), (agent_group, agent_opts)]
