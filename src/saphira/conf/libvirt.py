"""[libvirt], [image_cache] and the instance paths: the libvirt driver's keys,
with Nova's names so an operator's nova.conf means the same here."""

from __future__ import annotations

from oslo_config import cfg

default_opts: list[cfg.Opt] = [
    cfg.StrOpt(
        "instances_path",
        default="$state_path/instances",
        help="Where each guest's directory (disks, console log, domain XML) lives.",
    ),
    cfg.IntOpt(
        "shutdown_timeout",
        default=60,
        min=0,
        help="Seconds a guest gets to power off after an ACPI shutdown before it is forced.",
    ),
]

libvirt_group = cfg.OptGroup("libvirt", help="The libvirt virt driver.")

libvirt_opts: list[cfg.Opt] = [
    cfg.StrOpt(
        "virt_type",
        default="auto",
        choices=["auto", "kvm", "qemu"],
        help="'auto' proves KVM works by booting a probe and falls back to qemu.",
    ),
    cfg.StrOpt(
        "connection_uri",
        default="",
        help="libvirt URI; empty means qemu:///system.",
    ),
    cfg.IntOpt(
        "max_console_log_bytes",
        default=100 * 1024,
        min=1024,
        help="How much of the end of a guest's console log os-getConsoleOutput returns.",
    ),
]

image_cache_group = cfg.OptGroup("image_cache", help="Base images cached on compute hosts.")

image_cache_opts: list[cfg.Opt] = [
    cfg.StrOpt(
        "subdirectory_name",
        default="_base",
        help="Directory under instances_path holding the cached base images.",
    ),
    cfg.IntOpt(
        "manager_interval",
        default=2400,
        min=-1,
        help="Seconds between cache clean-ups; 0 or -1 disables them.",
    ),
    cfg.BoolOpt(
        "remove_unused_base_images", default=True, help="Remove bases no guest uses any more."
    ),
    cfg.IntOpt(
        "remove_unused_original_minimum_age_seconds",
        default=86400,
        min=0,
        help="An unused base is kept at least this long after its last use.",
    ),
]


def list_opts() -> list[tuple[cfg.OptGroup | None, list[cfg.Opt]]]:
    return [
        (None, default_opts),
        (libvirt_group, libvirt_opts),
        (image_cache_group, image_cache_opts),
    ]
