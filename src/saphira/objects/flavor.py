"""A flavor, and the snapshot of it an instance keeps (flavors change; the
instance must remember what it was built with)."""

from __future__ import annotations

import dataclasses

from saphira.domain import sizing
from saphira.objects.base import SaphiraObject


@dataclasses.dataclass
class Flavor(SaphiraObject):
    VERSION = "1.0"

    flavorid: str
    name: str
    vcpus: int
    memory_mb: int
    root_gb: int
    ephemeral_gb: int = 0
    swap: int = 0  # MB, as Nova stores it
    rxtx_factor: float = 1.0
    vcpu_weight: int | None = None
    is_public: bool = True
    disabled: bool = False
    description: str | None = None
    extra_specs: dict[str, str] = dataclasses.field(default_factory=dict)
    id: int | None = None

    def resources(self, *, boot_from_volume: bool = False) -> dict[str, int]:
        """What one server of this flavor asks of placement."""
        return sizing.flavor_resources(
            self.vcpus,
            self.memory_mb,
            self.root_gb,
            self.ephemeral_gb,
            self.swap,
            boot_from_volume=boot_from_volume,
        )
