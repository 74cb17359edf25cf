"""A compute agent whose hypervisor stops answering stops reporting itself up."""

from __future__ import annotations

import dataclasses
import uuid
from typing import Any

from oslo_config import cfg

from saphira import conf as saphira_conf
from saphira.clients.placement import PlacementClient
from saphira.compute.service import ComputeService
from saphira.context import RequestContext
from saphira.exception import MessagingTimeout
from saphira.objects import ComputeNode
from saphira.objects.service import Service
from saphira.rpc.rpcapi.conductor import ConductorAPI
from saphira.rpc.transport import get_rpc_transport
from saphira.virt.fake import FakeDriver


class _Conductor(ConductorAPI):
    """The conductor's RPC API, recording beats instead of sending them."""

    def __init__(self, transport: Any) -> None:
        super().__init__(transport)
        self.beats: list[tuple[str, str]] = []

    def service_heartbeat(
        self, ctxt: RequestContext, host: str, binary: str, topic: str | None = None
    ) -> Service:
        self.beats.append((host, binary))
        return Service(str(uuid.uuid4()), host, binary, topic)


class _Nodes(_Conductor):
    """Records the compute nodes the agent reports."""

    def __init__(self, transport: Any) -> None:
        super().__init__(transport)
        self.nodes: list[str] = []

    def compute_node_update(self, ctxt: RequestContext, node: ComputeNode) -> ComputeNode:
        self.nodes.append(node.host)
        return dataclasses.replace(node, uuid=str(uuid.uuid4()))


class _Moody(FakeDriver):
    """A fake hypervisor whose daemon can be "killed" and "restarted"."""

    alive = True

    def healthy(self) -> bool:
        return self.alive


def test_heartbeats_pause_while_the_hypervisor_is_unreachable() -> None:
    conf: cfg.ConfigOpts = saphira_conf.load([])
    driver = _Moody("h1", "h1")
    transport = get_rpc_transport(conf, "inproc://heartbeat-test")
    unused = PlacementClient("http://127.0.0.1:9/placement", lambda: "no-token")  # never called
    service = ComputeService(conf, "h1", [driver], transport, placement=unused)
    conductor = _Conductor(transport)
    service.conductor = conductor

    service.heartbeat()
    driver.alive = False
    service.heartbeat()
    service.heartbeat()
    driver.alive = True
    service.heartbeat()

    assert conductor.beats == [("h1", "nova-compute"), ("h1", "nova-compute")]


class _Late(_Conductor):
    """A conductor that answers only from its third call on (it was starting)."""

    def __init__(self, transport: Any) -> None:
        super().__init__(transport)
        self.missed: list[str] = []

    def service_heartbeat(
        self, ctxt: RequestContext, host: str, binary: str, topic: str | None = None
    ) -> Service:
        if len(self.missed) < 2:
            self.missed.append(host)
            raise MessagingTimeout(method="service_heartbeat", topic="conductor", timeout=1)
        return super().service_heartbeat(ctxt, host, binary, topic)


def test_an_agent_started_before_its_conductor_waits_for_it() -> None:
    conf: cfg.ConfigOpts = saphira_conf.load([])
    transport = get_rpc_transport(conf, "inproc://first-heartbeat-test")
    unused = PlacementClient("http://127.0.0.1:9/placement", lambda: "no-token")
    service = ComputeService(conf, "h1", [FakeDriver("h1", "h1")], transport, placement=unused)
    conductor = _Late(transport)
    service.conductor = conductor

    assert service.first_heartbeat() == 2
    assert conductor.beats == [("h1", "nova-compute")]


def test_an_agent_whose_placement_is_unreachable_starts_and_reports_later() -> None:
    conf: cfg.ConfigOpts = saphira_conf.load([])
    transport = get_rpc_transport(conf, "inproc://first-inventory-test")
    nobody = PlacementClient("http://127.0.0.1:9/placement", lambda: "token")  # refused
    service = ComputeService(conf, "h1", [FakeDriver("h1", "h1")], transport, placement=nobody)
    service.conductor = _Nodes(transport)

    assert service.first_inventory() is False
    assert service.conductor.nodes == ["h1"]  # the node is known; its inventory comes later
