"""What the admin pages make of the APIs' answers: a hypervisor's usage from its own
body before 2.88 and from its placement provider after, an agent's bridge mappings,
a service row, and a page's per-row calls made in parallel."""

from __future__ import annotations

import threading
import warnings
from typing import Any

from openstack.compute.v2.hypervisor import Hypervisor
from openstack.compute.v2.service import Service
from openstack.network.v2.agent import Agent
from openstack.warnings import RemovedFieldWarning

from saphira.dashboard import cloud_admin, cloud_hosts
from saphira.dashboard.cloud_hosts import ProviderUsage, Usage
from saphira.dashboard.parallel import Calls

INVENTORIES = {
    "VCPU": {"total": 8, "reserved": 0, "allocation_ratio": 4.0},
    "MEMORY_MB": {"total": 4096, "reserved": 512, "allocation_ratio": 1.0},
    "DISK_GB": {"total": 100, "reserved": 0, "allocation_ratio": 1.0},
    "CUSTOM_THING": {"total": 1, "reserved": 0, "allocation_ratio": 1.0},
}


def test_placement_usage_is_used_of_what_may_be_allocated() -> None:
    vcpu, ram, disk = cloud_hosts.usages(INVENTORIES, {"VCPU": 3, "MEMORY_MB": 1792})
    assert vcpu == Usage("VCPU", "vCPUs", 3, 32, 8, 4.0, "")  # 8 times the ratio 4
    assert (ram.used, ram.capacity, ram.percent) == (1792, 3584, 50)  # reserved left out
    assert (disk.used, disk.capacity, disk.percent) == (0, 100, 0)  # no usage: none used


def test_a_percent_stays_between_0_and_100() -> None:
    assert Usage("VCPU", "vCPUs", 40, 32, 8, 4.0, "").percent == 100  # over-committed
    assert Usage("VCPU", "vCPUs", 0, 0, 0, 1.0, "").percent == 0
    assert Usage("VCPU", "vCPUs", 1, 0, 0, 1.0, "").percent == 100


def _after_288(hid: str, name: str) -> Hypervisor:
    """A hypervisor as 2.88 gives it: no usage figures."""
    return Hypervisor(id=hid, name=name, state="up", status="enabled", host_ip="192.0.2.5",
                      hypervisor_type="fake")  # fmt: skip


def test_after_2_88_the_usage_comes_from_the_provider_of_the_same_id() -> None:
    found = [_after_288("uuid-b", "node-b"), _after_288("uuid-a", "node-a")]
    figures = cloud_hosts.usages(INVENTORIES, {"VCPU": 1})
    placed = [
        ProviderUsage("uuid-a", "node-a", figures, 2),
        ProviderUsage("other", "node-b", figures[:1], 5),  # matched by its name instead
    ]
    assert cloud_hosts.needs_placement(found)
    a, b = cloud_hosts.rows(found, placed)
    assert (a.name, a.up, a.host_ip, a.running_vms, a.source) == ("node-a", True, "192.0.2.5",
                                                                   2, "placement")  # fmt: skip
    assert a.usages == figures and b.usages == figures[:1] and b.running_vms == 5


def test_the_summary_adds_every_host_up_resource_by_resource() -> None:
    one = cloud_hosts.usages(INVENTORIES, {"VCPU": 3, "DISK_GB": 10})
    two = cloud_hosts.usages({"VCPU": INVENTORIES["VCPU"]}, {"VCPU": 5})
    found = [_after_288("a", "a"), _after_288("b", "b"), _after_288("c", "c")]
    placed = [ProviderUsage("a", "a", one, 1), ProviderUsage("b", "b", two, 1)]
    vcpu, ram, disk = cloud_hosts.summary(cloud_hosts.rows(found, placed))  # c: no figures
    assert (vcpu.used, vcpu.capacity, vcpu.total) == (8, 64, 16)
    assert (ram.used, ram.capacity) == (0, 3584) and (disk.used, disk.capacity) == (10, 100)
    assert cloud_hosts.summary([]) == ()


def test_without_a_provider_the_page_says_it_does_not_know() -> None:
    (row,) = cloud_hosts.rows([_after_288("uuid-a", "node-a")], [])
    assert (row.usages, row.running_vms, row.source) == ((), None, "")


def test_before_2_88_the_hypervisor_carries_its_own_usage() -> None:
    body: dict[str, Any] = {
        "id": "7", "hypervisor_hostname": "old", "state": "down", "status": "disabled",
        "vcpus": 4, "vcpus_used": 1, "memory_mb": 2048, "memory_mb_used": 512,
        "local_gb": 10, "local_gb_used": 10, "running_vms": 1,
    }  # fmt: skip
    with warnings.catch_warnings():  # openstacksdk warns of the fields 2.88 removed
        warnings.simplefilter("ignore", RemovedFieldWarning)
        found = [Hypervisor(**body)]
    assert not cloud_hosts.needs_placement(found)
    (row,) = cloud_hosts.rows(found, [ProviderUsage("7", "old", (), 9)])
    assert not row.up and row.source == "compute" and row.running_vms == 1
    assert [(u.resource, u.used, u.capacity, u.percent) for u in row.usages] == [
        ("VCPU", 1, 4, 25), ("MEMORY_MB", 512, 2048, 25), ("DISK_GB", 10, 10, 100),
    ]  # fmt: skip


def test_an_agents_bridge_mappings_and_configuration_in_words() -> None:
    agent = Agent(id="a1", agent_type="Open vSwitch agent", host="node-a", is_alive=True,
                  is_admin_state_up=True, binary="saphira-l2-agent",
                  configuration={"devices": 3, "tunnel_types": [],
                                 "bridge_mappings": {"physnet2": "br-two",
                                                     "physnet1": "br-physnet1"}})  # fmt: skip
    row = cloud_admin.agent_row(agent)
    assert [str(m) for m in row.bridge_mappings] == ["physnet1:br-physnet1", "physnet2:br-two"]
    assert dict(row.configurations)["bridge_mappings"] == "physnet1: br-physnet1, physnet2: br-two"
    assert row.alive and row.admin_up
    linuxbridge = {"interface_mappings": {"physnet1": "eth1"}}
    assert [str(m) for m in cloud_admin.mappings(linuxbridge)] == ["physnet1:eth1"]
    assert cloud_admin.mappings({"bridge_mappings": "not a dict"}) == ()
    assert cloud_admin.mappings(None) == ()


def test_a_service_row_knows_whether_the_cloud_serves_forced_down() -> None:
    body: dict[str, Any] = {
        "id": "s1", "binary": "saphira-compute", "host": "h", "zone": "nova",
        "status": "disabled", "state": "up", "disabled_reason": "maintenance",
    }  # fmt: skip
    old = cloud_admin.service_row(Service(**body))
    assert (old.enabled, old.disabled_reason, old.forced_down) == (False, "maintenance", None)
    assert (
        old.changeable and not cloud_admin.service_row(Service(binary="nova-scheduler")).changeable
    )
    assert cloud_admin.service_row(Service(**body, forced_down=True)).forced_down is True


def test_each_runs_the_calls_at_once_and_keeps_their_order() -> None:
    calls = Calls(4)
    barrier = threading.Barrier(3, timeout=5)  # only met if the three run together

    def call(n: int) -> int:
        barrier.wait()
        return n * 10

    try:
        assert calls.each(call, [1, 2, 3]) == [10, 20, 30]
        assert calls.each(call, []) == []
    finally:
        calls.close()
