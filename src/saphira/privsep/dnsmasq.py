"""dnsmasq processes: start one inside a namespace, signal it by pid."""

from __future__ import annotations

from collections.abc import Sequence

from saphira.privsep.runner import run


def spawn(argv: Sequence[str], *, namespace: str) -> None:
    """Returns once dnsmasq has daemonized and written its pid file.

    dnsmasq reports a bad configuration or a busy port through its exit
    status before it detaches, so failures surface here as PrivsepError.
    """
    run(argv, namespace=namespace)


def reload(pid: int) -> None:
    """SIGHUP: dnsmasq re-reads its hosts and options files, leases kept."""
    run(["kill", "-HUP", str(pid)])


def terminate(pid: int) -> None:
    run(["kill", "-TERM", str(pid)], check=False)


def kill(pid: int) -> None:
    run(["kill", "-KILL", str(pid)], check=False)


def release(namespace: str, device: str, ip: str, mac: str) -> None:
    """Drop one IPv4 lease from a running dnsmasq (dnsmasq-utils' dhcp_release)."""
    run(["dhcp_release", device, ip, mac], namespace=namespace)
