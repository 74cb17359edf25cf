"""What to do when a layer fails: the compute node guide's pitfalls, as data."""

from __future__ import annotations

from saphira.verify.model import Layer

FIXES: dict[Layer, str] = {
    Layer.HYPERVISOR: (
        '"No valid host": confirm the controller discovered the host into a cell '
        "(saphira-manage cell_v2 discover_hosts --verbose) and reports the hypervisor as up "
        "before changing flavors; a host that is down stopped its heartbeat: start its "
        "compute agent and read its log."
    ),
    Layer.AGENTS: (
        "Empty bridge mappings or PortBindingFailed: verify the L2 agent's live mapping "
        "(as `openstack network agent show` reports it: the running agent's [ovs] "
        "bridge_mappings and command line), not merely the file on disk; a dead agent: "
        "start it again and read its log."
    ),
    Layer.STATE: (
        "ACTIVE is necessary but incomplete; an ERROR server's fault names the cause. "
        '"No valid host": see the hypervisor layer. "Binding failed" (PortBindingFailed): '
        "the host's L2 agent does not map the network's physical network; fix its live "
        'bridge mapping, then launch again. "Emulator does not support virt type '
        'kvm": the host lacks a usable /dev/kvm; let setup select QEMU instead of forcing '
        "KVM. Guest cgroup or virtlogd errors: verify the complete libvirt daemon set. Fix "
        "the cause rather than rebuilding the instance repeatedly."
    ),
    Layer.PORT: (
        "PortBindingFailed: verify the L2 agent's live bridge mapping on the server's host "
        "for the network's physical network, then the OVS binding; a port DOWN on a live "
        "agent was never wired: read that agent's log."
    ),
    Layer.CONSOLE: (
        "The guest did not boot: ACTIVE needs only a QEMU process. Check that the image "
        "is bootable and its disk format is the file's real format (uploading a file does "
        "not prove a guest can boot it), then the hypervisor's and libvirt's logs."
    ),
    Layer.LEASE: (
        "No address or DHCP: verify the DHCP agent and the network service, then the "
        "network/subnet DHCP setting and the OVS binding, in that order. A guest that "
        "asked while DHCP was down asks again only when it renews or reboots."
    ),
    Layer.SECURITY_GROUP: (
        "Add only the ingress rule the service needs (protocol, port and source range) to "
        "the port's security group; do not open all ports to compensate for a broken "
        "route, DHCP service or bridge mapping."
    ),
    Layer.SERVICE: (
        "Every layer under it passed: look inside the guest (its console) for the service "
        "itself: is it started and listening on that port and address? FailedToDropPrivileges "
        "or helper exit 1 here: inspect the narrow sudoers path rather than granting "
        "unrestricted sudo."
    ),
}

DOWN_FIXES: dict[str, str] = {
    "hypervisor": FIXES[Layer.HYPERVISOR],
    "service": "A service that stopped its heartbeat: start it again and read its log.",
    "agent": FIXES[Layer.AGENTS],
}
