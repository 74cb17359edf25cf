"""The names and addresses of one bed, all derived from its name.

Every namespace, link, mount and directory a bed makes is named here, so
``down`` finds them again even when ``up`` failed half-way, and two beds
(the suite's and a developer's) never share one. Link names stay within
Linux's 15 characters: a bed's name is at most 6.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from saphira.devtools.testbed.errors import TestbedError

NAME = re.compile(r"^[a-z][a-z0-9]{0,5}$")
RUN_DIR = Path("/run/saphira-testbed")
DATA_DIR = Path("/var/lib/saphira-testbed")
MGMT_NIC = "eth0"  # inside a node: the management NIC (its default route)
PROVIDER_NIC = "eth1"  # inside a node: the provider NIC, left unconfigured
CONTROLLER_HOST = 1
FIRST_NODE_HOST = 11


def check_name(bed: str) -> str:
    if not NAME.match(bed):
        raise TestbedError(
            detail=f"bed name {bed!r}: 1 to 6 lower-case letters or digits, a letter first"
        )
    return bed


@dataclass(frozen=True)
class Layout:
    bed: str
    nodes: tuple[str, ...] = ("node1", "node2")
    run_dir: Path = RUN_DIR
    data_dir: Path = DATA_DIR

    @property
    def state_file(self) -> Path:
        return self.run_dir / f"{self.bed}.json"

    @property
    def ns_dir(self) -> Path:
        """Where the nodes' mount namespaces are pinned (a private bind mount, as ip netns's)."""
        return self.run_dir / "ns"

    @property
    def bed_dir(self) -> Path:
        return self.data_dir / self.bed

    @property
    def mgmt_bridge(self) -> str:
        return f"tb{self.bed}-m"

    @property
    def provider_bridge(self) -> str:
        return f"tb{self.bed}-p"

    def netns(self, node: str) -> str:
        return f"stb-{self.bed}-{node}"

    def mount_ns(self, node: str) -> Path:
        return self.ns_dir / f"{self.bed}-{node}"

    def uts_ns(self, node: str) -> Path:
        """The node's UTS namespace: its host name is the node's name."""
        return self.ns_dir / f"{self.bed}-{node}.uts"

    def node_dir(self, node: str) -> Path:
        return self.bed_dir / node

    def veth(self, node: str, network: str) -> str:
        """The root namespace's end of a node's veth ("m" management, "p" provider)."""
        return f"tb{self.bed}-{self.nodes.index(node) + 1}{network}"


@dataclass(frozen=True)
class Addresses:
    """The management network 10.<octet>.0.0/24: the controller .1, node n .10+n."""

    octet: int

    @property
    def cidr(self) -> str:
        return f"10.{self.octet}.0.0/24"

    @property
    def controller(self) -> str:
        return f"10.{self.octet}.0.{CONTROLLER_HOST}"

    def node(self, index: int) -> str:
        return f"10.{self.octet}.0.{FIRST_NODE_HOST + index}"
