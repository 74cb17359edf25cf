"""Test-side plumbing for the metadata proxy tests: a DHCP agent with metadata on a
Linux bridge, a recording metadata API, and guests that ask 169.254.169.254.

Guests get static addresses (the DHCP tests already cover leases) and the
route option 121 would give them: 169.254.169.254 via the DHCP port.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import sys
from collections.abc import Iterator
from pathlib import Path

from saphira.network.dhcp import process
from saphira.network.dhcp.agent import DhcpAgent, Wire
from saphira.network.metadata.agent import MetadataAgent
from saphira.network.metadata.proxies import MetadataProxies, ProxySettings, pid_file
from saphira.network.metadata.resolver import InstancePort, mac_of_link_local
from saphira.network.metadata.service import proxy_user
from saphira.network.metadata.upstream import MetadataApi
from saphira.objects.network import DhcpNetwork
from tests.metadata_stub import SECRET, StubApi, stub_metadata_api

from .dhcp_host import Guest, guest, linux_bridge, sh, state_dir

DHCP_PORT_IP = "10.77.0.2"
ASK = """
import http.client, json, sys
connection = http.client.HTTPConnection(sys.argv[1], 80, timeout=20)
connection.request("GET", sys.argv[2], headers=json.loads(sys.argv[3]))
reply = connection.getresponse()
print(json.dumps({"status": reply.status, "body": reply.read().decode()}))
"""


class Ports:
    """The network service's answers: instances by (network, address), or by (network,
    MAC) for a link-local address, as the real look-up matches one."""

    def __init__(self) -> None:
        self.known: dict[tuple[str, str], InstancePort] = {}

    def resolve(self, network_id: str, address: str) -> InstancePort | None:
        return self.known.get((network_id, mac_of_link_local(address) or address))


@dataclasses.dataclass
class Lab:
    root: Path
    bridge: str
    stub: StubApi
    ports: Ports
    proxies: MetadataProxies

    def agent(self) -> DhcpAgent:
        """A new agent object each time: the same as an agent process restarting."""
        return DhcpAgent(
            self.root, lambda _: Wire(self.bridge), interface="linuxbridge", metadata=self.proxies
        )


@contextlib.contextmanager
def metadata_lab() -> Iterator[Lab]:
    uid, gid = proxy_user()
    with state_dir() as root, linux_bridge() as bridge, stub_metadata_api() as stub:
        socket = root / "metadata_proxy"
        ports = Ports()
        api = MetadataApi(stub.host, stub.port, SECRET)
        agent = MetadataAgent(socket, ports, api, workers=64, owner=(uid, gid))
        agent.start()
        try:
            yield Lab(root, bridge, stub, ports, MetadataProxies(ProxySettings(socket, uid, gid)))
        finally:
            agent.stop()


@contextlib.contextmanager
def addressed_guest(bridge: str, mac: str, cidr: str) -> Iterator[Guest]:
    with guest(bridge, mac) as vm:
        sh("ip", "addr", "add", cidr, "dev", "eth0", namespace=vm.namespace)
        route = ["ip", "route", "add", "169.254.169.254/32", "via", DHCP_PORT_IP]
        sh(*route, namespace=vm.namespace)
        yield vm


def ask(
    vm: Guest, path: str, headers: dict[str, str] | None = None, host: str = "169.254.169.254"
) -> tuple[int, str]:
    argv = [sys.executable, "-c", ASK, host, path, json.dumps(headers or {})]
    answer = json.loads(sh(*argv, namespace=vm.namespace))
    return int(answer["status"]), str(answer["body"])


def proxy_pid(root: Path, network: DhcpNetwork) -> int | None:
    return process.running_pid(pid_file(root / "dhcp" / network.network_id))


def uids(pid: int) -> list[int]:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Uid:"):
            return [int(value) for value in line.split()[1:]]
    raise AssertionError(f"no Uid line for {pid}")
