"""Sizes: what a flavor asks of placement and what a host offers it.

Both sides use placement's resource classes (VCPU, MEMORY_MB, DISK_GB), so
the scheduler's "which resource said no" can name the same words on both.
"""

from __future__ import annotations

import dataclasses
import math

VCPU = "VCPU"
MEMORY_MB = "MEMORY_MB"
DISK_GB = "DISK_GB"


def ceil_gb(megabytes: int) -> int:
    return math.ceil(megabytes / 1024)


def flavor_resources(
    vcpus: int,
    memory_mb: int,
    root_gb: int,
    ephemeral_gb: int = 0,
    swap_mb: int = 0,
    *,
    boot_from_volume: bool = False,
) -> dict[str, int]:
    """Nova's ``resources_from_flavor``: swap rounds up to whole GB; a
    volume-backed server takes no local root disk. Zero amounts are left out,
    as placement rejects them.
    """
    disk = (0 if boot_from_volume else root_gb) + ephemeral_gb + ceil_gb(swap_mb)
    wanted = {VCPU: vcpus, MEMORY_MB: memory_mb, DISK_GB: disk}
    return {rc: amount for rc, amount in wanted.items() if amount > 0}


@dataclasses.dataclass(frozen=True)
class Inventory:
    total: int
    reserved: int = 0
    min_unit: int = 1
    max_unit: int | None = None  # None: the total
    step_size: int = 1
    allocation_ratio: float = 1.0

    @property
    def capacity(self) -> int:
        """What may be allocated: placement's ``(total - reserved) * ratio``."""
        return int((self.total - self.reserved) * self.allocation_ratio)

    def refusal(self, used: int, amount: int) -> str | None:
        """Why ``amount`` more does not fit, in words, or None if it does."""
        max_unit = self.total if self.max_unit is None else self.max_unit
        if amount < self.min_unit or amount > max_unit:
            return f"{amount} outside [{self.min_unit}, {max_unit}]"
        if amount % self.step_size:
            return f"{amount} not a multiple of step {self.step_size}"
        if used + amount > self.capacity:
            return f"{amount} requested, {max(self.capacity - used, 0)} free of {self.capacity}"
        return None


def host_inventory(
    vcpus: int,
    memory_mb: int,
    local_gb: int,
    *,
    reserved_cpus: int = 0,
    reserved_memory_mb: int = 0,
    reserved_disk_mb: int = 0,
    cpu_ratio: float = 1.0,
    ram_ratio: float = 1.0,
    disk_ratio: float = 1.0,
) -> dict[str, Inventory]:
    """A compute node's inventory as Nova's resource tracker reports it."""
    return {
        VCPU: Inventory(vcpus, reserved_cpus, max_unit=vcpus, allocation_ratio=cpu_ratio),
        MEMORY_MB: Inventory(
            memory_mb, reserved_memory_mb, max_unit=memory_mb, allocation_ratio=ram_ratio
        ),
        DISK_GB: Inventory(
            local_gb, ceil_gb(reserved_disk_mb), max_unit=local_gb, allocation_ratio=disk_ratio
        ),
    }


def refusals(
    inventory: dict[str, Inventory], used: dict[str, int], wanted: dict[str, int]
) -> dict[str, str]:
    """Per resource class, why the request does not fit (empty when it does)."""
    reasons: dict[str, str] = {}
    for rc, amount in wanted.items():
        inv = inventory.get(rc)
        reason = "no inventory" if inv is None else inv.refusal(used.get(rc, 0), amount)
        if reason:
            reasons[rc] = reason
    return reasons
