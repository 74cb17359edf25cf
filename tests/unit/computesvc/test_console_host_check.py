"""The proxy asks the guest's compute host whether a token's port is still its
console's (Nova's validate_console_port), over a real in-process bus."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from oslo_config import cfg

from saphira import conf as saphira_conf
from saphira.clients.placement import PlacementClient
from saphira.compute.manager import ComputeManager
from saphira.computesvc import consoles, lookup
from saphira.consoleproxy.service import HostCheck
from saphira.exception import ConsoleTokenInvalid
from saphira.objects import ConsoleEndpoint, ConsoleType, Instance
from saphira.rpc.rpcapi.compute import ComputeAPI
from saphira.rpc.rpcapi.conductor import ConductorAPI
from saphira.rpc.server import start_server, stop_all
from saphira.rpc.transport import get_rpc_transport
from saphira.virt.fake import FakeDriver
from saphira.virt.types import ImageMeta
from tests.unit.computesvc.conftest import Cloud

BASE = "http://127.0.0.1:6080/vnc_auto.html"
_buses = itertools.count()


@dataclass
class Host:
    conf: cfg.ConfigOpts
    driver: FakeDriver
    instance: Instance


@pytest.fixture
def host(cloud: Cloud) -> Iterator[Host]:
    conf: cfg.ConfigOpts = saphira_conf.load([])
    conf.set_override("transport_url", f"inproc://host-check-{next(_buses)}")
    transport = get_rpc_transport(conf)
    driver = FakeDriver("node1", "node1")
    placement = PlacementClient("http://127.0.0.1:9/placement", lambda: "unused")
    manager = ComputeManager("node1", [driver], ConductorAPI(transport), ComputeAPI(transport),
                             placement)  # fmt: skip
    servers = [start_server(conf, "compute", "node1", [manager], transport=transport)]
    instance = cloud.placed(host="node1")
    driver.spawn(instance, ImageMeta("img"), ())
    try:
        yield Host(conf, driver, instance)
    finally:
        driver.destroy(instance, ())
        stop_all(servers)
        transport.cleanup()


def _token(cloud: Cloud, host: Host, endpoint: ConsoleEndpoint) -> str:
    with cloud.directory.api() as session:
        caller = cloud.caller(session)
        found = lookup.locate(caller, host.instance.uuid)
        return consoles.authorize(caller, found, ConsoleType.NOVNC, endpoint, BASE, 600)


def test_a_port_the_guest_still_has_passes_and_an_old_one_is_refused(
    cloud: Cloud, host: Host
) -> None:
    live = host.driver.get_console(host.instance, ConsoleType.NOVNC)
    check = HostCheck(host.conf, cloud.directory)
    try:
        check(consoles.validate(cloud.directory, _token(cloud, host, live)))
        stale = ConsoleEndpoint(live.host, live.port + 1)  # the guest's port before a restart
        with pytest.raises(ConsoleTokenInvalid):
            check(consoles.validate(cloud.directory, _token(cloud, host, stale)))
    finally:
        check.close()
