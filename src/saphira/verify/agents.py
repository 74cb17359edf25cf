"""Layer 2: the L2 agent of the server's host and a DHCP agent are alive, and map the
physical network of each of the server's networks to a bridge (the agent's live
mapping, as it reports it, not the file on disk)."""

from __future__ import annotations

from collections.abc import Sequence

from saphira.verify.facts import Agent, Network
from saphira.verify.model import Check


def _dead(agent: Agent) -> str | None:
    if not agent.alive:
        return f"{agent.agent_type} on {agent.host} is not alive (no recent heartbeat)"
    if not agent.admin_state_up:
        return f"{agent.agent_type} on {agent.host} is administratively down"
    return None


def check_l2(host: str, networks: Sequence[Network], agents: Sequence[Agent]) -> Check:
    l2 = [a for a in agents if a.is_l2 and a.host == host]
    if not l2:
        return Check(False, f"no L2 agent reports from host {host}")
    agent = l2[0]
    dead = _dead(agent)
    if dead:
        return Check(False, dead)
    for network in networks:
        physnet = network.physical_network
        if network.needs_mapping and physnet not in agent.bridge_mappings:
            mapped = dict(agent.bridge_mappings) or "nothing"
            return Check(False, f"{agent.agent_type} on {host} maps {mapped}, not "
                         f"{physnet} (network {network.name})")  # fmt: skip
    return Check(True, f"{agent.agent_type} on {host} alive, maps {dict(agent.bridge_mappings)}")


def check_dhcp(networks: Sequence[Network], agents: Sequence[Agent]) -> Check:
    """A live DHCP agent mapping each DHCP network's physical network, on any host."""
    dhcp = [a for a in agents if a.is_dhcp]
    for network in (n for n in networks if n.dhcp_subnets):
        serving = [a for a in dhcp if not network.needs_mapping
                   or network.physical_network in a.bridge_mappings]  # fmt: skip
        if not serving:
            return Check(False, f"no DHCP agent maps {network.physical_network} "
                         f"(network {network.name})")  # fmt: skip
        if all(_dead(a) for a in serving):
            return Check(False, "; ".join(str(_dead(a)) for a in serving))
    hosts = sorted({a.host for a in dhcp if not _dead(a)})
    return Check(True, f"DHCP agent alive on {', '.join(hosts) or 'no host (no DHCP network)'}")


def check(host: str | None, networks: Sequence[Network], agents: Sequence[Agent]) -> Check:
    if host is None:
        return Check(True, "the server has no host: no agent of its own to check")
    for verdict in (check_l2(host, networks, agents), check_dhcp(networks, agents)):
        if not verdict.ok:
            return verdict
    l2, dhcp = check_l2(host, networks, agents), check_dhcp(networks, agents)
    return Check(True, f"{l2.seen}; {dhcp.seen}")
