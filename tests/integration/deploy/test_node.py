"""A compute node as its own host: its only processes are ``saphira-compute`` and
``saphira-network-agent`` (``[DEFAULT] host = node-x``), beside a controller of
``saphira-api`` (which answers the agents), ``-conductor`` and ``-scheduler``,
over RabbitMQ and a database server. The agent wires a real Open vSwitch
bridge of the test's own; the fake driver's guest does not plug its NIC, so
the test plugs the port on the bridge as libvirt would (iface-id, MAC). The
node finds placement and the network service in the identity catalog only.
"""

from __future__ import annotations

import contextlib
import secrets
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from saphira.conf.endpoints import by_type, listen_port
from saphira.network.l2 import ovs_bridge
from saphira.privsep import netns, ovs
from saphira.privsep.runner import run
from tests.functional.cloud import free_offset
from tests.integration.deploy.deployment import Deployment
from tests.integration.deploy.test_deploy import _start_control, _wait_for
from tests.unprivileged import uid_of

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("ovs")]
Make = Callable[..., Deployment]
NODE = "node-x"
MARK = "SAPHIRA_NODE_TEST"


@pytest.fixture
def bridge() -> Iterator[str]:
    """An OVS bridge of the test's own (``sxnd<hex>``), removed with its ports."""
    name = f"sxnd{secrets.token_hex(3)}"
    ovs_bridge.ensure_bridge(name)
    try:
        yield name
    finally:
        ovs.delete_bridge(name)


@contextlib.contextmanager
def _plugged(bridge: str, port: dict[str, Any]) -> Iterator[None]:
    """The port's "tap": an internal OVS port carrying its iface-id and MAC."""
    device = f"sxtp{port['id'][:8]}"
    run(["ovs-vsctl", "add-port", bridge, device, "--", "set", "Interface", device,
         "type=internal", f"external_ids:iface-id={port['id']}",
         f"external_ids:attached-mac={port['mac_address']}",
         "external_ids:iface-status=active"])  # fmt: skip
    try:
        yield
    finally:
        ovs.delete_port(device)


def _start_node(deploy: Deployment, bridge: str, mark: str) -> None:
    """node-x's two processes. Its ``port_offset`` is another than the controller's,
    so its own "local" URLs lead nowhere: only the catalog finds the services
    (no ``endpoint_override`` is set). The metadata agent is told where the
    metadata API is, as the join tool tells it."""
    assert deploy.conf is not None
    elsewhere: dict[str, object] = {"port_offset": free_offset()}
    metadata_port = listen_port(deploy.conf, by_type("metadata"))
    deploy.start("compute-x", "compute", host=NODE, own={"DEFAULT": elsewhere})
    own: dict[str, dict[str, object]] = {
        "DEFAULT": elsewhere,
        "ovs": {"bridge_mappings": f"physnet1:{bridge}"},
        "agent": {"report_interval": 1},
        "metadata_agent": {"nova_metadata_port": metadata_port},
    }
    env = {MARK: mark}
    deploy.start("network-x", "network_agent", host=NODE, own=own, as_root=True, env=env)


def _node_agents(deploy: Deployment) -> dict[str, dict[str, Any]]:
    """node-x's agents that report alive, by binary, as `network agent show` shows them."""
    listed = deploy.openstack("network", "agent", "list", "--host", NODE, "-f", "json")
    return {
        agent["Binary"]: deploy.openstack("network", "agent", "show", agent["ID"], "-f", "json")
        for agent in listed
        if agent["Alive"] in (True, ":-)")
    }


def _assert_only_the_helper_stays_root(deploy: Deployment, mark: str) -> None:
    """Started as root, the agent runs as the saphira user; its helper (a daemon of its
    own, found by the environment it inherited) alone stays root."""
    assert deploy.account is not None
    agent = deploy.processes["network-x"].proc
    assert agent is not None
    ours = {pid: argv for pid, argv in _marked(mark) if argv and "python" in Path(argv[0]).name}
    helpers = [pid for pid, argv in ours.items() if "saphira.privsep.helper" in argv]
    assert len(helpers) == 1 and agent.pid in ours, ours
    assert uid_of(helpers[0]) == 0
    others = {uid_of(pid) for pid in ours if pid not in helpers}
    assert others == {deploy.account.uid}, ours


def _marked(mark: str) -> list[tuple[int, list[str]]]:
    """Every process whose environment carries ``MARK=mark``, with its command line."""
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if f"{MARK}={mark}".encode() in (entry / "environ").read_bytes().split(b"\0"):
                found.append(
                    (int(entry.name), (entry / "cmdline").read_bytes().decode().split("\0")[:-1])
                )
        except OSError:
            continue
    return found


def _port_status(deploy: Deployment, port_id: str) -> str:
    return str(deploy.openstack("port", "show", port_id, "-f", "json")["status"])


def _namespaces_gone(names: list[str]) -> None:
    """Whatever the DHCP agent left of the test's network (a failed run only)."""
    for name in names:
        if name in netns.names():
            pids = subprocess.run(["ip", "netns", "pids", name], capture_output=True, text=True)
            for pid in pids.stdout.split():
                subprocess.run(["kill", pid], check=False)
            netns.delete(name)


# PostgreSQL here; the token join of a node (tests/integration/join) runs on MariaDB
@pytest.mark.parametrize("databases", ["postgresql"], indirect=True)
def test_a_node_of_compute_and_network_agent_wires_a_server(
    deployment: Make, bridge: str, tmp_path: Path
) -> None:
    deploy = deployment()
    _start_control(deploy)
    mark = uuid.uuid4().hex
    _start_node(deploy, bridge, mark)
    assert deploy.discover_hosts() == [NODE]
    image = deploy.tiny_flavor_and_image(tmp_path)

    agents = _wait_for("node-x's L2 and DHCP agents alive", lambda: (
        found if {"neutron-openvswitch-agent", "neutron-dhcp-agent"} <= set(
            found := _node_agents(deploy)) else None), deploy)  # fmt: skip
    for binary in ("neutron-openvswitch-agent", "neutron-dhcp-agent"):
        assert agents[binary]["configuration"]["bridge_mappings"] == {"physnet1": bridge}

    network = deploy.openstack(
        "network", "create", "--share", "--provider-network-type", "flat",
        "--provider-physical-network", "physnet1", "net-x", "-f", "json",
    )  # fmt: skip
    namespace = f"qdhcp-{network['id']}"
    try:
        deploy.openstack(
            "subnet", "create", "--network", "net-x", "--subnet-range", "10.97.13.0/24",
            "sub-x", "-f", "json",
        )  # fmt: skip
        _wait_for(f"{namespace} on the node", lambda: namespace in netns.names(), deploy)
        server = deploy.openstack(
            "server", "create", "--flavor", "tiny", "--image", image, "--network", "net-x",
            "--wait", "s-x", "-f", "json",
        )  # fmt: skip
        assert (server["status"], server["OS-EXT-SRV-ATTR:host"]) == ("ACTIVE", NODE)
        (port,) = deploy.openstack("port", "list", "--server", "s-x", "-f", "json")
        port = deploy.openstack("port", "show", port["ID"], "-f", "json")
        assert port["binding_host_id"] == NODE
        with _plugged(bridge, port):
            _wait_for(
                "the port ACTIVE", lambda: _port_status(deploy, port["id"]) == "ACTIVE", deploy
            )
            deploy.openstack("server", "delete", "--wait", "s-x")
        deploy.openstack("network", "delete", "net-x")
        _wait_for(f"{namespace} gone", lambda: namespace not in netns.names(), deploy)
        _assert_only_the_helper_stays_root(deploy, mark)
        codes = deploy.stop_all()
        assert codes == dict.fromkeys(codes, 0), deploy.logs()
        assert set(codes) == {"api", "conductor", "scheduler", "compute-x", "network-x"}
    finally:
        deploy.stop_all()
        _namespaces_gone([namespace])


def _agent(conf: Path) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "saphira.cmd.network_agent", "--config-file", str(conf)]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120)


def test_the_network_agent_refuses_a_missing_bridge(tmp_path: Path) -> None:
    missing = f"sxno{secrets.token_hex(3)}"
    conf = tmp_path / "agent.conf"
    conf.write_text(
        f"[DEFAULT]\nstate_path = {tmp_path}\nhost = node-y\n"
        f"[ovs]\nbridge_mappings = physnet1:{missing}\n",
        encoding="utf-8",
    )
    done = _agent(conf)
    assert done.returncode == 1, done.stderr
    assert f"bridge {missing} of physical network physnet1" in done.stderr
    assert "ready" not in done.stdout


def test_the_network_agent_refuses_empty_mappings(tmp_path: Path) -> None:
    conf = tmp_path / "agent.conf"
    conf.write_text(
        f"[DEFAULT]\nstate_path = {tmp_path}\n[ovs]\nbridge_mappings =\n", encoding="utf-8"
    )
    done = _agent(conf)
    assert done.returncode == 1, done.stderr
    assert "[ovs] bridge_mappings is empty" in done.stderr
