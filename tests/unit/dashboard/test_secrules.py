"""Security group rules as the pages show them: the open-to-the-world warning, the
default group as Neutron makes it, and the Add Rule form read into a rule."""

from __future__ import annotations

import pytest

from saphira.dashboard import ruleform
from saphira.dashboard.cloud_secgroups import GroupRow, rule_row
from saphira.dashboard.secrules import RuleSpec

GROUP = "5f0c6a8e-1111-4b2b-9c1e-000000000001"


def _default_group() -> GroupRow:
    """Neutron's default group: egress anywhere (no prefix, no group) and ingress from
    the group's own members, for IPv4 and IPv6 (remote_ip_prefix null throughout)."""
    raw = [
        {"id": f"r{i}", "direction": d, "ethertype": e, "protocol": None,
         "port_range_min": None, "port_range_max": None, "remote_ip_prefix": None,
         "remote_group_id": GROUP if d == "ingress" else None}
        for i, (d, e) in enumerate(
            [("egress", "IPv4"), ("egress", "IPv6"), ("ingress", "IPv4"), ("ingress", "IPv6")]
        )
    ]  # fmt: skip
    rules = tuple(rule_row(r, {GROUP: "default"}) for r in raw)
    return GroupRow(GROUP, "default", "Default security group", rules)


def test_the_default_group_warns_of_nothing_and_shows_its_remotes_as_horizon_does() -> None:
    group = _default_group()
    assert group.exposures == ()
    remotes = {(r.spec.direction, r.spec.ethertype): r.remote for r in group.rules}
    assert remotes == {
        ("egress", "IPv4"): "0.0.0.0/0", ("egress", "IPv6"): "::/0",
        ("ingress", "IPv4"): "group default", ("ingress", "IPv6"): "group default",
    }  # fmt: skip
    assert {r.spec.ports for r in group.rules} == {"any"}


def _rule(**changed: object) -> RuleSpec:
    base: dict[str, object] = {
        "direction": "ingress", "ethertype": "IPv4", "protocol": "tcp", "port_min": 22,
        "port_max": 22, "remote_prefix": "0.0.0.0/0", "remote_group_id": None,
    }  # fmt: skip
    return RuleSpec(**{**base, **changed})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("changed", "says"),
    [
        ({}, "Open to the whole internet (0.0.0.0/0): SSH (TCP port 22) of every instance"),
        ({"remote_prefix": None}, "(0.0.0.0/0): SSH (TCP port 22)"),  # null is everything
        ({"ethertype": "IPv6", "remote_prefix": "::/0", "port_min": 80, "port_max": 80},
         "(::/0): HTTP (TCP port 80) of every instance in this group can be reached from any "
         "IPv6 address"),
        ({"protocol": None, "port_min": None, "port_max": None}, "all traffic (every protocol"),
        ({"protocol": "icmp", "port_min": None, "port_max": None}, "ICMP (ping and other"),
        ({"protocol": "udp", "port_min": 1, "port_max": 65535}, "every UDP port"),
        ({"port_min": 8000, "port_max": 8080}, "TCP ports 8000-8080"),
        ({"remote_prefix": "10.0.0.0/0"}, "(10.0.0.0/0)"),  # any prefix of length 0
    ],
)  # fmt: skip
def test_an_ingress_rule_open_to_every_address_says_what_it_exposes(
    changed: dict[str, object], says: str
) -> None:
    assert says in _rule(**changed).exposure


@pytest.mark.parametrize(
    "changed",
    [
        {"direction": "egress"},  # reaching out exposes nothing
        {"remote_prefix": "192.0.2.0/24"},
        {"remote_prefix": None, "remote_group_id": GROUP},
    ],
)
def test_a_rule_limited_to_some_addresses_or_going_out_has_no_warning(
    changed: dict[str, object],
) -> None:
    assert _rule(**changed).exposure == ""


def test_the_form_reads_a_common_rule_a_custom_range_and_a_remote_group() -> None:
    ssh = ruleform.parse({"preset": "ssh", "direction": "ingress", "cidr": "0.0.0.0/0"})
    assert ssh == _rule()
    custom = ruleform.parse(
        {"preset": "custom_udp", "ports": "5000:5010", "cidr": "2001:db8::1/64"}
    )
    assert custom == _rule(protocol="udp", port_min=5000, port_max=5010, ethertype="IPv6",
                           remote_prefix="2001:db8::/64")  # fmt: skip
    grouped = ruleform.parse({"preset": "any", "direction": "egress", "remote": "group",
                              "group": GROUP, "ethertype": "IPv6"})  # fmt: skip
    assert grouped == RuleSpec("egress", "IPv6", None, None, None, None, GROUP)
    ping = ruleform.parse({"preset": "custom_icmp", "icmp_type": "8", "icmp_code": "0",
                           "cidr": "10.0.0.0/8"})  # fmt: skip
    assert ping == _rule(protocol="icmp", port_min=8, port_max=0, remote_prefix="10.0.0.0/8")
    assert ping.ports == "type 8 code 0"
    gre = ruleform.parse({"preset": "other", "protocol": " GRE ", "cidr": "::/0"})
    assert gre == _rule(protocol="gre", port_min=None, port_max=None, ethertype="IPv6",
                        remote_prefix="::/0")  # fmt: skip
    assert isinstance(gre, RuleSpec) and "(::/0): protocol gre of every instance" in gre.exposure
    assert ruleform.parse({"preset": "other", "protocol": "112", "cidr": "0.0.0.0/0"}) == _rule(
        protocol="112", port_min=None, port_max=None
    )


@pytest.mark.parametrize(
    ("form", "says"),
    [
        ({"preset": "telnet"}, "Choose a rule."),
        ({"preset": "ssh", "direction": "sideways"}, "Choose ingress or egress."),
        ({"preset": "custom_tcp", "ports": "80-22", "cidr": "0.0.0.0/0"}, "from 1 to 65535"),
        ({"preset": "custom_tcp", "ports": "http", "cidr": "0.0.0.0/0"}, "Give a port (22)"),
        ({"preset": "custom_icmp", "icmp_code": "3", "cidr": "0.0.0.0/0"}, "no type is given"),
        ({"preset": "custom_icmp", "icmp_type": "300", "cidr": "0.0.0.0/0"}, "0 to 255"),
        ({"preset": "ssh", "cidr": "everywhere"}, "“everywhere” is not a CIDR"),
        ({"preset": "other", "protocol": "", "cidr": "0.0.0.0/0"}, "Give the protocol"),
        ({"preset": "other", "protocol": "256", "cidr": "0.0.0.0/0"}, "from 0 to 255"),
        ({"preset": "other", "protocol": "g r e", "cidr": "0.0.0.0/0"}, "such as gre"),
        ({"preset": "ssh", "remote": "group", "group": ""}, "Choose the remote security group."),
    ],
)
def test_the_form_says_what_is_wrong(form: dict[str, str], says: str) -> None:
    answer = ruleform.parse(form)
    assert isinstance(answer, str) and says in answer
