"""The inventory a compute host reports: its allocation ratios follow Nova's rule."""

from __future__ import annotations

from saphira.compute.resource_tracker import inventory
from saphira.conf import make_conf
from saphira.objects import ComputeNode

NODE = ComputeNode("", "h1", "h1", vcpus=2, memory_mb=4096, local_gb=20)


def _ratios(record: dict[str, dict[str, object]]) -> dict[str, object]:
    return {rc: fields["allocation_ratio"] for rc, fields in record.items()}


def test_a_new_provider_starts_at_the_initial_ratios() -> None:
    assert _ratios(inventory(make_conf(), NODE, {})) == {
        "VCPU": 4.0, "MEMORY_MB": 1.0, "DISK_GB": 1.0,
    }  # fmt: skip


def test_a_ratio_the_operator_set_through_placement_is_kept_while_the_option_is_unset() -> None:
    current = {"VCPU": {"total": 2, "allocation_ratio": 10.0}}
    assert _ratios(inventory(make_conf(), NODE, current))["VCPU"] == 10.0


def test_the_configured_ratio_wins_over_placements() -> None:
    conf = make_conf()
    conf.set_override("cpu_allocation_ratio", 2.0)
    current = {"VCPU": {"total": 2, "allocation_ratio": 10.0}}
    assert _ratios(inventory(conf, NODE, current)) == {
        "VCPU": 2.0,
        "MEMORY_MB": 1.0,
        "DISK_GB": 1.0,
    }
