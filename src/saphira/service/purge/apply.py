"""Removing what the plan found: one call per removal, through the privileged helper.

A process is signalled only while it still has the command line the survey
saw (a pid reused since is left alone); dnsmasq through the helper's own
check that it is dnsmasq, a metadata proxy (the service user's) directly.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import time
from collections.abc import Callable

from saphira.exception import SaphiraError
from saphira.network.dhcp import process as dhcp_process
from saphira.privsep import dnsmasq, links, netns, nft, ovs
from saphira.service.purge.model import HostView, Kind, Removal

STOP_TIMEOUT = 5.0
POLL = 0.05


class RemovalFailed(SaphiraError):
    msg_fmt = "%(detail)s"


class Remover:
    def __init__(self, host: HostView, libvirt_uri: str) -> None:
        self.argv = {str(p.pid): p.argv for p in host.processes}
        self.libvirt_uri = libvirt_uri
        self.actions: dict[Kind, Callable[[str], None]] = {
            Kind.DOMAIN: self._domain,
            Kind.PROCESS: self._process,
            Kind.FLOWS: _flows,
            Kind.ADDRESS: _address,
            Kind.OVS_PORT: ovs.delete_port,
            Kind.DEVICE: links.delete,
            Kind.NAMESPACE: netns.delete,
            Kind.NFT_TABLE: _nft_table,
            Kind.OVS_BRIDGE: ovs.delete_bridge,
            Kind.BRIDGE: links.delete,
            Kind.DIRECTORY: _directory,
        }

    def remove(self, removal: Removal) -> None:
        self.actions[removal.kind](removal.name)

    def _process(self, name: str) -> None:
        pid, argv = int(name), list(self.argv[name])
        if dhcp_process.cmdline(pid) != argv:
            return  # gone already, or the pid is another process's now
        if os.path.basename(argv[0]) == "dnsmasq":
            dnsmasq.terminate(pid)
            if not _gone(pid, argv):
                dnsmasq.kill(pid)
        else:
            _signal(pid, signal.SIGTERM)
            if not _gone(pid, argv):
                _signal(pid, signal.SIGKILL)
        _gone(pid, argv)

    def _domain(self, name: str) -> None:
        import libvirt

        try:
            conn = libvirt.open(self.libvirt_uri)
            try:
                dom = conn.lookupByName(name)
                if dom.isActive():
                    dom.destroy()
                dom.undefineFlags(libvirt.VIR_DOMAIN_UNDEFINE_MANAGED_SAVE)
            finally:
                conn.close()
        except libvirt.libvirtError as error:
            if error.get_error_code() != libvirt.VIR_ERR_NO_DOMAIN:  # gone already: done
                raise RemovalFailed(detail=f"domain {name}: {error}") from None


def _signal(pid: int, signum: int) -> None:
    """A metadata proxy runs as the service user: no root needed to stop it."""
    with contextlib.suppress(ProcessLookupError):  # it ended on its own meanwhile
        os.kill(pid, signum)


def _gone(pid: int, argv: list[str]) -> bool:
    deadline = time.monotonic() + STOP_TIMEOUT
    while dhcp_process.cmdline(pid) == argv:
        if time.monotonic() > deadline:
            return False
        time.sleep(POLL)
    return True


def _flows(name: str) -> None:
    bridge, _, match = name.partition(" ")
    ovs.apply_flows(bridge, [f"delete {match}"])


def _address(name: str) -> None:
    device, _, cidr = name.partition(" ")
    links.delete_address(device, cidr)


def _nft_table(name: str) -> None:
    family, _, table = name.partition("/")
    nft.delete_table(family, table)


def _directory(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):  # gone meanwhile: what was asked is done
        shutil.rmtree(path)
