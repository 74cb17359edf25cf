"""Service definitions where systemd runs: units for the agents, the virtqemud drop-in.

Each unit's ExecStart is the service's whole command line, ``--config-file``
flags included (the network agent reads two files). The network agent runs
its privileged helper through sudo (the ``sudoers`` rule), so its unit must
allow new privileges; the compute agent needs no root and keeps the tight
sandbox of etc/systemd/saphira-compute.service. Where the modular
``virtqemud`` exists, a drop-in sets ``ProtectControlGroups=no`` for the
packaged unit's known cgroup problem, and nothing else.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from saphira.join import services as svc
from saphira.join.writer import Planned

UNIT_DIR = Path("/etc/systemd/system")
VIRTQEMUD_DROPIN = UNIT_DIR / "virtqemud.service.d" / "saphira-cgroups.conf"

_AFTER = {
    svc.COMPUTE: "network-online.target libvirtd.service virtqemud.service",
    svc.NETWORK_AGENT: "network-online.target openvswitch-switch.service ovs-vswitchd.service",
}
_SANDBOX = {
    svc.COMPUTE: "SupplementaryGroups=libvirt kvm\nNoNewPrivileges=yes\nProtectSystem=full\n",
    svc.NETWORK_AGENT: "# sudo starts the privileged helper: no NoNewPrivileges here.\n",
}


def unit(service: svc.Service) -> str:
    return (
        "# Written by saphira-openstack-setup-compute; kept unless --force.\n"
        f"[Unit]\nDescription=Saphira {service.name}\n"
        f"After={_AFTER[service.name]}\nWants=network-online.target\n\n"
        f"[Service]\nType=simple\nUser={service.user}\nGroup={service.user}\n"
        f"ExecStart={' '.join(service.argv)}\n"
        "Restart=on-failure\nRestartSec=5\nKillSignal=SIGTERM\nTimeoutStopSec=90\n"
        f"{_SANDBOX[service.name]}\n"
        "[Install]\nWantedBy=multi-user.target\n"
    )


def virtqemud_dropin() -> str:
    return (
        "# Written by saphira-openstack-setup-compute: the packaged virtqemud unit's\n"
        "# ProtectControlGroups=yes keeps it from making the guests' cgroups.\n"
        "[Service]\nProtectControlGroups=no\n"
    )


def planned(services: Sequence[svc.Service], modular_libvirt: bool) -> list[Planned]:
    files = [Planned(UNIT_DIR / f"{s.name}.service", unit(s), 0o644) for s in services]
    if modular_libvirt:
        files.append(Planned(VIRTQEMUD_DROPIN, virtqemud_dropin(), 0o644))
    return files
