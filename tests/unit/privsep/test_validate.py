"""What the privileged helper's entry points accept: strict shapes, nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest

from saphira.network.dhcp import config
from saphira.network.dhcp.files import NetworkFiles
from saphira.network.l2.nft_model import replace_script
from saphira.network.l2.nft_ruleset import TABLE, build
from saphira.objects.network import (
    DhcpHost,
    DhcpNetwork,
    DhcpSubnet,
    FixedIP,
    PortDetails,
    SecurityRule,
    Segment,
)
from saphira.privsep import context, dnsmasq, helper, nft, validate
from saphira.privsep.validate import InvalidArgument

HOSTILE = ["x; rm -rf /", "../etc", "..", ".", "a/b", "-f", "", "a b", "tap\n0", "x" * 16, "$(id)"]


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_device_names_are_refused(name: str) -> None:
    with pytest.raises(InvalidArgument):
        validate.device(name)


@pytest.mark.parametrize("name", [n for n in HOSTILE if n != "x" * 16])
def test_hostile_namespace_names_are_refused(name: str) -> None:
    with pytest.raises(InvalidArgument):
        validate.namespace(name)


@pytest.mark.parametrize("value", [None, 7, ["lo"], b"lo"])
def test_values_of_another_type_are_refused(value: object) -> None:
    with pytest.raises(InvalidArgument):
        validate.device(value)


def test_the_names_agents_use_pass() -> None:
    assert validate.device("tap0123456789a") == "tap0123456789a"
    assert validate.device("sxlbab12cd.9") == "sxlbab12cd.9"
    assert validate.namespace(config.namespace_name("0" * 8 + "-1111-2222-3333-" + "4" * 12))
    assert validate.mac("fa:16:3e:00:00:0a") == "fa:16:3e:00:00:0a"
    assert validate.interface_address("10.0.0.1/24") == "10.0.0.1/24"
    assert validate.interface_address("2001:db8::1/64") == "2001:db8::1/64"


@pytest.mark.parametrize(
    "value", ["/etc/../shadow", "relative/path", "/a//b", "/a/", "/a/./b", "/a b", "/a;b", "-x"]
)
def test_paths_must_be_absolute_and_normalised(value: str) -> None:
    with pytest.raises(InvalidArgument):
        validate.path(value)


@pytest.mark.parametrize(
    ("value", "low", "high"), [(True, 0, 1), ("3", 0, 9), (4096, 0, 4095), (-1, 0, 9)]
)
def test_integers_are_ints_in_range(value: object, low: int, high: int) -> None:
    with pytest.raises(InvalidArgument):
        validate.integer(value, low, high, "number")


@pytest.mark.parametrize("value", ["10.0.0.1", "10.0.0.1/24 dev lo", "not-an-ip", "10.0.0.1/99"])
def test_interface_addresses_need_a_valid_prefix(value: str) -> None:
    with pytest.raises(InvalidArgument):
        validate.interface_address(value)


@pytest.mark.parametrize("flow", ["--strict", "a\nb", "", "x" * 2001])
def test_flows_are_one_line_and_no_option(flow: str) -> None:
    with pytest.raises(InvalidArgument):
        validate.flow_text(flow)


def test_nft_scripts_the_agent_writes_pass() -> None:
    rules = [SecurityRule("egress", "IPv4"), SecurityRule("ingress", "IPv4", "tcp", 22, 22)]
    filtered = PortDetails(
        "aaaaaaaa-1111-4000-8000-000000000001", "net", "fa:16:3e:00:00:01",
        Segment("flat", "physnet1"), fixed_ips=[FixedIP("s4", "10.0.0.5")], security_rules=rules,
    )  # fmt: skip
    script = build([filtered], bridges=["brq0"], isolated=["tapstray0000-0"], table=TABLE).script
    assert "chain" in script
    assert nft.checked_script(script) == script
    assert nft.checked_script(replace_script([])) == ""


@pytest.mark.parametrize(
    "script",
    [
        "flush ruleset\n",
        "table inet filter\ndelete table inet filter\n",
        "table ip saphira { chain c { } }\n",  # another family
        'include "/etc/nftables.conf"\n',
        "table inet saphira {\n}\nadd rule inet filter input drop\n",
        "table inet saphira {\n",
        "delete table inet saphira {\n}\n",
    ],
)
def test_nft_scripts_touching_anything_else_are_refused(script: str) -> None:
    with pytest.raises(InvalidArgument):
        nft.checked_script(script)


def _dhcp_network() -> DhcpNetwork:
    subnets = [
        DhcpSubnet("s4", "10.0.0.0/24", gateway_ip="10.0.0.1"),
        DhcpSubnet("s6", "2001:db8::/64", ip_version=6),
    ]
    port = DhcpHost("dhcpport-0123456789", "fa:16:3e:00:00:02", [FixedIP("s4", "10.0.0.2")])
    return DhcpNetwork("net1", Segment("flat", "physnet1", mtu=1450), port, subnets, [])


def test_the_dnsmasq_command_the_agent_builds_passes(tmp_path: Path) -> None:
    argv = config.dnsmasq_argv(_dhcp_network(), NetworkFiles.under(tmp_path, "net1"), 86400)
    assert dnsmasq.checked_argv(argv) == argv


@pytest.mark.parametrize(
    "change",
    [
        ("--conf-file=/dev/null", "--conf-file=/etc/evil.conf"),
        ("--no-hosts", "--dhcp-script=/bin/sh"),
        ("--pid-file={d}/pid", "--pid-file=/etc/shadow"),
        ("--dhcp-leasefile={d}/leases", "--dhcp-leasefile=/root/leases"),
        ("--no-resolv", "--no-resolv\n--user=root"),
        ("dnsmasq", "/bin/sh"),
        ("--pid-file={d}/pid", "--log-facility={d}/dnsmasq.log"),
    ],
)
def test_dnsmasq_commands_with_other_options_or_files_are_refused(
    tmp_path: Path, change: tuple[str, str]
) -> None:
    files = NetworkFiles.under(tmp_path, "net1")
    argv = config.dnsmasq_argv(_dhcp_network(), files, 86400)
    old, new = (part.format(d=files.directory) for part in change)
    assert old in argv
    with pytest.raises(InvalidArgument):
        dnsmasq.checked_argv([new if arg == old else arg for arg in argv])


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--privsep_context", "os_brick.privileged.default",
         "--privsep_sock_path", "/tmp/a/privsep.sock"],
        ["--privsep_context", context.CONTEXT, "--privsep_sock_path", "/tmp/a/privsep.sock",
         "--privsep_context", "other.context"],
        ["--privsep_context", context.CONTEXT, "--privsep_sock_path", "/tmp/../a/privsep.sock"],
        ["--privsep_context", context.CONTEXT, "--privsep_sock_path", "/tmp/a/other"],
        ["--config-file", "/tmp/caps.conf", "--privsep_context", context.CONTEXT],
    ],
)  # fmt: skip
def test_the_helper_main_accepts_only_its_own_command_line(args: list[str]) -> None:
    with pytest.raises(SystemExit):
        helper.check_arguments(args)


def test_the_command_line_the_services_write_is_accepted() -> None:
    for root in (True, False):
        command = context.helper_argv("/tmp/tmpab_12cd/privsep.sock", root=root)
        start = command.index("saphira.privsep.helper")
        assert command[start - 1] == "-m"
        helper.check_arguments(command[start + 1 :])
