from __future__ import annotations

import pytest

from saphira.domain import quota, sizing
from saphira.exception import QuotaExceeded

LIMITS = {"instances": 10, "cores": 20, "ram": 51200}


def test_enforce_names_every_tight_resource() -> None:
    usage = {"instances": 9, "cores": 19, "ram": 0}
    quota.enforce(LIMITS, usage, quota.server_deltas(1, 512))
    with pytest.raises(QuotaExceeded) as caught:
        quota.enforce(LIMITS, usage, quota.server_deltas(2, 512, count=2))
    assert caught.value.code == 403
    assert caught.value.message == (
        "Quota exceeded for cores, instances: Requested 4, 2, but already used 19, 9 of 20, 10 "
        "cores, instances"
    )


def test_unlimited_and_shrinking_never_fail() -> None:
    limits = {**LIMITS, "cores": quota.UNLIMITED}
    assert quota.overs(limits, {"cores": 10**6}, {"cores": 5}) == []
    assert quota.overs(LIMITS, {"ram": 10**9}, {"ram": -512}) == []
    assert quota.resize_deltas({"cores": 4, "ram": 512}, {"cores": 2, "ram": 1024}) == {"ram": 512}


@pytest.mark.parametrize(
    ("used", "lo", "hi", "expected"), [(0, 1, 50, 10), (7, 1, 5, 3), (0, 2, 4, 4), (10, 0, 3, 0)]
)
def test_max_servers_between_min_and_max(used: int, lo: int, hi: int, expected: int) -> None:
    usage = {"instances": used, "cores": used, "ram": used * 512}
    assert quota.max_servers(LIMITS, usage, 1, 512, lo, hi) == expected


def test_max_servers_refuses_when_min_does_not_fit() -> None:
    with pytest.raises(QuotaExceeded, match="cores"):
        quota.max_servers(LIMITS, {"instances": 0, "cores": 18}, 2, 64, 2, 5)


def test_flavor_resources_round_swap_up_and_skip_zero() -> None:
    assert sizing.flavor_resources(2, 2048, 20, 5, 1) == {
        "VCPU": 2,
        "MEMORY_MB": 2048,
        "DISK_GB": 26,
    }
    assert sizing.flavor_resources(1, 64, 1, boot_from_volume=True) == {"VCPU": 1, "MEMORY_MB": 64}


def test_host_inventory_capacity_and_refusals() -> None:
    inv = sizing.host_inventory(
        8, 16384, 100, reserved_memory_mb=512, reserved_disk_mb=1500, cpu_ratio=4.0
    )
    assert inv["VCPU"].capacity == 32
    assert inv["MEMORY_MB"].capacity == 15872
    assert inv["DISK_GB"].reserved == 2
    assert sizing.refusals(inv, {"VCPU": 30}, {"VCPU": 2, "MEMORY_MB": 512}) == {}
    reasons = sizing.refusals(inv, {"VCPU": 31}, {"VCPU": 2, "DISK_GB": 200, "PCI": 1})
    assert reasons == {
        "VCPU": "2 requested, 1 free of 32",
        "DISK_GB": "200 outside [1, 100]",
        "PCI": "no inventory",
    }
    assert sizing.Inventory(10, step_size=2).refusal(0, 3) == "3 not a multiple of step 2"
