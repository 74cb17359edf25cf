from __future__ import annotations

import datetime as dt

import pytest

from saphira.exception import ConfigError
from saphira.scheduler import filters
from tests.unit.scheduler.helpers import host, request


def test_compute_filter_passes_an_enabled_live_host() -> None:
    assert filters.ComputeFilter().refuse(host("a"), request()) is None


@pytest.mark.parametrize(
    ("state", "words"),
    [
        ({"service_disabled": True, "disabled_reason": "maintenance"}, "disabled (maintenance)"),
        ({"forced_down": True}, "forced down"),
        ({"service_up": False, "last_seen_up": dt.datetime(2026, 1, 2, 3, 4)}, "2026-01-02T03:04"),
        ({"has_service": False}, "no nova-compute service"),
    ],
)
def test_compute_filter_names_the_cause(state: dict[str, object], words: str) -> None:
    reason = filters.ComputeFilter().refuse(host("a", **state), request())
    assert reason is not None and words in reason


def test_availability_zone_filter() -> None:
    f = filters.AvailabilityZoneFilter()
    assert f.refuse(host("a", availability_zone="az1"), request()) is None
    assert f.refuse(host("a", availability_zone="az1"), request(availability_zone="az1")) is None
    reason = f.refuse(host("a", availability_zone="az1"), request(availability_zone="az2"))
    assert reason == "in availability zone 'az1', not 'az2'"


@pytest.mark.parametrize(
    ("props", "refused"),
    [
        ({}, False),
        ({"hw_architecture": "x86_64"}, False),
        ({"hw_architecture": "amd64"}, False),
        ({"hw_architecture": "aarch64"}, True),
        ({"img_hv_type": "QEMU"}, False),
        ({"img_hv_type": "xen"}, True),
        ({"img_hv_requested_version": ">=6.0"}, False),
        ({"img_hv_requested_version": "<6.0"}, True),
        ({"img_hv_requested_version": "6.1.0"}, True),
        ({"img_hv_requested_version": ">=six"}, True),
    ],
)
def test_image_properties_filter(props: dict[str, str], refused: bool) -> None:
    state = host("a", arch="x86_64", hypervisor_type="qemu", hypervisor_version=6_000_000)
    reason = filters.ImagePropertiesFilter().refuse(state, request(image_properties=props))
    assert (reason is not None) is refused


def test_version_to_int_is_novas() -> None:
    assert filters.version_to_int("6.0.1") == 6_000_001
    assert filters.version_matches("==2.1", 2_001)


def test_affinity_filter_keeps_the_group_together() -> None:
    f = filters.ServerGroupAffinityFilter()
    empty = request(instance_group_policy="affinity")
    assert f.refuse(host("b"), empty) is None  # the first member may go anywhere
    placed = request(instance_group_policy="affinity", instance_group_hosts=["a"])
    assert f.refuse(host("a"), placed) is None
    assert f.refuse(host("b"), placed) == "server group (affinity) members are on a"
    assert f.refuse(host("b"), request(instance_group_hosts=["a"])) is None


def test_anti_affinity_filter_keeps_members_apart() -> None:
    f = filters.ServerGroupAntiAffinityFilter()
    placed = request(instance_group_policy="anti-affinity", instance_group_hosts=["a"])
    assert f.refuse(host("b"), placed) is None
    reason = f.refuse(host("a"), placed)
    assert reason is not None and "already on this host" in reason
    soft = request(instance_group_policy="soft-anti-affinity", instance_group_hosts=["a"])
    assert f.refuse(host("a"), soft) is None


def test_first_refusal_names_the_filter() -> None:
    chain = filters.load(["ComputeFilter", "AvailabilityZoneFilter"])
    reason = filters.first_refusal(
        chain, host("a", availability_zone="x"), request(availability_zone="y")
    )
    assert reason == "AvailabilityZoneFilter: in availability zone 'x', not 'y'"
    assert filters.first_refusal(chain, host("a"), request()) is None


def test_unknown_filter_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="NoSuchFilter"):
        filters.load(["ComputeFilter", "NoSuchFilter"])
