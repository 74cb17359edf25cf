"""The bed's two networks: Linux bridges in the root namespace, a veth per node.

Management: bridge ``tb<bed>-m`` holding the controller's address (10.x.0.1,
where the control plane listens), each node's ``eth0`` at 10.x.0.(10+n)
with its default route through the controller. Provider: bridge
``tb<bed>-p`` without an address, each node's ``eth1`` up and unconfigured
(the NIC the join tool puts into the node's provider bridge). Every step
checks first, so a second ``up`` only adds what is missing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from saphira.devtools.testbed.layout import MGMT_NIC, PROVIDER_NIC, Addresses, Layout
from saphira.devtools.testbed.runner import Runner

PREFIX = 24


@dataclass(frozen=True)
class Network:
    layout: Layout
    addresses: Addresses
    runner: Runner

    def _has_link(self, name: str, netns: str | None = None) -> bool:
        where = ["-n", netns] if netns else []
        return self.runner.run(["ip", *where, "link", "show", "dev", name], check=False).code == 0

    def _bridge(self, name: str) -> None:
        if not self._has_link(name):
            self.runner.run(["ip", "link", "add", name, "type", "bridge"])
        self.runner.run(["ip", "link", "set", name, "up"])

    def create(self) -> None:
        self._bridge(self.layout.mgmt_bridge)
        self._bridge(self.layout.provider_bridge)
        self.runner.run(
            ["ip", "addr", "replace", f"{self.addresses.controller}/{PREFIX}",
             "dev", self.layout.mgmt_bridge]
        )  # fmt: skip
        for index, node in enumerate(self.layout.nodes):
            self.plug(node, index)

    def _veth(self, node: str, kind: str, inside: str, bridge: str) -> None:
        outside, netns = self.layout.veth(node, kind), self.layout.netns(node)
        if not self._has_link(inside, netns):
            if self._has_link(outside):  # its peer went with an older namespace
                self.runner.run(["ip", "link", "delete", outside])
            self.runner.run(
                ["ip", "link", "add", outside, "type", "veth", "peer", "name", inside,
                 "netns", netns]
            )  # fmt: skip
        self.runner.run(["ip", "link", "set", outside, "master", bridge, "up"])
        self.runner.run(["ip", "-n", netns, "link", "set", inside, "up"])

    def plug(self, node: str, index: int) -> None:
        netns = self.layout.netns(node)
        self._veth(node, "m", MGMT_NIC, self.layout.mgmt_bridge)
        self._veth(node, "p", PROVIDER_NIC, self.layout.provider_bridge)
        address = f"{self.addresses.node(index)}/{PREFIX}"
        self.runner.run(["ip", "-n", netns, "addr", "replace", address, "dev", MGMT_NIC])
        self.runner.run(
            ["ip", "-n", netns, "route", "replace", "default", "via", self.addresses.controller]
        )

    def links(self) -> list[str]:
        """The bed's links in the root namespace (bridges and veth ends) that exist."""
        wanted = [self.layout.mgmt_bridge, self.layout.provider_bridge]
        wanted += [self.layout.veth(node, kind) for node in self.layout.nodes for kind in "mp"]
        present = {link["ifname"] for link in json.loads(self.runner.run(["ip", "-j", "link"]).out)}
        return [name for name in wanted if name in present]

    def remove(self) -> None:
        for name in self.links():
            self.runner.run(["ip", "link", "delete", name], check=False)
