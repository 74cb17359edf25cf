"""The provider bridge: an OVS bridge holding the chosen NIC, made idempotently.

``ensure`` only writes what is missing (``--may-exist``), and refuses a NIC
that is already a port of another bridge. ``ports`` reads a bridge's ports
for ``--check``.
"""

from __future__ import annotations

from saphira.exception import JoinRefused
from saphira.join.runner import Runner


def ports(runner: Runner, bridge: str) -> list[str] | None:
    """The bridge's ports, or None when it does not exist."""
    if not runner.run(["ovs-vsctl", "br-exists", bridge]).ok:
        return None
    return runner.run(["ovs-vsctl", "list-ports", bridge]).stdout.split()


def _must(runner: Runner, argv: list[str]) -> None:
    done = runner.run(argv)
    if not done.ok:
        raise JoinRefused(reason=f"{' '.join(argv)} failed: {done.output}")


def ensure(runner: Runner, bridge: str, nic: str) -> list[str]:
    """Make bridge hold nic; what was done (empty when it already did)."""
    done: list[str] = []
    present = ports(runner, bridge)
    if present is None:
        _must(runner, ["ovs-vsctl", "--may-exist", "add-br", bridge])
        done.append(f"made the bridge {bridge}")
        present = []
    if nic not in present:
        owner = runner.run(["ovs-vsctl", "port-to-br", nic])
        if owner.ok and owner.stdout.strip() not in ("", bridge):
            raise JoinRefused(
                reason=f"{nic} is already a port of the bridge {owner.stdout.strip()}, "
                f"not {bridge}: remove it there first (ovs-vsctl del-port {nic})"
            )
        _must(runner, ["ovs-vsctl", "--may-exist", "add-port", bridge, nic])
        done.append(f"added {nic} to {bridge}")
    for link in (nic, bridge):
        _must(runner, ["ip", "link", "set", link, "up"])
    return done
