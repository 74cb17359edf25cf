"""The compute host: which virt driver, what it keeps back, how it overcommits
([DEFAULT] keys with Nova's names), and the fake driver's simulation knobs
([fake_driver])."""

from __future__ import annotations

from oslo_config import cfg

_RATIO_HELP = (
    "Virtual {what} per physical {what} placement may allocate on this host. Unset: "
    "keep what the operator set through the placement API, starting at "
    "initial_{name}_allocation_ratio."
)

default_opts: list[cfg.Opt] = [
    cfg.StrOpt(
        "compute_driver",
        default="auto",
        help="Virt driver of this compute host: 'fake.FakeDriver' (simulated guests), "
        "'libvirt.LibvirtDriver' (real QEMU/KVM guests), or 'auto': libvirt when "
        "libvirt-python and a libvirt daemon are installed and the daemon runs or can be "
        "started, the fake driver otherwise.",
    ),
    cfg.IntOpt("reserved_host_memory_mb", default=512, min=0, help="Memory kept for the host."),
    cfg.IntOpt("reserved_host_disk_mb", default=0, min=0, help="Local disk kept for the host."),
    cfg.IntOpt("reserved_host_cpus", default=0, min=0, help="Host CPUs kept for the host."),
    cfg.FloatOpt("cpu_allocation_ratio", min=0.0, help=_RATIO_HELP.format(what="CPUs", name="cpu")),
    cfg.FloatOpt(
        "ram_allocation_ratio", min=0.0, help=_RATIO_HELP.format(what="MB of RAM", name="ram")
    ),
    cfg.FloatOpt(
        "disk_allocation_ratio", min=0.0, help=_RATIO_HELP.format(what="GB of disk", name="disk")
    ),
    cfg.FloatOpt("initial_cpu_allocation_ratio", default=4.0, min=0.0, help="See above."),
    cfg.FloatOpt("initial_ram_allocation_ratio", default=1.0, min=0.0, help="See above."),
    cfg.FloatOpt("initial_disk_allocation_ratio", default=1.0, min=0.0, help="See above."),
    cfg.IntOpt(
        "vif_plugging_timeout",
        default=300,
        min=0,
        help="Seconds a new guest waits, paused, for the network service to report each of "
        "its ports plugged (network-vif-plugged); 0: do not wait.",
    ),
    cfg.BoolOpt(
        "vif_plugging_is_fatal",
        default=True,
        help="Fail the build when a port is not reported plugged in time; false: start the "
        "guest anyway.",
    ),
]

fake_group = cfg.OptGroup("fake_driver", help="The fake virt driver: simulated hypervisors.")

fake_opts: list[cfg.Opt] = [
    cfg.IntOpt("vcpus", default=8, min=1, help="vCPUs each simulated hypervisor has."),
    cfg.IntOpt("memory_mb", default=16384, min=1, help="Memory of each simulated hypervisor."),
    cfg.IntOpt("local_gb", default=200, min=1, help="Local disk of each simulated hypervisor."),
    cfg.ListOpt(
        "nodes",
        default=[],
        help="Hypervisor (node) names this host simulates; empty means one node named "
        "after [DEFAULT] host.",
    ),
    cfg.ListOpt("fail_spawn_hosts", default=[], help="Hosts whose every spawn fails."),
    cfg.ListOpt("fail_destroy_hosts", default=[], help="Hosts whose every destroy fails."),
    cfg.ListOpt("fail_power_off_hosts", default=[], help="Hosts whose every power-off fails."),
    cfg.FloatOpt(
        "delay", default=0.0, min=0.0, help="Seconds each guest operation takes (simulated)."
    ),
    cfg.IntOpt(
        "console_lines", default=1000, min=1, help="Console lines kept per simulated guest."
    ),
]


def list_opts() -> list[tuple[cfg.OptGroup | None, list[cfg.Opt]]]:
    return [(None, default_opts), (fake_group, fake_opts)]
