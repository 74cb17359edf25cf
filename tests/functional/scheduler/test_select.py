"""select_destinations against a real placement API and a SQLite cell."""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from saphira import exception
from saphira.context import RequestContext
from saphira.objects.flavor import Flavor
from saphira.objects.request_spec import RequestSpec
from saphira.rpc.rpcapi.scheduler import SchedulerAPI
from saphira.rpc.server import start_server
from saphira.rpc.transport import get_rpc_transport
from tests.functional.scheduler.conftest import Cloud


def spec(vcpus: int = 1, memory_mb: int = 1024, **kw: Any) -> RequestSpec:
    flavor = Flavor(flavorid="f", name="f", vcpus=vcpus, memory_mb=memory_mb, root_gb=1)
    return RequestSpec(
        instance_uuid=str(uuid.uuid4()), project_id="p", user_id="u", flavor=flavor, **kw
    )


def ids(count: int) -> list[str]:
    return [str(uuid.uuid4()) for _ in range(count)]


def test_spread_picks_the_emptiest_host_claims_it_and_offers_alternates(cloud: Cloud) -> None:
    small = cloud.add_host("small", memory_mb=2048)
    big = cloud.add_host("big", memory_mb=16384)
    cloud.add_host("mid", memory_mb=8192)
    [instance] = ids(1)
    [chosen] = cloud.scheduler().select_destinations(RequestContext(), spec(), [instance])
    assert [s.host for s in chosen] == ["big", "mid", "small"]
    assert chosen[0].compute_node_uuid == big and chosen[0].cell_uuid == cloud.cell.uuid
    assert chosen[0].allocation_request == {big: {"VCPU": 1, "MEMORY_MB": 1024, "DISK_GB": 1}}
    assert cloud.placement.usages(big)["MEMORY_MB"] == 1024
    assert not any(cloud.placement.usages(small).values())


def test_negative_multiplier_packs(cloud: Cloud) -> None:
    cloud.add_host("small", memory_mb=2048)
    cloud.add_host("big", memory_mb=16384)
    cloud.conf.set_override("ram_weight_multiplier", -1.0, group="filter_scheduler")
    cloud.conf.set_override("max_attempts", 1, group="scheduler")
    [chosen] = cloud.scheduler().select_destinations(RequestContext(), spec(), ids(1))
    assert [s.host for s in chosen] == ["small"]


def test_anti_affinity_spreads_a_batch_and_refuses_a_third(cloud: Cloud) -> None:
    cloud.add_host("a")
    cloud.add_host("b")
    scheduler = cloud.scheduler()
    group: dict[str, Any] = {"instance_group_policy": "anti-affinity"}
    chosen = scheduler.select_destinations(RequestContext(), spec(**group), ids(2))
    hosts = sorted(selections[0].host for selections in chosen)
    assert hosts == ["a", "b"]
    with pytest.raises(exception.NoValidHost) as caught:
        scheduler.select_destinations(
            RequestContext(), spec(instance_group_hosts=hosts, **group), ids(1)
        )
    assert caught.value.message.count("ServerGroupAntiAffinityFilter") == 2


def test_availability_zone(cloud: Cloud) -> None:
    cloud.add_host("a")
    scheduler = cloud.scheduler()
    [chosen] = scheduler.select_destinations(
        RequestContext(), spec(availability_zone="nova"), ids(1)
    )
    assert chosen[0].availability_zone == "nova"
    with pytest.raises(exception.NoValidHost, match=r"a: AvailabilityZoneFilter: .*'elsewhere'"):
        scheduler.select_destinations(RequestContext(), spec(availability_zone="elsewhere"), ids(1))


def test_no_valid_host_names_every_host_and_its_reason(cloud: Cloud) -> None:
    cloud.add_host("disabled", disabled=True)
    cloud.add_host("down", down=True)
    cloud.add_host("unmapped", mapped=False)
    cloud.add_host("tiny", memory_mb=512)
    batch = ids(1)
    with pytest.raises(exception.NoValidHost) as caught:
        cloud.scheduler().select_destinations(RequestContext(), spec(), batch)
    message = caught.value.message
    assert message.startswith("No valid host was found. 4 compute node(s), none fits: ")
    assert "disabled: ComputeFilter: compute service disabled (maintenance)" in message
    assert "down: ComputeFilter: compute service down (last heartbeat " in message
    assert "unmapped: not mapped to a cell (run saphira-manage cell_v2 discover_hosts)" in message
    assert "tiny: placement: MEMORY_MB 1024 requested, 512 free of 512" in message
    assert cloud.placement.delete_allocations(batch[0]) is False  # nothing left claimed


def test_a_batch_that_does_not_fit_releases_its_claims(cloud: Cloud) -> None:
    node = cloud.add_host("one", vcpus=2)
    batch = ids(3)
    with pytest.raises(exception.NoValidHost, match="one: placement: room taken by earlier"):
        cloud.scheduler().select_destinations(RequestContext(), spec(), batch)
    assert not any(cloud.placement.usages(node).values())


def test_concurrent_requests_never_oversubscribe(cloud: Cloud) -> None:
    nodes = [cloud.add_host(name, vcpus=3) for name in ("a", "b")]
    scheduler = cloud.scheduler()

    def one(_: int) -> str:
        try:
            [chosen] = scheduler.select_destinations(RequestContext(), spec(), ids(1))
        except exception.NoValidHost:
            return "none"
        return chosen[0].host

    with ThreadPoolExecutor(8) as pool:
        outcomes = list(pool.map(one, range(12)))
    assert sorted(o for o in outcomes if o != "none") == ["a"] * 3 + ["b"] * 3
    assert [cloud.placement.usages(node)["VCPU"] for node in nodes] == [3, 3]


def test_over_the_bus_no_valid_host_arrives_as_itself(cloud: Cloud) -> None:
    cloud.add_host("disabled", disabled=True)
    transport = get_rpc_transport(cloud.conf)
    scheduler = cloud.scheduler()
    server = start_server(cloud.conf, "scheduler", "sched1", [scheduler], transport=transport)
    try:
        api = SchedulerAPI(transport, timeout=30)
        with pytest.raises(exception.NoValidHost) as caught:
            api.select_destinations(RequestContext(), spec(), ids(1))
        assert "disabled: ComputeFilter" in caught.value.message
        cloud.add_host("ok")
        [chosen] = api.select_destinations(RequestContext(), spec(), ids(1))
        assert chosen[0].host == "ok"
    finally:
        server.stop()
        server.wait()
        scheduler.close()
        transport.cleanup()


def test_periodic_discovery_maps_a_new_host_which_then_schedules(cloud: Cloud) -> None:
    from saphira.scheduler.service import HostDiscovery

    cloud.add_host("late", mapped=False)
    scheduler = cloud.scheduler()
    with pytest.raises(exception.NoValidHost, match="late: not mapped to a cell"):
        scheduler.select_destinations(RequestContext(), spec(), ids(1))
    assert HostDiscovery(cloud.conf, 60, None).run_once() == 1
    [chosen] = scheduler.select_destinations(RequestContext(), spec(), ids(1))
    assert chosen[0].host == "late"
