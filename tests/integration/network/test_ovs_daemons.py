"""ensure_running on this host, where the test command already started Open vSwitch."""

from __future__ import annotations

import pytest

from saphira.network.ovs_daemons import OvsPaths, ensure_running

pytestmark = pytest.mark.integration


def test_open_vswitch_answers_and_a_second_call_starts_nothing() -> None:
    ensure_running()
    before = {daemon: OvsPaths().running(daemon) for daemon in ("ovsdb-server", "ovs-vswitchd")}
    assert None not in before.values()
    report = ensure_running()
    assert report.started == []
    assert report.version.startswith("ovs-vswitchd (Open vSwitch) ")
    assert {daemon: OvsPaths().running(daemon) for daemon in before} == before
