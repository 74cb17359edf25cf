"""The L2 agent's OVSDB watch: a new or changed interface wakes it, and stopping
it leaves no ovsdb-client behind (the privileged helper ends a watch nobody asks about)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from saphira.network.l2.ovs_monitor import InterfaceMonitor
from saphira.network.ovs_daemons import ensure_running
from saphira.privsep import context, ovs_watch
from tests.integration.network.dhcp_host import cmdline, ovs_bridge, sh
from tests.polling import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("ovs")]


def monitors() -> list[int]:
    return [
        int(p.name)
        for p in Path("/proc").glob("[0-9]*")
        if cmdline(p).startswith("ovsdb-client\0monitor\0Open_vSwitch\0Interface")
    ]


def children_of(parent: int) -> list[int]:
    """The monitors the privileged helper ``parent`` runs (not other tests' helpers)."""
    return [pid for pid in monitors() if _ppid(pid) == parent]


def _ppid(pid: int) -> int | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    return next(int(line.split()[1]) for line in status.splitlines() if line.startswith("PPid:"))


def test_an_interface_change_wakes_and_stop_ends_the_watch() -> None:
    ensure_running()
    helper = int(context.identity()["pid"])
    woken = threading.Event()
    with ovs_bridge() as bridge:
        monitor = InterfaceMonitor(woken.set)
        monitor.start()
        try:
            wait_for("the initial contents (the bridge's interface)", woken.is_set, timeout=10)
            woken.clear()
            sh("ovs-vsctl", "set", "Interface", bridge, "external_ids:iface-id=sx-watch")
            wait_for("the iface-id set", woken.is_set, timeout=10)
            assert children_of(helper), "the monitor runs in the privileged helper"
        finally:
            monitor.stop()
    wait_for(
        "the helper's ovsdb-client monitor to end",
        lambda: not children_of(helper),
        timeout=ovs_watch.IDLE_STOP + 15,
    )
