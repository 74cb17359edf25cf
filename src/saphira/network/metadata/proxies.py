"""The namespace proxies, made to match the DHCP agent's networks (plan, diff, apply).

A network served with metadata gets one proxy in its namespace, listening on
169.254.169.254 when it has an IPv4 DHCP subnet and on
``fe80::a9fe:a9fe%<DHCP device>`` when it has an IPv6 one. As for dnsmasq,
the host is the state: a proxy is found by its pid file and trusted only
while its command line is the one wanted, so a restarted agent adopts the
proxies it left, and a changed one (another socket, listener or user) is
replaced.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

from saphira.network.dhcp import config, process
from saphira.network.dhcp.errors import DhcpError
from saphira.objects.network import DhcpNetwork
from saphira.privsep import links
from saphira.privsep import metadata as privileged

LOG = logging.getLogger(__name__)
V4_ADDRESS = f"{privileged.METADATA_V4}/32"
V6_ADDRESS = f"{privileged.METADATA_V6}/64"
TIMEOUT = 5.0
POLL = 0.05


@dataclasses.dataclass(frozen=True)
class ProxySettings:
    """Where the proxies reach the metadata agent, and the user they run as (never root)."""

    socket: Path
    uid: int
    gid: int


def versions(network: DhcpNetwork) -> set[int]:
    return {subnet.ip_version for subnet in config.dhcp_subnets(network)}


def device_addresses(network: DhcpNetwork) -> list[str]:
    """The global metadata address the DHCP device carries besides its port's."""
    return [V4_ADDRESS] if 4 in versions(network) else []


def listeners(network: DhcpNetwork) -> list[str]:
    device = config.device_name(network.dhcp_port.port_id)
    found = [privileged.METADATA_V4] if 4 in versions(network) else []
    if 6 in versions(network):
        found.append(f"{privileged.METADATA_V6}%{device}")
    return found


def pid_file(directory: Path) -> Path:
    return directory / privileged.PID_FILE


class MetadataProxies:
    def __init__(self, settings: ProxySettings) -> None:
        self.settings = settings

    def argv(self, network: DhcpNetwork, directory: Path) -> list[str]:
        s = self.settings
        return privileged.proxy_argv(network.network_id, str(s.socket), str(directory),
                                     listeners(network), s.uid, s.gid)  # fmt: skip

    def ensure(self, network: DhcpNetwork, directory: Path, *, restart: bool = False) -> bool:
        """True when a proxy had to be (re)started (``restart``: even if it looks right)."""
        namespace = config.namespace_name(network.network_id)
        if 6 in versions(network):
            self._link_local(network, namespace)
        argv = self.argv(network, directory)
        pid = process.running_pid(pid_file(directory))
        if pid is not None and not restart and process.cmdline(pid) == argv:
            return False
        if pid is not None:
            stop_pid(pid, pid_file(directory))
        s = self.settings
        for name in (privileged.PID_FILE, privileged.LOG_FILE):
            own_file(directory / name, s.uid, s.gid)
        privileged.spawn_proxy(network.network_id, str(s.socket), str(directory),
                               listeners(network), s.uid, s.gid, namespace=namespace)  # fmt: skip
        _wait(lambda: process.running_pid(pid_file(directory)) is not None, namespace)
        LOG.info("metadata proxy serves %s", namespace)
        return True

    def _link_local(self, network: DhcpNetwork, namespace: str) -> None:
        device = config.device_name(network.dhcp_port.port_id)
        if V6_ADDRESS not in links.all_addresses(device, namespace=namespace):
            links.add_address(device, V6_ADDRESS, namespace=namespace)


def own_file(path: Path, uid: int, gid: int) -> None:
    """``path`` exists and belongs to the proxies' user (made again if another's)."""
    if path.exists() and path.stat().st_uid != uid:
        path.unlink()
    if not path.exists():
        path.touch(mode=0o644)
        if os.geteuid() == 0 and (uid, gid) != (0, 0):
            os.chown(path, uid, gid)


def stop(directory: Path) -> bool:
    """Stop the proxy of a network no longer served with metadata; True if one ran."""
    pid = process.running_pid(pid_file(directory))
    if pid is None:
        return False
    stop_pid(pid, pid_file(directory))
    return True


def stop_pid(pid: int, pidfile: Path) -> None:
    """SIGTERM: the proxy runs as the agent's own user (or nobody), so no root is needed."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    _wait(lambda: process.running_pid(pidfile) is None, f"stopping proxy {pid}")
    pidfile.unlink(missing_ok=True)


def _wait(done: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not done():
        if time.monotonic() > deadline:
            raise DhcpError(detail=f"metadata proxy: {what} did not settle in {TIMEOUT:.0f} s")
        time.sleep(POLL)
