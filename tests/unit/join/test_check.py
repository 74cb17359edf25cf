"""--check with a fake host and controller: PASS on a joined node, the pitfall named
on a broken one, and provably read-only (no command but reads, no file touched)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from saphira.clients.fake import FakeTransport
from saphira.join import services as svc
from saphira.join.runner import Done, is_read
from tests.unit.join import fakes
from tests.unit.join.test_join import FLAGS, Node


class ReadsOnly(fakes.FakeHost):
    def run(self, argv: Sequence[str]) -> Done:
        assert is_read(argv), f"--check ran a command that writes: {argv}"
        return super().run(argv)


def controller(transport: FakeTransport, mappings: dict[str, str]) -> None:
    base = "http://10.0.0.2"
    catalog = [
        {"type": kind, "endpoints": [
            {"interface": "public", "region_id": "RegionOne", "url": f"{base}/{kind}"}]}
        for kind in ("compute", "placement", "network")
    ]  # fmt: skip
    transport.reply("POST", "/v3/auth/tokens", 201, json={"token": {"catalog": catalog}},
                    headers={"X-Subject-Token": "tok"})  # fmt: skip
    transport.reply("GET", "/compute/os-services",
                    json={"services": [{"host": "node1", "state": "up"}]})  # fmt: skip
    transport.reply(
        "GET",
        "/compute/os-hypervisors/detail",
        json={
            "hypervisors": [
                {"service": {"host": "node1"}, "hypervisor_hostname": "node1", "state": "up"}
            ]
        },
    )
    transport.reply("GET", "/placement/resource_providers",
                    json={"resource_providers": [{"name": "node1"}]})  # fmt: skip
    transport.reply("GET", "/network/v2.0/agents", json={"agents": [
        {"binary": "saphira-network-agent", "alive": True,
         "configurations": {"bridge_mappings": mappings}}]})  # fmt: skip


def _joined(tmp_path: Path, mappings: dict[str, str] | None = None) -> Node:
    node = Node(tmp_path)
    assert node.join("--non-interactive", *FLAGS)[0] == 0
    node.host = ReadsOnly(bridges=node.host.bridges)
    node.machine.runner = node.host
    controller(node.transport, {"physnet1": "br-physnet1"} if mappings is None else mappings)
    return node


def _check(node: Node) -> tuple[int, str]:
    before = node.files()
    code, out = node.join("--check")
    assert node.files() == before  # nothing written, not even an mtime
    return code, out


def test_a_joined_node_passes_and_nothing_is_written(tmp_path: Path) -> None:
    code, out = _check(_joined(tmp_path))
    assert code == 0, out
    for name in ("configuration", "saphira-compute", "saphira-network-agent",
                 "network agent's command line", "libvirt daemons",
                 "bridge", "sudoers", "virt_type", "controller", "controller sees the host",
                 "live bridge mapping"):  # fmt: skip
        assert f"PASS {name}:" in out, (name, out)
    assert out.endswith("11 passed, 0 failed\n")


@pytest.mark.parametrize(
    ("breaks", "line", "pitfall"),
    [
        ("agent", "FAIL saphira-network-agent: not running", "No address or DHCP"),
        ("nic", "FAIL bridge: br-physnet1 has no ports, not eth1", "PortBindingFailed"),
        ("sudoers", "FAIL sudoers: visudo -c", "FailedToDropPrivileges"),
        ("mapping", "FAIL live bridge mapping", "Empty bridge mappings"),
        ("kvm", "FAIL virt_type: [libvirt] virt_type = kvm", "Emulator does not support"),
        ("libvirt", "FAIL libvirt daemons: virtlogd NOT running", "virtlogd errors"),
        ("conf", "FAIL configuration: does not parse", ""),
        ("flags", "FAIL network agent's command line: it does not read", "never reads"),
    ],
)
def test_a_broken_part_is_named_with_its_pitfall(
    tmp_path: Path, breaks: str, line: str, pitfall: str
) -> None:
    node = _joined(tmp_path, {} if breaks == "mapping" else None)
    conf = tmp_path / "etc/saphira/saphira.conf"
    if breaks == "agent":
        svc.pid_file(tmp_path / "var/lib/saphira", svc.NETWORK_AGENT).unlink()
    elif breaks == "nic":
        node.host.bridges["br-physnet1"].clear()
    elif breaks == "sudoers":
        (tmp_path / "etc/sudoers.d/saphira-compute").write_text("saphira ALL = (root\n")
    elif breaks == "kvm":
        conf.write_text(conf.read_text().replace("virt_type = qemu", "virt_type = kvm"))
    elif breaks == "libvirt":
        node.machine.libvirt_running = lambda: {"virtlogd": False, "libvirtd": True}
    elif breaks == "flags":  # the agent was started without network-agent.conf
        node.supervisor.argv = {pid: argv[:-2] for pid, argv in node.supervisor.argv.items()}
    elif breaks == "conf":
        conf.write_text(conf.read_text().replace("virt_type = qemu", "virt_type = warp"))
    code, out = _check(node)
    assert code == 1 and line in out and pitfall in out, out


def test_check_of_a_host_never_joined_says_so(tmp_path: Path) -> None:
    node = Node(tmp_path)
    code, out = node.join("--check")
    assert code == 1 and "FAIL configuration: missing" in out
    assert list(tmp_path.iterdir()) == []


def test_join_with_a_token_and_a_refused_one(tmp_path: Path) -> None:
    from saphira.domain.join_token import JoinToken, encode

    text = encode(JoinToken(("10.0.0.2:8774",), "tid", "sec"))
    node = Node(tmp_path / "ok")
    node.transport.reply("POST", "/compute-join", json={"join": {
        "controller": "10.0.0.2", "transport_url": "rabbit://o:t@10.0.0.2:5672/",
        "nova_password": "n", "placement_password": "p", "neutron_password": "q",
        "region": "R9"}})  # fmt: skip
    code, out = node.join("--non-interactive", "--token", text, "--provider-nic", "eth1",
                          "--host", "node1", "--wait", "0")  # fmt: skip
    assert code == 0, out
    conf = (tmp_path / "ok/etc/saphira/saphira.conf").read_text()
    assert "transport_url = rabbit://o:t@10.0.0.2:5672/" in conf and "region_name = R9" in conf
    sent = node.transport.sent[-1] if node.transport.sent[-1].method == "POST" else None
    assert json.dumps({"token_id": "tid", "secret": "sec"}) in json.dumps(
        [r.json for r in node.transport.sent if r.method == "POST"]
    ), sent
    refused = Node(tmp_path / "refused")
    refused.transport.reply(
        "POST",
        "/compute-join",
        401,
        json={
            "unauthorized": {
                "code": 401,
                "message": "The join token is invalid, expired or already used.",
            }
        },
    )
    code, out = refused.join("--non-interactive", "--token", text, "--provider-nic", "eth1")
    assert code == 1 and "refused the join token: 401" in out and "already used" in out
    assert not (tmp_path / "refused").exists() or list((tmp_path / "refused").iterdir()) == []
