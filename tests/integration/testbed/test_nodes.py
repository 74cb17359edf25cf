"""Each node of a bed is its own host: libvirt, Open vSwitch and networks of its own."""

from __future__ import annotations

import http.server
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from saphira.devtools.testbed import procs
from saphira.devtools.testbed.bed import Bed
from saphira.devtools.testbed.daemons import URI, Daemons
from saphira.devtools.testbed.layout import PROVIDER_NIC, Addresses
from saphira.devtools.testbed.node import Node
from saphira.guest_image import BOOTED, GuestImage
from tests.polling import wait_for

pytestmark = pytest.mark.integration
BOOT_TIMEOUT = 120.0
FETCH = "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=10).status)"
PROVIDER_ADDRESSES = ("198.51.100.1", "198.51.100.2")  # TEST-NET-2, on the bed's own bridge


def _nodes(bed: Bed) -> tuple[Node, Node]:
    one, two = (bed.node(name) for name in bed.layout.nodes)
    return one, two


def _addresses(bed: Bed) -> Addresses:
    assert bed.state is not None
    return Addresses(bed.state.octet)


def test_each_node_has_an_open_vswitch_of_its_own(bed: Bed) -> None:
    one, two = _nodes(bed)
    bridge = f"br-{bed.layout.bed}"
    one.run(["ovs-vsctl", "add-br", bridge, "--", "set", "bridge", bridge, "datapath_type=netdev"])
    assert bridge in one.run(["ovs-vsctl", "list-br"]).split()
    assert bridge not in two.run(["ovs-vsctl", "list-br"]).split()
    host = subprocess.run(["ovs-vsctl", "list-br"], capture_output=True, text=True, check=True)
    assert bridge not in host.stdout.split()
    one.run(["ovs-vsctl", "del-br", bridge])


def test_each_node_has_its_own_host_name_and_sudoers_directory(bed: Bed) -> None:
    one, two = _nodes(bed)
    assert (one.run(["hostname"]).strip(), two.run(["hostname"]).strip()) == ("node1", "node2")
    rule = f"/etc/sudoers.d/saphira-testbed-{bed.layout.bed}"
    one.run(["sh", "-c", f"echo '# node1 only' > {rule}"])
    assert one.run(["cat", rule]).strip() == "# node1 only"
    assert not Path(rule).exists()
    assert two.runner.run(two.enter(["cat", rule]), check=False).code != 0


def test_a_namespace_made_inside_a_node_is_that_nodes_alone(bed: Bed) -> None:
    """As the DHCP agent's ``qdhcp-<network>`` namespaces will be (under the node's /run)."""
    one, two = _nodes(bed)
    name = f"qdhcp-{bed.layout.bed}"
    one.run(["ip", "netns", "add", name])
    try:
        assert "lo" in one.run(["ip", "netns", "exec", name, "ip", "-o", "link"])
        assert name not in two.run(["ip", "netns", "list"])
        assert not Path("/run/netns", name).exists()
    finally:
        one.run(["ip", "netns", "delete", name], check=False)


def _domain_xml(name: str, directory: Path, image: GuestImage) -> Path:
    directory.mkdir(exist_ok=True)
    for source in (image.vmlinux, image.initramfs):
        shutil.copy(source, directory / source.name)
    xml = directory / "domain.xml"
    xml.write_text(
        f"""<domain type='qemu'><name>{name}</name><memory unit='MiB'>128</memory><vcpu>1</vcpu>
  <os><type arch='x86_64'>hvm</type><kernel>{directory / image.vmlinux.name}</kernel>
    <initrd>{directory / image.initramfs.name}</initrd><cmdline>{image.cmdline}</cmdline></os>
  <devices><serial type='file'><source path='{directory / "console.log"}'/></serial></devices>
</domain>""",
        encoding="utf-8",
    )
    return xml


def test_a_tcg_guest_starts_in_a_node_and_only_that_node_sees_it(
    bed: Bed, tiny_image: GuestImage
) -> None:
    one, two = _nodes(bed)
    name = f"tb-{bed.layout.bed}-guest"
    xml = _domain_xml(name, one.directory / "guest", tiny_image)
    one.run(["virsh", "-c", URI, "create", str(xml)])
    try:
        assert Daemons(one).domains() == [name]
        assert Daemons(two).domains() == []
        host = subprocess.run(["virsh", "-c", URI, "list", "--all", "--name"],
                              capture_output=True, text=True, check=True)  # fmt: skip
        assert name not in host.stdout.split()
        console = one.directory / "guest" / "console.log"
        wait_for(
            "the guest's boot marker",
            lambda: console.exists() and BOOTED in console.read_text(errors="replace"),
            timeout=BOOT_TIMEOUT,
        )
    finally:
        one.run(["virsh", "-c", URI, "destroy", name], check=False)


class _Identity(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b'{"version": {"id": "v3.14", "status": "stable"}}'
        self.send_response(200 if self.path == "/v3" else 404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def identity_stand_in(bed: Bed) -> Iterator[str]:
    """A listener on the controller's management address answering ``GET /v3``."""
    server = http.server.ThreadingHTTPServer((_addresses(bed).controller, 0), _Identity)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://{_addresses(bed).controller}:{server.server_address[1]}/v3"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_the_management_network_reaches_the_controller(bed: Bed, identity_stand_in: str) -> None:
    for node in _nodes(bed):
        node.run(["ping", "-c", "1", "-W", "5", _addresses(bed).controller])
        assert node.run([sys.executable, "-c", FETCH, identity_stand_in]).strip() == "200"


def test_the_provider_network_connects_node1_to_node2(bed: Bed) -> None:
    one, two = _nodes(bed)
    for node, address in zip((one, two), PROVIDER_ADDRESSES, strict=True):
        node.run(["ip", "addr", "add", f"{address}/24", "dev", PROVIDER_NIC])
    try:
        one.run(["ping", "-c", "1", "-W", "5", PROVIDER_ADDRESSES[1]])
        two.run(["ping", "-c", "1", "-W", "5", PROVIDER_ADDRESSES[0]])
    finally:
        for node, address in zip((one, two), PROVIDER_ADDRESSES, strict=True):
            node.run(["ip", "addr", "del", f"{address}/24", "dev", PROVIDER_NIC], check=False)


def test_a_second_up_keeps_what_runs_and_makes_what_is_missing(bed: Bed) -> None:
    assert bed.state is not None
    before = {s.label: s.pid for s in bed.state.started}
    assert len(before) == 8  # virtlogd, libvirtd, ovsdb-server, ovs-vswitchd on each node
    _, two = _nodes(bed)
    bed.runner.run(["ip", "link", "delete", bed.layout.veth("node2", "p")])  # takes eth1 along
    assert bed.runner.run(two.enter(["ip", "link", "show", PROVIDER_NIC]), check=False).code != 0
    assert procs.end([before["node2/libvirtd"]]) == []
    bed.up()
    after = {s.label: s.pid for s in bed.state.started}
    assert after["node2/libvirtd"] != before["node2/libvirtd"]
    assert {k: v for k, v in after.items() if k != "node2/libvirtd"} == {
        k: v for k, v in before.items() if k != "node2/libvirtd"
    }
    two.run(["ip", "link", "show", PROVIDER_NIC])
    assert Daemons(two).domains() == []  # node2's new libvirtd answers
    two.run(["virsh", "-c", URI, "version"])


def test_status_says_what_runs_where(bed: Bed) -> None:
    shown = subprocess.run(
        [sys.executable, "-m", "saphira.devtools.testbed", "status", "--name", bed.layout.bed],
        capture_output=True, text=True, check=True, timeout=60,
    ).stdout  # fmt: skip
    assert f"controller {_addresses(bed).controller}" in shown
    for name in bed.layout.nodes:
        assert f"netns {bed.layout.netns(name)}" in shown
        assert f"{name}: up" in shown
        for daemon in ("libvirtd", "ovs-vswitchd"):
            assert f"{name}/{daemon}: pid" in shown
    assert "NOT running" not in shown
    listed = subprocess.run(
        [sys.executable, "-m", "saphira.devtools.testbed", "list"],
        capture_output=True, text=True, check=True, timeout=60,
    ).stdout  # fmt: skip
    assert bed.layout.bed in listed.split()
