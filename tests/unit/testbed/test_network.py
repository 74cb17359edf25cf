"""The networks' commands: made once, and a second ``up`` only adds what is missing."""

from __future__ import annotations

from saphira.devtools.testbed.join import Join
from saphira.devtools.testbed.layout import Addresses, Layout
from saphira.devtools.testbed.network import Network
from saphira.devtools.testbed.node import Node
from saphira.devtools.testbed.runner import Result
from tests.unit.testbed.fakes import FakeRunner

LAYOUT = Layout("dev")
MISSING = Result(1, "", "Device does not exist")


def _adds(runner: FakeRunner) -> list[list[str]]:
    return [call for call in runner.calls if call[:3] == ["ip", "link", "add"]]


def test_a_bare_machine_gets_two_bridges_and_two_veths_per_node() -> None:
    shows = [("ip", "-n", LAYOUT.netns(node), "link", "show") for node in LAYOUT.nodes]
    runner = FakeRunner({("ip", "link", "show"): MISSING, **dict.fromkeys(shows, MISSING)})
    Network(LAYOUT, Addresses(150), runner).create()
    assert [call[3] for call in _adds(runner)] == [
        "tbdev-m", "tbdev-p", "tbdev-1m", "tbdev-1p", "tbdev-2m", "tbdev-2p",
    ]  # fmt: skip
    assert ["ip", "addr", "replace", "10.150.0.1/24", "dev", "tbdev-m"] in runner.calls
    node1 = ["ip", "-n", "stb-dev-node1"]
    assert [*node1, "addr", "replace", "10.150.0.11/24", "dev", "eth0"] in runner.calls
    assert [*node1, "route", "replace", "default", "via", "10.150.0.1"] in runner.calls
    assert not any("eth1" in call and "addr" in call for call in runner.calls)


def test_a_second_create_adds_nothing_that_exists() -> None:
    runner = FakeRunner()  # every link shows
    Network(LAYOUT, Addresses(150), runner).create()
    assert _adds(runner) == []


def test_a_veth_whose_node_end_went_is_made_again() -> None:
    runner = FakeRunner({("ip", "-n", "stb-dev-node2", "link", "show", "dev", "eth1"): MISSING})
    Network(LAYOUT, Addresses(150), runner).create()
    assert ["ip", "link", "delete", "tbdev-2p"] in runner.calls
    assert [call[3] for call in _adds(runner)] == ["tbdev-2p"]


def test_the_join_runs_the_tool_inside_the_node_without_questions() -> None:
    node = Node(LAYOUT, "node1", FakeRunner())
    command = Join(node, "10.150.0.1", "TOKEN").command("/venv/bin/saphira-openstack-setup-compute")
    pins = [
        "--mount=/run/saphira-testbed/ns/dev-node1",
        "--uts=/run/saphira-testbed/ns/dev-node1.uts",
    ]
    assert command[:5] == ["nsenter", *pins, "--net=/run/netns/stb-dev-node1", "--"]
    assert command[5] == "/venv/bin/saphira-openstack-setup-compute"
    assert command[command.index("--controller") + 1] == "10.150.0.1"
    assert command[command.index("--provider-nic") + 1] == "eth1"
    assert command[command.index("--token") + 1] == "TOKEN"
    assert command[command.index("--host") + 1] == "node1"
    assert "--non-interactive" in command
