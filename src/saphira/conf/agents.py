"""The network agents' keys, under Neutron's names: [agent] (neutron.conf's
[AGENT]), the DHCP agent's interface driver (dhcp_agent.ini) and the metadata
agent's (metadata_agent.ini, here [metadata_agent]; its shared secret is
[neutron] metadata_proxy_shared_secret, the one the metadata API checks)."""

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


provider_group = cfg.OptGroup(
    "provider",
    help="The provider network `saphira up` makes on a bridge of its own, so guests get "
    "addresses the host can reach (nothing touches the host's real interfaces).",
)

provider_opts: list[cfg.Opt] = [
    cfg.StrOpt("network_name", default="provider", help="Name of the shared flat network."),
    cfg.StrOpt(
        "physical_network",
        default="physnet1",
        help="Its physical network; [ovs] bridge_mappings names the bridge.",
    ),
    cfg.StrOpt(
        "cidr",
        default="10.99.0.0/24",
        help="Its IPv4 subnet; the host takes the first address, on the bridge, as gateway.",
    ),
]


metadata_group = cfg.OptGroup(
    "metadata_agent",
    help="The metadata agent in the DHCP agent: guests' requests to 169.254.169.254, "
    "relayed by a proxy in each DHCP namespace, go to the metadata API signed. It runs "
    "when [neutron] service_metadata_proxy is true.",
)

metadata_opts: list[cfg.Opt] = [
    cfg.HostAddressOpt("nova_metadata_host", default="127.0.0.1", help="Host of the metadata API."),
    cfg.PortOpt(
        "nova_metadata_port",
        help="Port of the metadata API; unset: this all-in-one's own ([DEFAULT] "
        "metadata_listen_port, 8775, plus port_offset).",
    ),
    cfg.StrOpt(
        "metadata_proxy_socket",
        default="$state_path/metadata_proxy",
        help="Unix socket where the namespaces' proxies reach the metadata agent.",
    ),
    cfg.FloatOpt(
        "cache_seconds",
        default=5.0,
        min=0.0,
        help="How long a (network, address) -> instance look-up is reused; 0 disables it.",
    ),
    cfg.IntOpt(
        "metadata_workers",
        default=32,
        min=1,
        help="Requests the agent handles at once; more wait for a free slot.",
    ),
]


def list_opts() -> list[tuple[cfg.OptGroup | None, list[cfg.Opt]]]:
    return [
        (None, default_opts),
        (agent_group, agent_opts),
        (provider_group, provider_opts),
        (metadata_group, metadata_opts),
    ]
