"""Where a network meets the wire: provider attributes checked, VLAN ids handed out.

The database decides who gets a segment (see saphira.db.network.models): a
segment row is inserted in a savepoint and a refused insert means someone
else holds that VLAN (or the flat physical network), so the next id is tried.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.db.network.models import FLAT_SEGMENTATION_ID, NetworkSegment
from saphira.db.transactions import inserted
from saphira.netsvc import errors
from saphira.netsvc.settings import VLAN_MAX, VLAN_MIN, Settings

KEYS = ("provider:network_type", "provider:physical_network", "provider:segmentation_id")
ATTEMPTS = 64  # VLAN ids tried before giving up on a physical network
SPREAD = 8  # concurrent creators pick among this many free ids, not all the first one


@dataclass(frozen=True)
class Provider:
    network_type: str | None = None
    physical_network: str | None = None
    segmentation_id: int | None = None

    @classmethod
    def of(cls, attrs: dict[str, object]) -> Provider:
        segid = attrs.get(KEYS[2])
        return cls(
            network_type=str(attrs[KEYS[0]]) if attrs.get(KEYS[0]) is not None else None,
            physical_network=str(attrs[KEYS[1]]) if attrs.get(KEYS[1]) is not None else None,
            segmentation_id=int(str(segid)) if segid is not None else None,
        )

    @property
    def given(self) -> bool:
        return any(v is not None for v in (self.network_type, self.physical_network,
                                           self.segmentation_id))  # fmt: skip


def _invalid(message: str) -> errors.InvalidInput:
    return errors.InvalidInput(error_message=message)


def create(
    session: Session, settings: Settings, network_id: str, asked: Provider
) -> NetworkSegment:
    """The network's segment: as the admin asked, or a project VLAN from the ranges."""
    if not asked.given:
        return _project_segment(session, settings, network_id)
    kind = asked.network_type
    if kind is None:
        raise _invalid("provider:network_type required")
    if kind not in settings.type_drivers:
        raise _invalid(f"network_type value '{kind}' not supported")
    if kind == "flat":
        return _flat(session, settings, network_id, asked)
    return _vlan(session, settings, network_id, asked)


def _flat(session: Session, settings: Settings, network_id: str, asked: Provider) -> NetworkSegment:
    physnet = asked.physical_network
    if asked.segmentation_id is not None:
        raise _invalid("provider:segmentation_id prohibited for flat provider network")
    if not physnet:
        raise _invalid("physical_network required for flat provider network")
    if not settings.flat_allowed(physnet):
        raise _invalid(f"physical_network '{physnet}' unknown for flat provider network")
    row = NetworkSegment(
        network_id=network_id, network_type="flat", physical_network=physnet,
        segmentation_id=FLAT_SEGMENTATION_ID,
    )  # fmt: skip
    if not inserted(session, row):
        raise errors.FlatNetworkInUse(physical_network=physnet)
    return row


def _vlan(session: Session, settings: Settings, network_id: str, asked: Provider) -> NetworkSegment:
    physnet, segid = asked.physical_network, asked.segmentation_id
    if physnet is None:
        if segid is not None:
            raise _invalid("segmentation_id requires physical_network for VLAN provider network")
        return _project_segment(session, settings, network_id)
    ranges = settings.ranges_of(physnet)
    if ranges is None:
        raise _invalid(f"physical_network '{physnet}' unknown for VLAN provider network")
    if segid is None:
        row = _allocate(session, network_id, physnet, ranges)
        if row is None:
            raise errors.NoNetworkAvailable()
        return row
    if not VLAN_MIN <= segid <= VLAN_MAX:
        raise _invalid(f"segmentation_id out of range ({VLAN_MIN} through {VLAN_MAX})")
    row = NetworkSegment(
        network_id=network_id, network_type="vlan", physical_network=physnet,
        segmentation_id=segid,
    )  # fmt: skip
    if not inserted(session, row):
        raise errors.VlanIdInUse(vlan_id=segid, physical_network=physnet)
    return row


def _project_segment(session: Session, settings: Settings, network_id: str) -> NetworkSegment:
    """ML2's tenant network allocation: only VLAN pools can hand out segments here."""
    if "vlan" in settings.tenant_network_types and "vlan" in settings.type_drivers:
        for physnet, ranges in settings.vlan_ranges:
            row = _allocate(session, network_id, physnet, ranges)
            if row is not None:
                return row
    raise errors.NoNetworkAvailable()


def _allocate(
    session: Session, network_id: str, physnet: str, ranges: tuple[tuple[int, int], ...]
) -> NetworkSegment | None:
    for _ in range(ATTEMPTS):
        used = set(
            session.scalars(
                sa.select(NetworkSegment.segmentation_id).where(
                    NetworkSegment.physical_network == physnet
                )
            )
        )
        free = [v for low, high in ranges for v in range(low, high + 1) if v not in used]
        if not free:
            return None
        row = NetworkSegment(
            network_id=network_id, network_type="vlan", physical_network=physnet,
            segmentation_id=random.choice(free[:SPREAD]),
        )  # fmt: skip
        if inserted(session, row):
            return row
    return None
