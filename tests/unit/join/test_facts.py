"""--facts: the planning facts from canned ``ip -j`` output, and provably read-only."""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from saphira.clients.fake import FakeTransport
from saphira.exception import JoinRefused
from saphira.join import facts, probes
from saphira.join.cli import main
from saphira.join.runner import Done, ReadOnly, is_read
from tests.unit.join import fakes


def test_parsers_read_the_commands_json() -> None:
    links = facts.parse_links(json.dumps(fakes.LINKS))
    assert [(link.name, link.kind) for link in links] == [
        ("eth0", ""),
        ("eth1", ""),
        ("veth9", "veth"),
    ]
    assert facts.parse_default_route(json.dumps(fakes.DEFAULT_ROUTE)) == facts.DefaultRoute(
        "eth0", "10.0.0.1"
    )
    assert facts.parse_default_route("[]") is None
    assert facts.parse_first_ipv4(json.dumps(fakes.ADDRS)) == "10.0.0.5"
    assert facts.parse_disks(json.dumps(fakes.LSBLK)) == (facts.Disk("vda", 21474836480, "disk"),)
    memory = facts.parse_meminfo("MemTotal:  2048 kB\nMemAvailable: 1024 kB\nHuge: x\n")
    assert memory == facts.Memory(2048, 1024)


@pytest.mark.parametrize(
    ("argv", "read"),
    [
        (["ip", "-j", "route", "get", "10.0.0.2"], True),
        (["ip", "-j", "-d", "link", "show"], True),
        (["ovs-vsctl", "list-ports", "br-x"], True),
        (["visudo", "-c", "-f", "/tmp/x"], True),
        (["ip", "link", "set", "eth1", "up"], False),
        (["ovs-vsctl", "--may-exist", "add-br", "br-x"], False),
        (["ovs-vsctl", "del-port", "eth1"], False),
        (["systemctl", "start", "x"], False),
        (["visudo", "-f", "/etc/sudoers"], False),
        (["systemctl", "is-active", "--quiet", "saphira-compute"], True),
    ],
)
def test_only_reads_pass_the_read_only_runner(argv: list[str], read: bool) -> None:
    assert is_read(argv) is read
    runner = ReadOnly(fakes.FakeHost())
    if read:
        return
    with pytest.raises(JoinRefused, match="only reads"):
        runner.run(argv)


class Refuses(fakes.FakeHost):
    """A host that fails the test on anything but a read."""

    def run(self, argv: Sequence[str]) -> Done:
        assert is_read(argv), f"--facts ran a command that writes: {argv}"
        return super().run(argv)


def test_facts_screen_reads_only_and_names_the_controller_route(tmp_path: Path) -> None:
    host = Refuses()
    transport = fakes.identity_up(FakeTransport())
    out = io.StringIO()
    machine = fakes.machine(host, transport, fakes.Supervisor())
    code = main(
        ["--facts", "--controller", fakes.CONTROLLER, "--root", str(tmp_path)], machine, out=out
    )
    text = out.getvalue()
    assert code == 0, text
    assert "architecture:   x86_64" in text
    assert "default route:  via 10.0.0.1 dev eth0" in text
    assert "first IPv4:     10.0.0.5" in text
    assert "virt_type:      qemu (using qemu (TCG): /dev/kvm does not exist)" in text
    assert f"route to {fakes.CONTROLLER}: dev eth0 via (direct) src 10.0.0.5" in text
    assert f"GET http://{fakes.CONTROLLER}:5000/v3: 300" in text
    assert host.writes() == [] and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("status", "routed", "provider", "reason"),
    [
        (0, True, "eth1", "answered 000"),
        (500, True, "eth1", "answered 500, not 200 or 300"),
        (300, False, "eth1", "no route to the controller"),
        (200, True, "eth0", "the NIC that would become a port of the provider bridge"),
    ],
)
def test_reach_problems_stop_with_the_reason(
    status: int, routed: bool, provider: str, reason: str
) -> None:
    host = fakes.FakeHost()
    if not routed:
        host.routes.clear()
    transport = FakeTransport()
    if status:
        transport.reply("GET", "/v3", status)
    else:
        transport.refuse_connection("GET", "/v3")
    reach = probes.reach(host, transport, fakes.CONTROLLER, f"http://{fakes.CONTROLLER}:5000/v3")
    problems = reach.problems(provider)
    assert len(problems) == 1 and reason in problems[0], problems
