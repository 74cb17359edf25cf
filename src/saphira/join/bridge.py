"""The provider bridge: an OVS bridge holding the chosen NIC, made idempotently.

The bridge is made as the L2 agent's privileged helper makes its bridges
(``saphira.privsep.ovs.add_bridge``): ``fail_mode=secure`` (no flow but the
agent's forwards) on the kernel datapath where ``ovs-dpctl show`` answers,
else the userspace one. ``ensure`` only writes what is missing
(``--may-exist``), and refuses a NIC that is already a port of another
bridge. ``ports`` reads a bridge's ports for ``--check``.
"""

from __future__ import annotations

import time

from saphira.exception import JoinRefused
from saphira.join.runner import Runner


def ports(runner: Runner, bridge: str) -> list[str] | None:
    """The bridge's ports, or None when it does not exist."""
    if not runner.run(["ovs-vsctl", "br-exists", bridge]).ok:
        return None
    return runner.run(["ovs-vsctl", "list-ports", bridge]).stdout.split()


def owner(runner: Runner, nic: str) -> str | None:
    """The OVS bridge nic is a port of, if any."""
    done = runner.run(["ovs-vsctl", "port-to-br", nic])
    return done.stdout.strip() or None if done.ok else None


def _must(runner: Runner, argv: list[str]) -> None:
    done = runner.run(argv)
    if not done.ok:
        raise JoinRefused(reason=f"{' '.join(argv)} failed: {done.output}")


def ensure(runner: Runner, bridge: str, nic: str) -> list[str]:
    """Make bridge hold nic; what was done (empty when it already did)."""
    done: list[str] = []
    present = ports(runner, bridge)
    if present is None:
        datapath = "system" if runner.run(["ovs-dpctl", "show"]).ok else "netdev"
        _must(runner, ["ovs-vsctl", "--may-exist", "add-br", bridge, "--", "set", "Bridge",
                       bridge, f"datapath_type={datapath}", "fail_mode=secure"])  # fmt: skip
        done.append(f"made the bridge {bridge} ({datapath} datapath, fail_mode secure)")
        present = []
    if nic not in present:
        held = owner(runner, nic)
        if held not in (None, bridge):
            raise JoinRefused(reason=f"{nic} is already a port of the bridge {held}, not {bridge}")
        _must(runner, ["ovs-vsctl", "--may-exist", "add-port", bridge, nic])
        done.append(f"added {nic} to {bridge}")
    _must(runner, ["ip", "link", "set", nic, "up"])
    _bridge_up(runner, bridge)
    return done


def _bridge_up(runner: Runner, bridge: str, timeout: float = 10.0) -> None:
    """The bridge's own device appears once ovs-vswitchd made it (userspace: a moment later)."""
    deadline = time.monotonic() + timeout
    while not runner.run(["ip", "link", "show", bridge]).ok:
        if time.monotonic() >= deadline:
            raise JoinRefused(reason=f"OVS made {bridge}, but no device {bridge} appeared")
        time.sleep(0.1)
    _must(runner, ["ip", "link", "set", bridge, "up"])
