"""Pick kernel modules out of an unpacked Debian kernel, in load order.

The .deb carries no modules.dep (depmod runs at install time), so the
dependencies are read from each module's own ``.modinfo`` strings. busybox
``insmod`` loads one file without resolving anything, hence the ordering here.
"""

from __future__ import annotations

from pathlib import Path

from saphira.guest_image.debs import ImageBuildError

#: What the guest needs for virtio disks and NICs, the ACPI power button so that a
#: graceful (ACPI) shutdown request reaches the guest's acpid, and a config drive:
#: an ISO 9660 CD-ROM on the IDE bus of libvirt's default (i440fx) machine
#: (ata_piix -> libata -> scsi_mod; sr_mod -> cdrom; isofs).
WANTED = (
    "virtio",
    "virtio_ring",
    "virtio_pci_modern_dev",
    "virtio_pci_legacy_dev",
    "virtio_pci",
    "failover",
    "net_failover",
    "virtio_net",
    "virtio_blk",
    "button",
    "evdev",
    "ata_piix",
    "sr_mod",
    "isofs",
)


def kernel_release(root: Path) -> str:
    """The single kernel release under root/lib/modules."""
    releases = sorted(p.name for p in (root / "lib" / "modules").iterdir() if p.is_dir())
    if len(releases) != 1:
        raise ImageBuildError(f"expected one kernel under lib/modules, found {releases}")
    return releases[0]


def _index(moddir: Path) -> dict[str, Path]:
    """Module name -> .ko path; names use underscores as the kernel does."""
    found: dict[str, Path] = {}
    for path in sorted(moddir.rglob("*.ko")):
        found[path.stem.replace("-", "_")] = path
    return found


def depends(ko: Path) -> list[str]:
    """The ``depends=`` list embedded in a module's .modinfo section."""
    for field in ko.read_bytes().split(b"\0"):
        if field.startswith(b"depends="):
            names = field[len(b"depends=") :].decode()
            return [n.replace("-", "_") for n in names.split(",") if n]
    return []


def load_order(root: Path, wanted: tuple[str, ...] = WANTED) -> list[Path]:
    """The wanted modules (and anything they need) ordered so each follows its needs.

    A wanted name that is built into the kernel (no .ko) is skipped silently:
    there is nothing to load.
    """
    index = _index(root / "lib" / "modules" / kernel_release(root))
    order: list[Path] = []
    seen: set[str] = set()

    def visit(name: str, chain: tuple[str, ...]) -> None:
        if name in seen or name not in index:
            return
        if name in chain:
            raise ImageBuildError(f"module dependency cycle: {' -> '.join((*chain, name))}")
        for dep in depends(index[name]):
            visit(dep, (*chain, name))
        seen.add(name)
        order.append(index[name])

    for name in wanted:
        visit(name, ())
    if not any(p.stem == "virtio_net" for p in order):
        raise ImageBuildError("the kernel has no virtio_net module")
    return order
