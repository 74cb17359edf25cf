"""The L2 agent's OVSDB watch: a new or changed interface wakes it, and stopping
it leaves no ovsdb-client behind."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from saphira.network.l2.ovs_monitor import InterfaceMonitor
from saphira.network.ovs_daemons import ensure_running
from tests.integration.network.dhcp_host import cmdline, ovs_bridge, sh
from tests.polling import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("ovs")]


def monitors() -> list[int]:
    return [
        int(p.name)
        for p in Path("/proc").glob("[0-9]*")
        if cmdline(p).startswith("ovsdb-client\0monitor\0Open_vSwitch\0Interface")
    ]


def test_an_interface_change_wakes_and_stop_ends_the_watch() -> None:
    ensure_running()
    before = set(monitors())
    woken = threading.Event()
    with ovs_bridge() as bridge:
        monitor = InterfaceMonitor(woken.set)
        monitor.start()
        try:
            wait_for("the initial contents (the bridge's interface)", woken.is_set, timeout=10)
            woken.clear()
            sh("ovs-vsctl", "set", "Interface", bridge, "external_ids:iface-id=sx-watch")
            wait_for("the iface-id set", woken.is_set, timeout=10)
        finally:
            monitor.stop()
    assert not set(monitors()) - before, "an ovsdb-client monitor was left running"
