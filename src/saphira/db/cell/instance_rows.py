"""Rows <-> ``saphira.objects.Instance``: the one place that knows both shapes."""

from __future__ import annotations

import dataclasses
import functools
import json
from typing import Any

import sqlalchemy as sa

from saphira.db.cell import models
from saphira.domain.states import PowerState, TaskState, VmState
from saphira.objects import Flavor, Instance, InstanceVIF

# Columns copied as they are between the row and the object.
_SAME = (
    "uuid", "project_id", "user_id", "display_name", "display_description", "hostname",
    "image_ref", "host", "node", "launched_at", "terminated_at", "key_name", "key_data",
    "user_data", "availability_zone", "locked", "locked_by", "access_ip_v4", "access_ip_v6",
    "config_drive", "launch_index", "reservation_id", "progress",
)  # fmt: skip


def to_row(instance: Instance) -> models.Instance:
    flavor = instance.flavor
    row = models.Instance(
        vm_state=instance.vm_state.value,
        task_state=None if instance.task_state is None else instance.task_state.value,
        power_state=int(instance.power_state),
        flavor=json.dumps(flavor.to_primitive()),
        flavorid=flavor.flavorid,
        vcpus=flavor.vcpus,
        memory_mb=flavor.memory_mb,
        root_gb=flavor.root_gb,
        ephemeral_gb=flavor.ephemeral_gb,
        system_metadata=json.dumps(instance.system_metadata),
        **{name: getattr(instance, name) for name in _SAME},
    )
    return row


@dataclasses.dataclass(frozen=True)
class Children:
    """An instance's metadata, tags and info cache text, read beside its row."""

    metadata: dict[str, str]
    tags: list[str]
    network_info: str | None  # the info cache's JSON text; None: no cache row


def children_of(row: models.Instance) -> Children:
    """From the row's relationships (loaded for a listing's rows at once)."""
    cache = row.info_cache
    return Children(
        {item.key: item.value for item in row.metadata_items},
        [tag.tag for tag in row.tags],
        None if cache is None else cache.network_info,
    )


def to_object(
    row: models.Instance | sa.Row[*tuple[Any, ...]], children: Children | None = None
) -> Instance:
    """The object of a row (an entity, or a listing's plain row with ``children``), with
    ``children`` (else the entity's relationships)."""
    kids = children
    if kids is None:
        assert isinstance(row, models.Instance), "a plain row comes with its children"
        kids = children_of(row)
    return Instance(
        flavor=_flavor(row.flavor),
        vm_state=VmState(row.vm_state),
        task_state=None if row.task_state is None else TaskState(row.task_state),
        power_state=PowerState(row.power_state),
        system_metadata=json.loads(row.system_metadata),
        metadata=dict(kids.metadata),
        tags=sorted(kids.tags),
        created_at=row.created_at,
        updated_at=row.updated_at,
        network_info=_network_info(kids.network_info),
        id=row.id,
        **{name: getattr(row, name) for name in _SAME},
    )


def network_info_text(vifs: list[InstanceVIF]) -> str:
    """The info cache column: the NICs' versioned primitives, readable by any 1.x."""
    return json.dumps([vif.to_primitive() for vif in vifs])


def _network_info(text: str | None) -> list[InstanceVIF]:
    if text is None:
        return []
    return [InstanceVIF.from_primitive(item) for item in json.loads(text)]


@functools.lru_cache(maxsize=256)
def _parsed_flavor(text: str) -> Flavor:
    return Flavor.from_primitive(json.loads(text))


def _flavor(text: str) -> Flavor:
    """The instance's flavor snapshot; a listing's servers share a few flavors, so each
    text is parsed once and every instance gets its own copy."""
    cached = _parsed_flavor(text)
    return dataclasses.replace(cached, extra_specs=dict(cached.extra_specs))
