"""An instance: the record every service passes around, one per server."""

from __future__ import annotations

import dataclasses
import datetime as dt

from saphira.domain.states import PowerState, TaskState, VmState
from saphira.domain.status import status_from_state
from saphira.objects.base import SaphiraObject
from saphira.objects.flavor import Flavor
from saphira.objects.network_info import InstanceVIF


@dataclasses.dataclass
class Instance(SaphiraObject):
    """1.1: network_info (the info cache)."""

    VERSION = "1.1"

    uuid: str
    project_id: str
    user_id: str
    flavor: Flavor
    display_name: str = ""
    display_description: str | None = None
    hostname: str = ""
    image_ref: str = ""
    host: str | None = None
    node: str | None = None
    vm_state: VmState = VmState.BUILDING
    task_state: TaskState | None = TaskState.SCHEDULING
    power_state: PowerState = PowerState.NOSTATE
    launched_at: dt.datetime | None = None
    terminated_at: dt.datetime | None = None
    created_at: dt.datetime | None = None
    updated_at: dt.datetime | None = None
    metadata: dict[str, str] = dataclasses.field(default_factory=dict)
    system_metadata: dict[str, str] = dataclasses.field(default_factory=dict)
    tags: list[str] = dataclasses.field(default_factory=list)
    key_name: str | None = None
    key_data: str | None = None
    user_data: str | None = None
    availability_zone: str | None = None
    locked: bool = False
    locked_by: str | None = None  # "owner" or "admin", as Nova records it
    access_ip_v4: str | None = None
    access_ip_v6: str | None = None
    config_drive: str = ""
    launch_index: int = 0
    reservation_id: str = ""
    progress: int = 0
    network_info: list[InstanceVIF] = dataclasses.field(default_factory=list)
    id: int | None = None

    @property
    def name(self) -> str:
        """The hypervisor-side name: Nova's ``instance_name_template`` set to
        ``instance-%(uuid)s``, not its ``instance-%08x`` default, because row ids
        repeat across clouds and several clouds (CI jobs, tests) may share one
        libvirtd, whose domain names must be unique."""
        return f"instance-{self.uuid}"

    @property
    def status(self) -> str:
        return status_from_state(self.vm_state, self.task_state)

    @property
    def launched(self) -> bool:
        return self.launched_at is not None
