"""NoValidHost speaks twice: every host and why for admins, and a summary
without any host's name, state or capacity for everyone else."""

from __future__ import annotations

from saphira import exception
from saphira.scheduler import explain
from saphira.scheduler.host_state import UNMAPPED
from saphira.scheduler.selector import CLAIM_LOST

REASONS = {
    "alpha": "placement: MEMORY_MB 1024 requested, 512 free of 512; placement: VCPU 2 requested, "
    "0 free of 8",
    "beta (node beta-2)": "ComputeFilter: compute service disabled (alpha's neighbour)",
    "gamma": "ServerGroupAntiAffinityFilter: a member of the server group (anti-affinity) is "
    "already on this host",
    "delta": "AvailabilityZoneFilter: in availability zone 'az-delta', not 'az-1'",
    "epsilon": UNMAPPED,
    "zeta": CLAIM_LOST,
}


def test_the_summary_names_resource_classes_and_filters_only() -> None:
    error = explain.no_valid_host(REASONS, total=6)
    assert error.public_message == (
        "No valid host was found. There are not enough hosts available: not enough MEMORY_MB, "
        "VCPU; refused by AvailabilityZoneFilter, ComputeFilter, ServerGroupAntiAffinityFilter."
    )
    for host in REASONS:
        assert host.split()[0] in error.message
        assert host.split()[0] not in error.public_message
    assert "az-delta" not in error.public_message and "512" not in error.public_message


def test_without_a_summary_members_read_novas_words() -> None:
    short = "There are not enough hosts available: not enough resources."
    assert explain.summary([CLAIM_LOST]) == short
    assert explain.summary([UNMAPPED]) == "There are not enough hosts available."
    bare = exception.NoValidHost(reason="h1: RamFilter")
    assert bare.public_message == "No valid host was found. There are not enough hosts available."
    empty = explain.no_valid_host({}, total=0).public_message
    assert empty == "No valid host was found. There are no compute nodes in any cell."
