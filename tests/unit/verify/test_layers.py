"""Each layer on typed inputs: passes on a healthy server, fails naming what it saw."""

from __future__ import annotations

from typing import Any

import pytest

from saphira.verify import agents, binding, console, hosts, lease, reach, secgroups, state
from saphira.verify.facts import Agent, Hypervisor
from saphira.verify.model import Wanted
from tests.unit.verify.facts import DHCP, HYPERVISOR, L2, MAC, NETWORK, PORT, SERVER, SSH, with_

SSH_PORT = Wanted(22, "tcp")


def test_hypervisor_up_and_enabled_passes() -> None:
    assert hosts.check(SERVER, [HYPERVISOR]).ok


@pytest.mark.parametrize(
    ("hypervisors", "seen"),
    [([], "not discovered into a cell"), ([with_(HYPERVISOR, state="down")], "is down"),
     ([with_(HYPERVISOR, status="disabled")], "is disabled")],
)  # fmt: skip
def test_hypervisor_missing_down_or_disabled_fails(
    hypervisors: list[Hypervisor], seen: str
) -> None:
    verdict = hosts.check(SERVER, hypervisors)
    assert not verdict.ok and seen in verdict.seen


def test_a_server_without_host_needs_some_hypervisor_up() -> None:
    homeless = with_(SERVER, host=None)
    assert hosts.check(homeless, [HYPERVISOR]).ok
    assert not hosts.check(homeless, [with_(HYPERVISOR, state="down")]).ok


def test_agents_alive_with_the_mapping_pass() -> None:
    verdict = agents.check(SERVER.host, [NETWORK], [L2, DHCP])
    assert verdict.ok, verdict.seen


@pytest.mark.parametrize(
    ("found", "seen"),
    [([DHCP], "no L2 agent"), ([with_(L2, alive=False), DHCP], "not alive"),
     ([with_(L2, admin_state_up=False), DHCP], "administratively down"),
     ([with_(L2, bridge_mappings={"physnet2": "br-x"}), DHCP], "not physnet1"),
     ([L2], "no DHCP agent maps physnet1"), ([L2, with_(DHCP, alive=False)], "DHCP agent"),
     ([L2, with_(DHCP, bridge_mappings={})], "no DHCP agent maps")],
)  # fmt: skip
def test_agents_dead_or_wrongly_mapped_fail(found: list[Agent], seen: str) -> None:
    verdict = agents.check(SERVER.host, [NETWORK], found)
    assert not verdict.ok and seen in verdict.seen, verdict.seen


def test_a_tunnel_network_needs_no_mapping() -> None:
    vxlan = with_(NETWORK, network_type="vxlan", physical_network=None)
    assert agents.check(SERVER.host, [vxlan], [with_(L2, bridge_mappings={}), DHCP]).ok


def test_active_running_and_idle_passes() -> None:
    assert state.check(SERVER).ok


@pytest.mark.parametrize(
    ("changes", "seen"),
    [({"status": "ERROR", "fault": "No valid host was found"}, "No valid host"),
     ({"status": "BUILD", "task_state": "spawning"}, "spawning"),
     ({"power_state": 4}, "Shutdown"), ({"task_state": "rebooting"}, "rebooting")],
)  # fmt: skip
def test_error_building_or_not_running_fails(changes: dict[str, Any], seen: str) -> None:
    verdict = state.check(with_(SERVER, **changes))
    assert not verdict.ok and seen in verdict.seen


def test_port_bound_here_and_active_passes() -> None:
    assert binding.check(SERVER, [PORT]).ok


@pytest.mark.parametrize(
    ("changes", "seen"),
    [({"vif_type": "binding_failed"}, "binding_failed"), ({"host_id": "node2"}, "node2"),
     ({"status": "DOWN"}, "status DOWN")],
)  # fmt: skip
def test_port_unbound_elsewhere_or_down_fails(changes: dict[str, Any], seen: str) -> None:
    verdict = binding.check(SERVER, [with_(PORT, **changes)])
    assert not verdict.ok and seen in verdict.seen


def test_a_member_sees_no_binding_and_judges_the_status() -> None:
    hidden = with_(PORT, host_id=None, vif_type=None)
    assert binding.check(with_(SERVER, host=None), [hidden]).ok
    assert not binding.check(SERVER, []).ok


@pytest.mark.parametrize(
    "log", ["[    0.000000] Linux version 6.1.0-27-amd64", "Run /init as init process",
            "\\nDebian GNU/Linux 12 web ttyS0\\n\\nweb login: ",
            "SAPHIRA-GUEST: booted kernel=6.1.0-57-amd64 uptime=15.28"],
)  # fmt: skip
def test_a_console_showing_the_boot_passes(log: str) -> None:
    assert console.check(log).ok


@pytest.mark.parametrize(
    ("log", "seen"),
    [("", "empty"), ("\n \n", "empty"), ("SeaBIOS\nBooting from Hard Disk...\nBoot failed",
                                          "Boot failed")],
)  # fmt: skip
def test_an_empty_or_bootless_console_fails(log: str, seen: str) -> None:
    verdict = console.check(log)
    assert not verdict.ok and seen in verdict.seen


def test_a_leased_mac_passes() -> None:
    assert lease.check([with_(PORT, mac=MAC.upper())], [L2, DHCP]).ok


@pytest.mark.parametrize(
    ("port", "found", "seen"),
    [(PORT, [with_(DHCP, leases={"net-1": frozenset()})], "leased nothing"),
     (PORT, [with_(DHCP, leases={})], "no DHCP agent reports"),
     (with_(PORT, network=with_(NETWORK, dhcp_subnets=())), [DHCP], "no subnet with DHCP")],
)  # fmt: skip
def test_no_lease_fails(port: object, found: list[Agent], seen: str) -> None:
    verdict = lease.check([port], found)  # type: ignore[list-item]
    assert not verdict.ok and seen in verdict.seen


@pytest.mark.parametrize(
    "rule",
    [SSH, with_(SSH, port_min=None, port_max=None), with_(SSH, protocol=None),
     with_(SSH, protocol="6", port_min=20, port_max=30)],
)  # fmt: skip
def test_an_ingress_rule_admitting_the_port_passes(rule: object) -> None:
    assert secgroups.check(PORT, [rule], SSH_PORT).ok  # type: ignore[list-item]


@pytest.mark.parametrize(
    "rule",
    [with_(SSH, direction="egress"), with_(SSH, ethertype="IPv6"), with_(SSH, protocol="udp"),
     with_(SSH, port_min=80, port_max=80), with_(SSH, protocol="icmp", port_min=None)],
)  # fmt: skip
def test_rules_not_admitting_the_port_fail(rule: object) -> None:
    verdict = secgroups.check(PORT, [rule], SSH_PORT)  # type: ignore[list-item]
    assert not verdict.ok and "22/tcp" in verdict.seen


def test_port_security_off_admits_everything() -> None:
    assert secgroups.check(with_(PORT, port_security=False), [], SSH_PORT).ok


def test_the_service_answering_passes_and_a_refusal_fails() -> None:
    assert reach.check(PORT, SSH_PORT, reach.Answer(True, "connected")).ok
    verdict = reach.check(PORT, SSH_PORT, reach.Answer(False, "Connection refused"))
    assert not verdict.ok and "10.0.0.5:22/tcp" in verdict.seen and "refused" in verdict.seen


@pytest.mark.parametrize("text", ["22/tcp", "53/UDP", "8080"])
def test_a_port_parses(text: str) -> None:
    assert str(Wanted.parse(text)).split("/")[0] == text.split("/")[0]


@pytest.mark.parametrize("text", ["0/tcp", "70000", "ssh", "22/sctp", ""])
def test_a_bad_port_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match=r"port|protocol"):
        Wanted.parse(text)
