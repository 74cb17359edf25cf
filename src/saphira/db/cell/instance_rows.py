"""Rows <-> ``saphira.objects.Instance``: the one place that knows both shapes."""

from __future__ import annotations

import dataclasses
import enum
import functools
import json
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

import sqlalchemy as sa

from saphira.common import fastjson
from saphira.db.cell import models
from saphira.domain.states import PowerState, TaskState, VmState
from saphira.objects import Flavor, Instance, InstanceVIF
from saphira.objects.base import DATA, NAME, VERSION

# Columns copied as they are between the row and the object.
_SAME = (
    "uuid", "project_id", "user_id", "display_name", "display_description", "hostname",
    "image_ref", "host", "node", "launched_at", "terminated_at", "key_name", "key_data",
    "user_data", "availability_zone", "locked", "locked_by", "access_ip_v4", "access_ip_v6",
    "config_drive", "launch_index", "reservation_id", "progress",
)  # fmt: skip


# Every column to_object reads (all a listing selects).
READ = (*_SAME, "flavor", "vm_state", "task_state", "power_state", "system_metadata",
         "created_at", "updated_at", "id")  # fmt: skip


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
    if isinstance(row, models.Instance):
        kids = children_of(row) if kids is None else kids
        values: Mapping[Any, Any] = {name: getattr(row, name) for name in READ}
    else:  # a plain row's mapping reads a third as dearly as its attributes
        assert kids is not None, "a plain row comes with its children"
        values = row._mapping
    return Instance(
        flavor=_flavor(values["flavor"]),
        vm_state=_VM_STATES[values["vm_state"]],
        task_state=None if values["task_state"] is None else _TASK_STATES[values["task_state"]],
        power_state=_POWER_STATES[values["power_state"]],
        system_metadata=fastjson.loads(values["system_metadata"]),
        metadata=dict(kids.metadata),
        tags=sorted(kids.tags),
        created_at=values["created_at"],
        updated_at=values["updated_at"],
        network_info=_network_info(kids.network_info),
        id=values["id"],
        **{name: values[name] for name in _SAME},
    )


def from_columns(values: Sequence[Any], children: Children) -> Instance:
    """``to_object`` of a listing's row, whose first columns are READ's in that order: the
    fields are zipped from its tuple, not looked up by name one by one, and set as the
    object's attributes at once rather than passed through the dataclass's ``__init__``
    (a third of the conversion's time for a page of 1,000; ``LISTED`` is every field)."""
    fields: dict[str, Any] = dict(zip(READ, values, strict=False))
    task_state = fields["task_state"]
    fields["flavor"] = _flavor(fields["flavor"])
    fields["vm_state"] = _VM_STATES[fields["vm_state"]]
    fields["task_state"] = None if task_state is None else _TASK_STATES[task_state]
    fields["power_state"] = _POWER_STATES[fields["power_state"]]
    fields["system_metadata"] = fastjson.loads(fields["system_metadata"])
    fields["metadata"] = dict(children.metadata)
    fields["tags"] = sorted(children.tags)
    fields["network_info"] = _network_info(children.network_info)
    instance = Instance.__new__(Instance)
    instance.__dict__ = fields
    return instance


# What from_columns sets: every field of Instance, as it never runs __init__ (nor its
# defaults); tests/unit/db/test_instance_rows.py checks it still is.
LISTED = (*READ, "metadata", "tags", "network_info")


_E = TypeVar("_E", bound=enum.Enum)


class _ByValue(dict[object, _E]):
    """An enum's members by value: a dictionary lookup where calling the enum costs ten
    times as much; a value it does not know raises ValueError as the call would."""

    def __init__(self, kind: type[_E]) -> None:
        super().__init__((member.value, member) for member in kind)
        self.kind = kind

    def __missing__(self, value: object) -> _E:
        return self.kind(value)


_VM_STATES = _ByValue(VmState)
_TASK_STATES = _ByValue(TaskState)
_POWER_STATES = _ByValue(PowerState)


def network_info_text(vifs: list[InstanceVIF]) -> str:
    """The info cache column: the NICs' versioned primitives, readable by any 1.x."""
    return json.dumps([vif.to_primitive() for vif in vifs])


def _network_info(text: str | None) -> list[InstanceVIF]:
    if text is None:
        return []
    return [_vif(item) for item in fastjson.loads(text)]


_VIF_FIELDS = frozenset(f.name for f in dataclasses.fields(InstanceVIF) if f.init)
_VIF_MAJOR = InstanceVIF.VERSION.split(".")[0]


def _vif(item: dict[str, Any]) -> InstanceVIF:
    """``InstanceVIF.from_primitive(item)``, without following each field's type hint:
    every field is a JSON string, number, boolean, list of strings or null, which
    from_primitive keeps as json.loads made it; a listing of 1,000 servers spent
    a third of its time there. Another name or major version goes the slow way,
    which refuses it."""
    if item.get(NAME) != "InstanceVIF" or str(item.get(VERSION)).split(".")[0] != _VIF_MAJOR:
        return InstanceVIF.from_primitive(item)
    data = item[DATA]
    return InstanceVIF(**{name: value for name, value in data.items() if name in _VIF_FIELDS})


@functools.lru_cache(maxsize=256)
def _parsed_flavor(text: str) -> Flavor:
    return Flavor.from_primitive(json.loads(text))


def _flavor(text: str) -> Flavor:
    """The instance's flavor snapshot; a listing's servers share a few flavors, so each
    text is parsed once and every instance gets its own copy."""
    cached = _parsed_flavor(text)
    # A shallow copy as dataclasses.replace makes it (Flavor has no __post_init__ and no
    # slots), without re-running __init__ field by field: a quarter of the cost.
    flavor = Flavor.__new__(Flavor)
    flavor.__dict__.update(cached.__dict__)
    flavor.extra_specs = dict(cached.extra_specs)
    return flavor
