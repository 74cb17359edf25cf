"""The configuration the network service consults, read and checked once.

``network_vlan_ranges`` entries are ``physnet`` (VLANs allowed there, none
handed out automatically) or ``physnet:min:max`` (also the pool project
networks get their VLAN ids from), as ML2's VLAN type driver reads them.
"""

from __future__ import annotations

from dataclasses import dataclass

from oslo_config import cfg

from saphira.exception import ConfigError

VLAN_MIN, VLAN_MAX = 1, 4094
QUOTA_RESOURCES = ("network", "subnet", "port", "security_group", "security_group_rule")


@dataclass(frozen=True)
class Settings:
    global_mtu: int = 1500
    base_mac: str = "fa:16:3e:00:00:00"
    agent_down_time: int = 75
    type_drivers: tuple[str, ...] = ("flat", "vlan")
    tenant_network_types: tuple[str, ...] = ("vlan",)
    flat_networks: tuple[str, ...] = ("*",)
    vlan_ranges: tuple[tuple[str, tuple[tuple[int, int], ...]], ...] = (
        ("physnet1", ((1000, 1999),)),
    )
    quota_defaults: tuple[tuple[str, int], ...] = tuple((r, -1) for r in QUOTA_RESOURCES)

    def ranges_of(self, physnet: str) -> tuple[tuple[int, int], ...] | None:
        """VLAN ranges of a physical network: () if VLANs are allowed but not pooled, None if
        VLANs are not allowed there at all."""
        return dict(self.vlan_ranges).get(physnet)

    def flat_allowed(self, physnet: str) -> bool:
        return "*" in self.flat_networks or physnet in self.flat_networks

    def default_quota(self, resource: str) -> int:
        return dict(self.quota_defaults)[resource]


def parse_vlan_ranges(entries: list[str]) -> tuple[tuple[str, tuple[tuple[int, int], ...]], ...]:
    ranges: dict[str, list[tuple[int, int]]] = {}
    for entry in entries:
        parts = entry.strip().split(":")
        physnet = parts[0]
        if not physnet or len(parts) not in (1, 3):
            raise ConfigError(f"[ml2_type_vlan] network_vlan_ranges: bad entry {entry!r}")
        ranges.setdefault(physnet, [])
        if len(parts) == 3:
            try:
                low, high = int(parts[1]), int(parts[2])
            except ValueError:
                raise ConfigError(
                    f"[ml2_type_vlan] network_vlan_ranges: bad entry {entry!r}"
                ) from None
            if not VLAN_MIN <= low <= high <= VLAN_MAX:
                raise ConfigError(
                    f"[ml2_type_vlan] network_vlan_ranges: {entry!r} is not within "
                    f"{VLAN_MIN}..{VLAN_MAX} with min <= max"
                )
            ranges[physnet].append((low, high))
    return tuple((physnet, tuple(spans)) for physnet, spans in ranges.items())


def from_conf(conf: cfg.ConfigOpts) -> Settings:
    quotas = conf.quotas
    return Settings(
        global_mtu=conf.global_physnet_mtu,
        base_mac=conf.base_mac,
        agent_down_time=conf.agent_down_time,
        type_drivers=tuple(conf.ml2.type_drivers),
        tenant_network_types=tuple(conf.ml2.tenant_network_types),
        flat_networks=tuple(conf.ml2_type_flat.flat_networks),
        vlan_ranges=parse_vlan_ranges(conf.ml2_type_vlan.network_vlan_ranges),
        quota_defaults=tuple((r, int(quotas[f"quota_{r}"])) for r in QUOTA_RESOURCES),
    )
