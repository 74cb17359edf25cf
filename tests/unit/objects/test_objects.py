"""Every object survives JSON both ways; versions are checked as promised."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from typing import Any

import pytest

from saphira import objects
from saphira.domain.states import PowerState, TaskState, VmState
from saphira.objects.base import DATA, NAME, VERSION, IncompatibleVersion

NOW = dt.datetime(2024, 5, 6, 7, 8, 9, 123456)
FLAVOR = objects.Flavor("42", "m1.tiny", 1, 512, 1, 2, 1024, extra_specs={"hw:cpu": "x"}, id=7)
VIF = objects.InstanceVIF(
    "port-1", "fa:16:3e:00:00:01", "net-1", "private", ["10.0.0.5"], "ovs", "br-physnet1", 1450,
    active=True, preserve_on_delete=True,
)  # fmt: skip
SAMPLES: list[objects.SaphiraObject] = [
    FLAVOR,
    objects.Instance(
        "u-1",
        "p",
        "usr",
        FLAVOR,
        display_name="vm",
        vm_state=VmState.ACTIVE,
        task_state=None,
        power_state=PowerState.RUNNING,
        launched_at=NOW,
        metadata={"a": "b"},
        tags=["t1"],
        locked=True,
        locked_by="owner",
        key_data="ssh-ed25519 AAA",
        network_info=[VIF],
        id=255,
    ),
    objects.RequestSpec(
        "u-1", "p", "usr", FLAVOR, scheduler_hints={"group": ["g"]}, ignore_hosts=["h1"]
    ),
    objects.InstanceFault("u-1", 500, "No valid host", "h1: RamFilter", "h1", NOW),
    objects.InstanceAction(
        "req-1",
        "u-1",
        "create",
        "p",
        "usr",
        NOW,
        events=[
            objects.InstanceActionEvent(
                "compute__do_build_and_run_instance", NOW, NOW, "Success", host="h1"
            )
        ],
    ),
    objects.ComputeNode("cn-1", "h1", "h1.example", vcpus=8, cpu_allocation_ratio=16.0),
    objects.Service("s-1", "h1", "nova-compute", "compute", last_seen_up=NOW, forced_down=True),
    objects.Selection("h1", "h1", "cn-1", "cell-1", {"cn-1": {"VCPU": 1, "MEMORY_MB": 512}}),
]


def _wire(obj: objects.SaphiraObject) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(json.dumps(obj.to_primitive()))
    return result


@pytest.mark.parametrize("obj", SAMPLES, ids=lambda o: type(o).__name__)
def test_round_trip_through_json(obj: objects.SaphiraObject) -> None:
    back = type(obj).from_primitive(_wire(obj))
    assert back == obj
    assert objects.from_primitive(_wire(obj)) == obj


def test_registry_holds_every_exported_class() -> None:
    assert {type(o).__name__ for o in SAMPLES} <= set(objects.registry())


def test_types_come_back_typed() -> None:
    inst = SAMPLES[1]
    assert isinstance(inst, objects.Instance)
    back = objects.Instance.from_primitive(_wire(inst))
    assert back.vm_state is VmState.ACTIVE and back.power_state is PowerState.RUNNING
    assert back.launched_at == NOW and isinstance(back.flavor, objects.Flavor)
    assert back.status == "ACTIVE" and back.name == f"instance-{back.uuid}"
    unsaved = dataclasses.replace(back, id=None, task_state=TaskState.REBOOTING_HARD)
    assert unsaved.name == "instance-u-1" and unsaved.status == "HARD_REBOOT"


def test_a_newer_minor_is_read_and_its_new_fields_dropped() -> None:
    wire = _wire(FLAVOR)
    wire[VERSION] = "1.7"
    wire[DATA]["future_field"] = 1
    del wire[DATA]["description"]
    assert objects.Flavor.from_primitive(wire) == FLAVOR


def test_another_major_or_name_is_refused() -> None:
    wire = _wire(FLAVOR)
    wire[VERSION] = "2.0"
    with pytest.raises(IncompatibleVersion, match=r"Flavor 2\.0"):
        objects.Flavor.from_primitive(wire)
    with pytest.raises(ValueError, match="expected a Instance"):
        objects.Instance.from_primitive(_wire(FLAVOR))
    with pytest.raises(ValueError, match="unknown object"):
        objects.from_primitive({NAME: "Nope", VERSION: "1.0", DATA: {}})


def test_resources_follow_the_flavor() -> None:
    spec = objects.RequestSpec("u", "p", "usr", FLAVOR, is_bfv=True)
    assert FLAVOR.resources() == {"VCPU": 1, "MEMORY_MB": 512, "DISK_GB": 4}
    assert spec.resources() == {"VCPU": 1, "MEMORY_MB": 512, "DISK_GB": 3}
