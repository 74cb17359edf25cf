"""Typed facts for the layer tests: a healthy server on a flat provider network, which
each test breaks in one place."""

from __future__ import annotations

import dataclasses
from typing import Any

from saphira.verify.facts import Agent, Hypervisor, Network, Port, Rule, Server

HOST = "node1"
MAC = "fa:16:3e:00:00:01"
NETWORK = Network("net-1", "provider", "flat", "physnet1", ("subnet-1",))
SERVER = Server("srv-1", "web", "ACTIVE", HOST, None, 1, None)
PORT = Port("port-1", MAC, NETWORK, ("10.0.0.5",), "ACTIVE", HOST, "ovs", ("sg-1",), True)
HYPERVISOR = Hypervisor(HOST, HOST, "up", "enabled")
L2 = Agent("Open vSwitch agent", HOST, True, True, {"physnet1": "br-physnet1"})
DHCP = Agent("DHCP agent", HOST, True, True, {"physnet1": "br-physnet1"},
             {"net-1": frozenset({MAC})})  # fmt: skip
SSH = Rule("ingress", "IPv4", "tcp", 22, 22, "0.0.0.0/0")


def with_(value: Any, **changes: Any) -> Any:
    return dataclasses.replace(value, **changes)
