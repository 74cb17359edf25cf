"""Security groups and rules: the default group, Neutron's rule checks, duplicates, deletes."""

from __future__ import annotations

from typing import Any

from tests.functional.network.conftest import Neutron

RULES = "/v2.0/security-group-rules"


def _match(rule: dict[str, Any]) -> tuple[Any, ...]:
    return (rule["direction"], rule["ethertype"], rule["remote_group_id"] is not None)


def test_default_group_made_on_first_use(neutron: Neutron) -> None:
    groups = neutron.ok("GET", "/v2.0/security-groups", user="demo")["security_groups"]
    (default,) = groups
    assert default["name"] == "default" and default["stateful"] is True
    assert sorted(_match(r) for r in default["security_group_rules"]) == [
        ("egress", "IPv4", False), ("egress", "IPv6", False),
        ("ingress", "IPv4", True), ("ingress", "IPv6", True),
    ]  # fmt: skip
    assert all(
        r["remote_group_id"] in (None, default["id"]) for r in default["security_group_rules"]
    )
    again = neutron.ok("GET", "/v2.0/security-groups", user="demo")["security_groups"]
    assert [g["id"] for g in again] == [default["id"]]
    path = f"/v2.0/security-groups/{default['id']}"
    assert neutron.fault("DELETE", path, 409, "demo") == "SecurityGroupCannotRemoveDefault"
    rename = {"security_group": {"name": "other"}}
    assert neutron.fault("PUT", path, 409, "demo", json=rename) == (
        "SecurityGroupCannotUpdateDefault"
    )
    body = {"security_group": {"name": "default"}}
    assert neutron.fault("POST", "/v2.0/security-groups", 409, "demo", json=body) == (
        "SecurityGroupDefaultAlreadyExists"
    )
    assert neutron.fault("GET", path, 404, "alt") == "SecurityGroupNotFound"
    neutron.ok("DELETE", path, 204)  # an admin may


def test_rules_are_checked_and_duplicates_refused(neutron: Neutron) -> None:
    group = neutron.create("security_group", "demo", name="web", description="w")
    assert [r["direction"] for r in group["security_group_rules"]] == ["egress", "egress"]
    gid = group["id"]
    rule = neutron.create(
        "security_group_rule", "demo", security_group_id=gid, direction="ingress",
        protocol="tcp", port_range_min=80, port_range_max=80, remote_ip_prefix="0.0.0.0/0",
    )  # fmt: skip
    assert (rule["protocol"], rule["ethertype"], rule["port_range_min"]) == ("tcp", "IPv4", 80)

    def refused(status: int, **attrs: Any) -> str:
        body = {"security_group_rule": {"security_group_id": gid, "direction": "ingress", **attrs}}
        return neutron.fault("POST", RULES, status, "demo", json=body)

    assert refused(409, protocol="6", port_range_min=80, port_range_max=80) == (
        "SecurityGroupRuleExists"
    )
    assert refused(409, direction="egress", remote_ip_prefix="0.0.0.0/0") == (
        "SecurityGroupRuleExists"
    )
    assert refused(400, protocol="bogus") == "SecurityGroupRuleInvalidProtocol"
    assert refused(400, protocol="tcp", port_range_min=90, port_range_max=80) == (
        "SecurityGroupInvalidPortRange"
    )
    assert refused(400, protocol="tcp", port_range_min=0, port_range_max=80) == (
        "SecurityGroupInvalidPortValue"
    )
    assert refused(400, protocol="udp", port_range_min=1, port_range_max=70000) == (
        "SecurityGroupInvalidPortValue"
    )
    assert refused(400, port_range_min=22, port_range_max=22) == (
        "SecurityGroupProtocolRequiredWithPorts"
    )
    assert refused(400, protocol="gre", port_range_min=1, port_range_max=2) == (
        "SecurityGroupInvalidProtocolForPortRange"
    )
    assert refused(400, protocol="icmp", port_range_min=300) == "SecurityGroupInvalidIcmpValue"
    assert refused(400, protocol="icmp", port_range_max=0) == "SecurityGroupMissingIcmpType"
    assert refused(400, ethertype="IPv4", remote_ip_prefix="::/0") == (
        "SecurityGroupRuleParameterConflict"
    )
    assert refused(400, remote_ip_prefix="10.0.0.0/8", remote_group_id=gid) == (
        "SecurityGroupRemoteGroupAndRemoteIpPrefix"
    )
    assert refused(400, ethertype="IPv4", protocol="ipv6-icmp") == (
        "SecurityGroupEthertypeConflictWithProtocol"
    )
    assert refused(400, remote_ip_prefix="nonsense") == "InvalidCIDR"
    assert refused(400, direction="sideways") == "HTTPBadRequest"
    for missing in ("00000000-0000-0000-0000-000000000000", "bad_group_id"):  # tempest's
        assert refused(404, remote_group_id=missing) == "SecurityGroupNotFound"
    icmp = neutron.create(
        "security_group_rule", "demo", security_group_id=gid, direction="ingress",
        protocol="icmp", port_range_min=8, port_range_max=0, ethertype="ipv4",
    )  # fmt: skip
    assert icmp["ethertype"] == "IPv4"
    listed = neutron.ok("GET", f"{RULES}?security_group_id={gid}&direction=ingress", user="demo")
    assert len(listed["security_group_rules"]) == 2
    neutron.ok("DELETE", f"{RULES}/{rule['id']}", 204, "demo")
    assert neutron.fault("GET", f"{RULES}/{rule['id']}", 404, "demo") == (
        "SecurityGroupRuleNotFound"
    )


def test_group_in_use_cannot_go(neutron: Neutron) -> None:
    group = neutron.create("security_group", "demo", name="busy")
    network = neutron.network("demo")
    port = neutron.port(network["id"], "demo", security_groups=[group["id"]])
    path = f"/v2.0/security-groups/{group['id']}"
    assert neutron.fault("DELETE", path, 409, "demo") == "SecurityGroupInUse"
    neutron.ok("DELETE", f"/v2.0/ports/{port['id']}", 204, "demo")
    updated = neutron.ok("PUT", path, user="demo", json={"security_group": {"name": "idle"}})
    assert updated["security_group"]["name"] == "idle"
    neutron.ok("DELETE", path, 204, "demo")
    rules = neutron.ok("GET", f"{RULES}?security_group_id={group['id']}", user="demo")
    assert rules["security_group_rules"] == []
