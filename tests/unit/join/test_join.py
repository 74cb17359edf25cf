"""The join into a temporary root, driven whole through main() with a fake host."""

from __future__ import annotations

import configparser
import io
from pathlib import Path

import pytest

from saphira.clients.fake import FakeTransport
from saphira.join.cli import main
from saphira.virt.kvm_probe import ProbeResult
from tests.unit.join import fakes

FLAGS = [
    "--controller",
    fakes.CONTROLLER,
    "--provider-nic",
    "eth1",
    "--nova-password",
    "npw",
    "--placement-password",
    "ppw",
    "--neutron-password",
    "qpw",
    "--host",
    "node1",
    "--transport-url",
    "rabbit://openstack:rpw@10.0.0.2:5672/",
    "--wait",
    "0",
]


class Node:
    def __init__(self, root: Path, kvm_works: bool = False) -> None:
        self.root = root
        self.host = fakes.FakeHost()
        self.transport = fakes.identity_up(FakeTransport())
        self.supervisor = fakes.Supervisor()
        self.machine = fakes.machine(self.host, self.transport, self.supervisor, kvm_works)

    def join(self, *extra: str, stdin: str = "") -> tuple[int, str]:
        out = io.StringIO()
        argv = ["--root", str(self.root), *extra]
        code = main(argv, self.machine, io.StringIO(stdin), out)
        return code, out.getvalue()

    def files(self) -> dict[str, tuple[bytes, int]]:
        return {
            str(p.relative_to(self.root)): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(self.root.rglob("*"))
            if p.is_file()
        }


def _conf(path: Path) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(path)
    return parser


def test_join_writes_the_node_and_starts_it(tmp_path: Path) -> None:
    node = Node(tmp_path)
    code, out = node.join("--non-interactive", *FLAGS)
    assert code == 0, out
    conf = _conf(tmp_path / "etc/saphira/saphira.conf")
    assert conf["DEFAULT"]["my_ip"] == "10.0.0.5"
    assert conf["DEFAULT"]["transport_url"] == "rabbit://openstack:rpw@10.0.0.2:5672/"
    assert conf["DEFAULT"]["state_path"] == str(tmp_path / "var/lib/saphira")
    assert conf["keystone_authtoken"]["password"] == "npw"
    assert conf["placement"]["username"] == "placement"
    assert conf["neutron"]["password"] == "qpw"
    assert conf["neutron"]["endpoint_override"] == "http://10.0.0.2:9696"
    assert conf["placement"]["endpoint_override"] == "http://10.0.0.2:8778"
    assert conf["glance"]["api_servers"] == "http://10.0.0.2:9292"
    assert conf["oslo_concurrency"]["lock_path"] == str(tmp_path / "var/lib/saphira/tmp")
    assert conf["vnc"]["novncproxy_base_url"] == "http://10.0.0.2:6080/vnc_auto.html"
    assert conf["libvirt"]["virt_type"] == "qemu"
    agent = _conf(tmp_path / "etc/saphira/network-agent.conf")
    assert agent["ovs"]["bridge_mappings"] == "physnet1:br-physnet1"
    services = (tmp_path / "etc/saphira/services.json").read_text()
    assert "--config-file" in services and "network-agent.conf" in services
    assert (tmp_path / "etc/sudoers.d/saphira-compute").stat().st_mode & 0o777 == 0o440
    assert node.host.bridges == {"br-physnet1": ["eth1"]}
    assert node.supervisor.started == [
        (tmp_path / "var/lib/saphira", tmp_path / "etc/saphira/services.json")
    ]
    assert "saphira-compute (compute agent): active" in out
    assert "saphira-network-agent (L2 + DHCP agents): active" in out
    assert "the final proof comes from the controller" in out
    assert "saphira-manage cell_v2 discover_hosts --verbose" in out


def test_kvm_only_when_the_probe_proved_it(tmp_path: Path) -> None:
    code, out = Node(tmp_path, kvm_works=True).join("--non-interactive", *FLAGS)
    assert code == 0, out
    assert _conf(tmp_path / "etc/saphira/saphira.conf")["libvirt"]["virt_type"] == "kvm"


def test_a_second_join_changes_nothing(tmp_path: Path) -> None:
    node = Node(tmp_path)
    assert node.join("--non-interactive", *FLAGS)[0] == 0
    before, ran = node.files(), len(node.host.ran)
    code, out = node.join("--non-interactive", *FLAGS)
    assert code == 0, out
    assert node.files() == before  # bytes and mtimes
    second = [a for a in node.host.writes()[0:] if a in node.host.ran[ran:]]
    assert not [a for a in second if a[0] == "ovs-vsctl"], second
    assert "already holds eth1" in out and "supervisor: already running" in out
    assert "written" not in out.replace("would write", "")


def test_a_join_after_a_failure_finishes_the_job(tmp_path: Path) -> None:
    node = Node(tmp_path)
    node.machine.libvirt = _failing_libvirt
    code, out = node.join("--non-interactive", *FLAGS)
    assert code == 1 and "libvirt: no libvirt daemon" in out
    assert node.host.bridges == {} and node.supervisor.started == []
    node.machine.libvirt = lambda: ["started"]
    code, out = node.join("--non-interactive", *FLAGS)
    assert code == 0, out
    assert node.host.bridges == {"br-physnet1": ["eth1"]} and node.supervisor.running


def _failing_libvirt() -> list[str]:
    from saphira.exception import JoinRefused

    raise JoinRefused(reason="libvirt: no libvirt daemon is installed")


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ("dead controller", "answered 000"),
        ("no route", "no route to the controller"),
        ("default-route NIC", "carries this host's default route"),
        ("missing NIC", "the provider NIC eth7 does not exist"),
        ("NIC of another bridge", "eth1 is already a port of the bridge br-other"),
    ],
)
def test_refusals_come_before_anything_is_written(tmp_path: Path, change: str, reason: str) -> None:
    node = Node(tmp_path)
    flags = list(FLAGS)
    if change == "dead controller":
        node.transport = FakeTransport()
        node.transport.refuse_connection("GET", "/v3")
        node.machine.transport = node.transport
    elif change == "no route":
        node.host.routes.clear()
    elif change == "NIC of another bridge":
        node.host.bridges["br-other"] = ["eth1"]
    else:
        flags[flags.index("eth1")] = "eth0" if change == "default-route NIC" else "eth7"
    code, out = node.join("--non-interactive", *flags)
    assert code == 1 and reason in out and "(nothing was written)" in out, out
    assert list(tmp_path.iterdir()) == []
    assert node.host.writes() == [] and node.supervisor.started == []
    assert set(node.host.bridges) <= {"br-other"}


def test_the_default_route_nic_joins_only_when_allowed(tmp_path: Path) -> None:
    node = Node(tmp_path)
    node.host.routes[fakes.CONTROLLER]["dev"] = "eth1"  # management over eth1, eth0 provider
    flags = list(FLAGS)
    flags[flags.index("eth1")] = "eth0"
    code, out = node.join("--non-interactive", "--allow-default-route-nic", *flags)
    assert code == 0, out
    assert node.host.bridges == {"br-physnet1": ["eth0"]}


def test_force_shows_the_diff_before_it_replaces(tmp_path: Path) -> None:
    node = Node(tmp_path)
    assert node.join("--non-interactive", *FLAGS)[0] == 0
    conf = tmp_path / "etc/saphira/saphira.conf"
    old = conf.read_text()
    code, out = node.join("--non-interactive", *FLAGS, "--region", "RegionTwo")
    assert code == 0 and conf.read_text() == old
    assert "saphira.conf: kept: differs" in out
    code, out = node.join("--non-interactive", *FLAGS, "--region", "RegionTwo", "--force")
    assert code == 0, out
    assert "--force replaces" in out and "+region_name = RegionTwo" in out
    assert "npw" not in out  # the diff masks passwords
    assert "region_name = RegionTwo" in conf.read_text()
    assert out.index("+region_name = RegionTwo") < out.index("saphira.conf: replaced")


def test_interactive_join_reads_its_answers_from_stdin(tmp_path: Path) -> None:
    node = Node(tmp_path)
    stdin = "".join(
        f"{line}\n"
        for line in [
            fakes.CONTROLLER,
            "eth1",
            "",
            "",
            "",
            "",
            "",
            "npw",
            "ppw",
            "qpw",
            "",
            "",
            "",
            "",
            "",
            "node9",
            "",
        ]
    )
    code, out = node.join("--wait", "0", stdin=stdin)
    assert code == 0, out
    assert "Controller address: " in out and "Physical network name [physnet1]: " in out
    # the first physical link that is up and not the default route's is offered
    assert "Provider network interface (becomes a port of the bridge) [eth1]: " in out
    conf = _conf(tmp_path / "etc/saphira/saphira.conf")
    assert conf["DEFAULT"]["host"] == "node9"
    assert conf["DEFAULT"]["transport_url"] == "rabbit://openstack:RABBIT_PASS@10.0.0.2:5672/"


def test_the_kvm_probe_boots_the_guest_named_by_probe_guest(tmp_path: Path) -> None:
    node = Node(tmp_path / "root")
    asked: list[Path] = []

    def kvm(guest: Path) -> ProbeResult:
        asked.append(guest)
        return ProbeResult(True, "a probe guest booted under KVM")

    node.machine.kvm = kvm
    code, out = node.join("--non-interactive", *FLAGS, "--probe-guest", str(tmp_path / "img"))
    assert code == 0, out
    assert asked == [tmp_path / "img"]
    record = _conf(tmp_path / "root/etc/saphira/join.conf")
    assert record["node"]["probe_guest"] == str(tmp_path / "img")
    node.transport.refuse_connection("POST", "/v3/auth/tokens")  # no controller view here
    node.join("--check")
    assert asked == [tmp_path / "img"] * 2  # --check asks the same guest again
    other = Node(tmp_path / "other")
    other.machine.kvm = lambda _guest: ProbeResult(
        False, "/dev/kvm exists but no probe guest is available to prove it"
    )
    code, out = other.join("--facts")
    assert "to prove KVM:   python -m saphira.guest_image DIR, then --probe-guest DIR" in out


def test_an_answers_file_joins_without_prompts_and_flags_win(tmp_path: Path) -> None:
    answers = tmp_path / "answers.conf"
    answers.write_text(
        "[join]\ncontroller = 10.0.0.2\nprovider_nic = eth1\nnova_password = n\n"
        "placement_password = p\nneutron_password = q\nhost = from-file\nregion = R7\n"
    )
    node = Node(tmp_path / "root")
    code, out = node.join("--non-interactive", "--answers", str(answers), "--host", "flag",
                          "--wait", "0")  # fmt: skip
    assert code == 0, out
    conf = _conf(tmp_path / "root/etc/saphira/saphira.conf")
    assert conf["DEFAULT"]["host"] == "flag" and conf["DEFAULT"]["region_name"] == "R7"
    before = node.files()
    code, out = node.join("--non-interactive", "--answers", str(answers), "--host", "flag",
                          "--wait", "0")  # fmt: skip
    assert code == 0 and node.files() == before, out


def test_with_a_metadata_secret_the_agent_asks_the_controllers_metadata_api(
    tmp_path: Path,
) -> None:
    """Not its own 127.0.0.1 (the default), where no metadata API runs on a node."""
    node = Node(tmp_path)
    code, out = node.join("--non-interactive", *FLAGS, "--metadata-secret", "s3")
    assert code == 0, out
    conf = _conf(tmp_path / "etc/saphira/saphira.conf")
    assert conf["neutron"]["metadata_proxy_shared_secret"] == "s3"
    assert conf["metadata_agent"]["nova_metadata_host"] == "10.0.0.2"
