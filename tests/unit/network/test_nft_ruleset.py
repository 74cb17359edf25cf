"""The Linux bridge agent's nftables ruleset, generated whole (pure)."""

from __future__ import annotations

import re

from saphira.network.l2.nft_model import listed_fingerprint
from saphira.network.l2.nft_port import link_local
from saphira.network.l2.nft_ruleset import build, ruleset_for, tap_name
from saphira.objects.network import AddressPair, FixedIP, PortDetails, SecurityRule, Segment

FLAT = Segment("flat", "physnet1")
A_ID, B_ID = "aaaaaaaa-1111-4000-8000-000000000001", "bbbbbbbb-2222-4000-8000-000000000002"
A_TAP, B_TAP = "tapaaaaaaaa-11", "tapbbbbbbbb-22"


def port(port_id: str = A_ID, **fields: object) -> PortDetails:
    made = PortDetails(
        port_id,
        "net",
        "FA:16:3E:00:00:01",
        FLAT,
        fixed_ips=[FixedIP("s4", "10.0.0.5"), FixedIP("s6", "2001:db8::5")],
        security_rules=[SecurityRule("egress", "IPv4")],
    )
    for name, value in fields.items():
        setattr(made, name, value)
    return made


def chain(script: str, name: str) -> list[str]:
    """The rules of chain ``name`` in a generated script."""
    body = re.search(rf"\tchain {re.escape(name)} {{\n(.*?)\n\t}}", script, re.S)
    assert body is not None, f"no chain {name}"
    return [line.strip() for line in body.group(1).splitlines()]


def test_tap_names_are_novas() -> None:
    assert tap_name(A_ID) == A_TAP


def test_a_port_gets_egress_and_ingress_chains_and_dispatch() -> None:
    script = ruleset_for([port()], bridges=["br1"])
    assert script.startswith("table bridge saphira\ndelete table bridge saphira\n")
    egress, ingress = chain(script, f"{A_TAP}-egress"), chain(script, f"{A_TAP}-ingress")
    assert egress[0] == "ether saddr != { fa:16:3e:00:00:01 } drop"
    assert "meta protocol ip return" in egress  # the egress rule
    assert egress[-1].startswith("drop comment ")
    assert ingress[:2] == ["meta mark & 0x00200000 != 0 drop", "meta mark & 0x00100000 != 0 return"]
    assert ingress[-1].startswith("drop comment ")  # no ingress rule: default deny
    forward = chain(script, "forward")
    assert forward[1] == f'iifname vmap {{ "{A_TAP}" : jump {A_TAP}-egress }}'
    assert forward[2].startswith(f'oifname vmap {{ "{A_TAP}" : jump {A_TAP}-ingress }}')
    assert chain(script, "input")[1].startswith(f'iifname vmap {{ "{A_TAP}" : jump')
    assert chain(script, "output")[1].startswith(f'oifname vmap {{ "{A_TAP}" : jump')
    assert 'set bridges { type ifname; elements = { "br1" }; }' in script
    assert "iifname @bridges ct state established,related meta mark set meta mark | 0x00100000" in (
        script
    )


def test_anti_spoofing_sets_hold_fixed_ips_pairs_and_link_locals() -> None:
    pairs = [AddressPair("10.0.0.0/24", ""), AddressPair("192.0.2.9", "fa:16:3e:00:00:02")]
    script = ruleset_for([port(allowed_address_pairs=pairs)], bridges=["br1"])
    ip4 = re.search(rf"set {A_TAP}-ip4 {{ (.*) }}", script)
    ip6 = re.search(rf"set {A_TAP}-ip6 {{ (.*) }}", script)
    assert ip4 is not None and ip6 is not None
    assert "elements = { fa:16:3e:00:00:01 . 10.0.0.0/24, fa:16:3e:00:00:02 . 192.0.2.9 }" in (
        ip4.group(1)
    )
    assert f"fa:16:3e:00:00:01 . {link_local('fa:16:3e:00:00:01')}" in ip6.group(1)
    assert f"fa:16:3e:00:00:02 . {link_local('fa:16:3e:00:00:02')}" in ip6.group(1)
    assert "fa:16:3e:00:00:01 . 2001:db8::5" in ip6.group(1)
    egress = chain(script, f"{A_TAP}-egress")
    assert egress[0] == "ether saddr != { fa:16:3e:00:00:01, fa:16:3e:00:00:02 } drop"
    assert f"meta protocol ip ether saddr . ip saddr != @{A_TAP}-ip4 drop" in egress


def test_link_local_is_the_modified_eui64() -> None:
    assert link_local("fa:16:3e:00:00:01") == "fe80::f816:3eff:fe00:1"


def test_unfiltered_ports_are_left_alone_and_down_ports_dropped() -> None:
    off = port(port_security_enabled=False)
    dhcp = port(B_ID, device_owner="network:dhcp")
    assert ruleset_for([off, dhcp], bridges=["br1"]) == ""  # nothing to filter: no tables
    script = ruleset_for([off, port(B_ID, admin_state_up=False)], bridges=["br1"])
    assert chain(script, "forward")[1] == f'iifname vmap {{ "{B_TAP}" : drop }}'
    assert f"{B_TAP}-egress" not in script and A_TAP not in script


def test_isolated_taps_and_ports_with_bad_rules_are_dropped() -> None:
    bad = port(B_ID, security_rules=[SecurityRule("ingress", "IPv4", "nosuch")])
    ruleset = build([bad], bridges=["br1"], isolated=["tapstray0000-0"])
    assert set(ruleset.failed) == {B_ID}
    forward = chain(ruleset.script, "forward")
    assert forward[1] == f'iifname vmap {{ "{B_TAP}" : drop, "tapstray0000-0" : drop }}'


def test_digests_follow_content_and_match_a_listing() -> None:
    first = build([port()], bridges=["br1"], table="t")
    again = build([port()], bridges=["br1"], table="t")
    assert first.script == again.script
    opened = [SecurityRule("egress", "IPv4"), SecurityRule("ingress", "IPv4", "tcp", 22, 22)]
    changed = build([port(security_rules=opened)], bridges=["br1"], table="t")
    old, new = first.tables[0].fingerprint, changed.tables[0].fingerprint
    assert {n for n in old if old[n] != new[n]} == {f"{A_TAP}-ingress"}
    # What `nft -j list table` shows: chains, then rules in order, the last with our comment.
    table = first.tables[0]
    listing = [{"chain": {"name": c.name}} for c in table.chains] + [
        {"rule": {"chain": c.name, **({"comment": c.digest} if i == len(c.rules) - 1 else {})}}
        for c in table.chains
        for i in range(len(c.rules))
    ]
    assert listed_fingerprint(listing) == table.fingerprint
    assert listed_fingerprint(listing[:-1]) != table.fingerprint  # a rule gone by hand
