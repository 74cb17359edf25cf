"""The compute app in process on SQLite cells, with the bus and the image
service replaced: casts are recorded, and a stand-in conductor can place a
build request into cell1 the way the real one does."""

from __future__ import annotations

import json
import os
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from oslo_config import cfg
from sqlalchemy.orm import Session
from tempest.lib.common.rest_client import RestClient

from saphira import conf as saphira_conf
from saphira.api.auth import CONTEXT_KEY
from saphira.api.compute import build_compute_app
from saphira.api.compute.state import ComputeState
from saphira.context import RequestContext
from saphira.db import cells
from saphira.db.api import build_requests
from saphira.db.api import cells as api_cells
from saphira.db.api.models import CellMapping, Flavor, InstanceMapping
from saphira.db.cell import instances
from saphira.db.engine import make_engine
from saphira.domain import transitions as tr
from saphira.domain.states import TaskState, VmState
from saphira.domain.table import Action
from saphira.exception import BadRequest
from saphira.objects import (
    BuildOrder,
    ConsoleEndpoint,
    ConsoleType,
    Instance,
    InstanceVIF,
    RequestSpec,
)
from saphira.objects import Flavor as FlavorObject
from tests.wsgi import Client, JsonResponse

IMAGE = "155d900f-4e14-4e4c-a73d-069cbf4541e6"


Sent = list[tuple[str, str, dict[str, Any]]]


class RecordedHosts:
    """The compute hosts as the API sees them (ComputeHosts): every cast recorded
    as (host, method, arguments); a console answers two lines."""

    def __init__(self, casts: Sent) -> None:
        self.casts = casts

    def _send(self, instance: Instance, method: str, **kwargs: Any) -> None:
        self.casts.append((instance.host or "", method, {"instance": instance, **kwargs}))

    def terminate_instance(self, ctxt: RequestContext, instance: Instance) -> None:
        self._send(instance, "terminate_instance")

    def start_instance(self, ctxt: RequestContext, instance: Instance) -> None:
        self._send(instance, "start_instance")

    def stop_instance(self, ctxt: RequestContext, instance: Instance) -> None:
        self._send(instance, "stop_instance")

    def reboot_instance(self, ctxt: RequestContext, instance: Instance, reboot_type: str) -> None:
        self._send(instance, "reboot_instance", reboot_type=reboot_type)

    def rebuild_instance(
        self,
        ctxt: RequestContext,
        instance: Instance,
        image_ref: str,
        image: dict[str, Any],
        *,
        admin_password: str | None = None,
        preserve_ephemeral: bool = False,
    ) -> None:
        self._send(
            instance,
            "rebuild_instance",
            image_ref=image_ref,
            image=image,
            admin_password=admin_password,
            preserve_ephemeral=preserve_ephemeral,
        )

    def pause_instance(self, ctxt: RequestContext, instance: Instance) -> None:
        self._send(instance, "pause_instance")

    def unpause_instance(self, ctxt: RequestContext, instance: Instance) -> None:
        self._send(instance, "unpause_instance")

    def suspend_instance(self, ctxt: RequestContext, instance: Instance) -> None:
        self._send(instance, "suspend_instance")

    def resume_instance(self, ctxt: RequestContext, instance: Instance) -> None:
        self._send(instance, "resume_instance")

    def confirm_resize(self, ctxt: RequestContext, instance: Instance) -> None:
        self._send(instance, "confirm_resize")

    def revert_resize(self, ctxt: RequestContext, instance: Instance) -> None:
        self._send(instance, "revert_resize")

    def snapshot_instance(self, ctxt: RequestContext, instance: Instance, image_id: str) -> None:
        self._send(instance, "snapshot_instance", image_id=image_id)

    def get_console_output(
        self, ctxt: RequestContext, instance: Instance, tail_length: int | None = None
    ) -> str:
        self._send(instance, "get_console_output", tail_length=tail_length)
        return "console line 1\nconsole line 2\n"

    def get_console_endpoint(
        self, ctxt: RequestContext, instance: Instance, console_type: ConsoleType
    ) -> ConsoleEndpoint:
        self._send(instance, "get_console_endpoint", console_type=console_type)
        return ConsoleEndpoint("127.0.0.1", 5900)

    def attach_interface(
        self,
        ctxt: RequestContext,
        instance: Instance,
        network_id: str | None = None,
        port_id: str | None = None,
        requested_ip: str | None = None,
        tag: str | None = None,
        *,
        timeout: float | None = None,
    ) -> InstanceVIF:
        self._send(instance, "attach_interface", network_id=network_id, port_id=port_id)
        raise BadRequest("no compute host in this harness")

    def detach_interface(self, ctxt: RequestContext, instance: Instance, port_id: str) -> None:
        self._send(instance, "detach_interface", port_id=port_id)

    def get_host_uptime(self, ctxt: RequestContext, host: str) -> str:
        self.casts.append((host, "get_host_uptime", {}))
        return "console line 1\nconsole line 2\n"

    def external_instance_event(
        self, ctxt: RequestContext, host: str, events: list[dict[str, Any]]
    ) -> None:
        self.casts.append((host, "external_instance_event", {"events": events}))


@dataclass
class Recorder:
    casts: Sent = field(default_factory=list)
    builds: list[list[Instance]] = field(default_factory=list)

    @property
    def compute(self) -> RecordedHosts:
        return RecordedHosts(self.casts)

    def schedule_and_build_instances(
        self, context: RequestContext, instances: list[Instance], orders: list[BuildOrder]
    ) -> None:
        self.builds.append(list(instances))

    def migrate_server(
        self, context: RequestContext, instance: Instance, flavor: FlavorObject, spec: RequestSpec
    ) -> None:
        self.casts.append(("conductor", "migrate_server", {"flavor": flavor.flavorid}))

    def evacuate_server(self, context: RequestContext, instance: Instance,
                        spec: RequestSpec) -> None:  # fmt: skip
        self.casts.append(("conductor", "evacuate_server", {"host": instance.host}))


class FakeImages:
    def __init__(self) -> None:
        self.images = {IMAGE: {"id": IMAGE, "status": "active", "size": 1024, "min_disk": 0,
                               "min_ram": 0, "disk_format": "qcow2"}}  # fmt: skip

    def get(self, token: str, image_id: str) -> dict[str, Any]:
        if image_id not in self.images:
            raise BadRequest(f"Image {image_id} could not be found.")
        return self.images[image_id]

    def create(self, token: str, body: dict[str, Any]) -> dict[str, Any]:
        image = {**body, "id": str(uuid.uuid4()), "status": "queued"}
        self.images[image["id"]] = image
        return image


class WithContext:
    def __init__(self, app: Any, context: RequestContext) -> None:
        self.app, self.context = app, context

    def __call__(self, environ: Any, start_response: Any) -> Any:
        environ[CONTEXT_KEY] = self.context
        return self.app(environ, start_response)


class _Resp:
    def __init__(self, response: JsonResponse) -> None:
        self.status = response.status_code
        self.headers = response.headers


def check(schema: dict[str, Any], response: JsonResponse) -> Any:
    body = json.loads(response.data) if response.data else None
    RestClient.validate_response(schema, _Resp(response), body)
    return body


@dataclass
class Harness:
    conf: cfg.ConfigOpts
    state: ComputeState
    recorder: Recorder

    def client(self, project: str = "p1", user: str = "u1", admin: bool = False) -> Client:
        roles = ("admin", "member", "reader") if admin else ("member", "reader")
        context = RequestContext(user_id=user, project_id=project, roles=roles,
                                 auth_token="t")  # fmt: skip
        return Client(WithContext(build_compute_app(self.state), context))

    def place(self, server_id: str, host: str = "host1") -> None:
        """What the conductor does: the cell row, the mapping, then ACTIVE."""
        with Session(self.state.api_engine) as api:
            instance = build_requests.get(api, server_id)
            assert instance is not None
            cell = next(c for c in api.query(CellMapping) if c.name == "cell1")
            instance.host, instance.node = host, f"{host}.example"
            with Session(make_engine(cell.database_connection)) as session:
                instances.create(session, instance)
                for step in (TaskState.SCHEDULING, TaskState.BLOCK_DEVICE_MAPPING,
                             TaskState.NETWORKING):  # fmt: skip
                    instances.apply(
                        session, server_id, tr.advance(Action.BUILD, VmState.BUILDING, step)
                    )
                instances.apply(session, server_id, tr.finish(Action.BUILD, VmState.BUILDING))
                import datetime as dt

                instances.update(session, server_id, launched_at=dt.datetime(2026, 1, 1))
                session.commit()
            api.query(InstanceMapping).filter_by(instance_uuid=server_id).update(
                {"cell_id": cell.id}
            )
            build_requests.delete(api, server_id)
            api.commit()


def make(tmp: Path) -> Harness:
    conf = saphira_conf.load(overrides={"DEFAULT": {
        "state_path": str(tmp / "state"), "transport_url": "inproc://"}})  # fmt: skip
    os.makedirs(tmp / "state", exist_ok=True)
    cells.api_db_sync(conf)
    api_cells.map_cell0(conf)
    api_cells.create_cell(conf, name="cell1")
    cells.db_sync(conf)
    state = ComputeState.from_conf(conf)
    recorder = Recorder()
    state.backend, state.images = recorder, FakeImages()
    with Session(state.api_engine) as session:
        session.add(Flavor(flavorid="1", name="m1.tiny", memory_mb=512, vcpus=1, root_gb=1))
        session.add(Flavor(flavorid="2", name="m1.small", memory_mb=2048, vcpus=1, root_gb=20))
        session.commit()
    return Harness(conf, state, recorder)
