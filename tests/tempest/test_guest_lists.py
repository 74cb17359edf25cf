"""The lists of the run with real guests parse, name the scenarios, and name no test
the run without guests runs too (there, a test that needs SSH may only skip)."""

from __future__ import annotations

from tests.tempest import lists
from tests.tempest.test_tempest_guests import INCLUDE, PENDING

SCENARIOS = {
    "tempest.scenario.test_server_basic_ops.TestServerBasicOps.test_server_basic_ops",
    "tempest.scenario.test_network_basic_ops.TestNetworkBasicOps.test_network_basic_ops",
}


def test_the_guest_lists_are_consistent() -> None:
    loaded = lists.load(INCLUDE, PENDING)
    assert set(loaded.listed) >= SCENARIOS
    assert loaded.to_run and set(loaded.pending) <= set(loaded.listed)
    assert all(reason for reason in loaded.pending.values())
    main = lists.load()
    ran_there = set(main.to_run) - set(main.may_skip)  # SSH tests skip there, with reason
    assert not set(loaded.listed) & ran_there, "run in both"
