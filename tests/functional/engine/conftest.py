"""A whole control plane in process: placement (served), the image service
(served), scheduler, conductor and fake compute hosts on a private
in-process bus, cells on SQLite, and the compute API driving it all.

``Plane.boot()`` plays the servers API by hand (build request, mapping,
spec, cast); ``Plane.api`` is the real compute app with a real token
middleware, its backend on the same private ``inproc://`` bus, so tests can
also go through HTTP (a werkzeug test client per call: thread-safe).
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import requests
from oslo_config import cfg

import saphira.conf
from saphira.api.auth import LocalValidator
from saphira.api.compute import build_app as build_compute_app
from saphira.api.image import build_app as build_image_app
from saphira.clients.image import ImageClient
from saphira.clients.network import NetworkClient
from saphira.clients.placement import PlacementClient
from saphira.compute.service import ComputeService
from saphira.conductor.service import ConductorService
from saphira.context import RequestContext
from saphira.db import cells
from saphira.db.api import build_requests
from saphira.db.api.models import InstanceMapping
from saphira.db.api.models import RequestSpec as SpecRow
from saphira.db.cell import instances
from saphira.db.image import make_image_engine
from saphira.db.image import sync as image_db_sync
from saphira.objects import BuildOrder, Flavor, Instance, RequestSpec
from saphira.rpc.rpcapi.conductor import ConductorAPI
from saphira.rpc.transport import get_rpc_transport
from saphira.scheduler import service as scheduler_service
from saphira.virt.fake import FakeDriver, FaultInjector
from tests.functional.identity.conftest import Identity
from tests.functional.identity.server import serve
from tests.functional.placement.conftest import start_placement
from tests.wsgi import Client, JsonResponse

FLAVOR = Flavor("1", "m1.tiny", vcpus=1, memory_mb=512, root_gb=1)
TINY = {"id": "1", "name": "m1.tiny", "vcpus": 1, "ram": 512, "disk": 1}
SMALL = {"id": "2", "name": "m1.small", "vcpus": 2, "ram": 1024, "disk": 2}
IMAGE_BYTES = b"saphira test image\n" * 64


@dataclass
class Api:
    """The compute API over WSGI with real tokens ("admin" or "demo")."""

    app: Any
    identity: Identity
    image_url: str
    tokens: dict[str, str] = field(default_factory=dict)
    image_id: str = ""

    def token(self, user: str) -> str:
        if user not in self.tokens:
            self.tokens[user] = (
                self.identity.admin_token() if user == "admin" else self.identity.demo_token()
            )
        return self.tokens[user]

    def project_id(self, user: str = "demo") -> str:
        result = self.identity.admin if user == "admin" else self.identity.demo
        return result.project_id

    def call(self, method: str, path: str, body: Any = None, user: str = "demo",
             version: str | None = None) -> JsonResponse:  # fmt: skip
        headers = {"X-Auth-Token": self.token(user)}
        if version:
            headers["OpenStack-API-Version"] = f"compute {version}"
        return Client(self.app).open(f"/v2.1{path}", method=method, json=body, headers=headers)

    def ok(self, method: str, path: str, body: Any = None, status: int = 200,
           **kw: Any) -> Any:  # fmt: skip
        response = self.call(method, path, body, **kw)
        assert response.status_code == status, (response.status_code, response.get_data(True))
        return response.get_json(silent=True)

    def create(self, name: str = "vm", flavor: str = "1", user: str = "demo",
               **extra: Any) -> JsonResponse:  # fmt: skip
        server = {"name": name, "flavorRef": flavor, "imageRef": self.image_id, **extra}
        return self.call("POST", "/servers", {"server": server}, user=user)

    def server(self, server_id: str, user: str = "demo") -> dict[str, Any]:
        body: dict[str, Any] = self.ok("GET", f"/servers/{server_id}", user=user)["server"]
        return body

    def action(self, server_id: str, body: dict[str, Any], user: str = "demo",
               version: str | None = None) -> JsonResponse:  # fmt: skip
        return self.call("POST", f"/servers/{server_id}/action", body, user=user, version=version)

    def wait(self, server_id: str, status: str, timeout: float = 20,
             user: str = "demo") -> dict[str, Any]:  # fmt: skip
        """The server once its status is ``status`` and no task runs; a test failure
        naming where it stopped otherwise."""
        deadline = time.monotonic() + timeout
        while True:
            shown = self.server(server_id, user)
            if shown["status"] == status and shown.get("OS-EXT-STS:task_state") is None:
                return shown
            if shown["status"] == "ERROR" and status != "ERROR":
                raise AssertionError(f"server went to ERROR: {shown.get('fault')}")
            if time.monotonic() > deadline:
                raise AssertionError(f"server {server_id} never got to {status}: {shown}")
            time.sleep(0.02)

    def wait_gone(self, server_id: str, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while self.call("GET", f"/servers/{server_id}", user="admin").status_code != 404:
            if time.monotonic() > deadline:
                raise AssertionError(f"server {server_id} never went away")
            time.sleep(0.02)

    def boot(self, name: str = "vm", flavor: str = "1", user: str = "demo") -> str:
        response = self.create(name, flavor, user)
        assert response.status_code == 202, response.get_data(True)
        server_id = str(response.get_json()["server"]["id"])
        self.wait(server_id, "ACTIVE", user=user)
        return server_id

    def actions(self, server_id: str, user: str = "admin") -> list[dict[str, Any]]:
        listed: list[dict[str, Any]] = self.ok(
            "GET", f"/servers/{server_id}/os-instance-actions", user=user
        )["instanceActions"]
        return listed

    def action_detail(self, server_id: str, request_id: str,
                      user: str = "admin") -> dict[str, Any]:  # fmt: skip
        path = f"/servers/{server_id}/os-instance-actions/{request_id}"
        body: dict[str, Any] = self.ok("GET", path, user=user, version="2.51")["instanceAction"]
        return body

    def image(self, image_id: str) -> dict[str, Any]:
        response = requests.get(f"{self.image_url}/v2/images/{image_id}", timeout=30,
                                headers={"X-Auth-Token": self.token("admin")})  # fmt: skip
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body

    def image_data(self, image_id: str) -> bytes:
        response = requests.get(f"{self.image_url}/v2/images/{image_id}/file", timeout=30,
                                headers={"X-Auth-Token": self.token("admin")})  # fmt: skip
        assert response.status_code == 200, response.text
        return response.content


@dataclass
class Plane:
    conf: cfg.ConfigOpts
    transport: Any
    placement: PlacementClient
    conductor: ConductorService
    faults: FaultInjector
    api: Api
    computes: dict[str, ComputeService] = field(default_factory=dict)
    drivers: dict[str, FakeDriver] = field(default_factory=dict)
    network: NetworkClient | None = None  # hosts added once it is set get NICs

    def add_host(self, host: str, delay: float = 0.0,
                 resources: tuple[int, int, int] = (8, 16384, 200)) -> ComputeService:  # fmt: skip
        driver = FakeDriver.fleet([host], self.faults, resources)[host]
        driver.delay = delay
        return self.add_driver(driver)

    def add_driver(self, driver: FakeDriver) -> ComputeService:
        host = driver.host
        images = ImageClient(self.api.image_url, lambda: self.api.token("admin"))
        service = ComputeService(
            self.conf, host, [driver], self.transport, self.placement, images=images,
            network=self.network,
        )  # fmt: skip
        service.start()
        self.computes[host] = service
        self.drivers[host] = driver
        cells.discover_hosts(self.conf)
        return service

    def boot(self, name: str = "vm") -> str:
        """What the servers API does: build request, mapping, spec, then the cast."""
        ctxt = RequestContext(project_id="p1", user_id="u1")
        instance = Instance(str(uuid.uuid4()), "p1", "u1", FLAVOR, display_name=name,
                            image_ref="img")  # fmt: skip
        spec = RequestSpec(instance.uuid, "p1", "u1", FLAVOR, image_ref="img")
        with self.conductor.dbs.api() as api:
            api.add(InstanceMapping(instance_uuid=instance.uuid, project_id="p1", user_id="u1"))
            api.add(SpecRow(instance_uuid=instance.uuid, spec=json.dumps(spec.to_primitive()),
                            vcpus=1, memory_mb=512))  # fmt: skip
            build_requests.create(api, instance)
        ConductorAPI(self.transport).schedule_and_build_instances(
            ctxt, [instance], [BuildOrder(spec)]
        )
        return instance.uuid

    def instance(self, uuid_: str) -> Instance:
        with self.conductor.dbs.instance_cell(uuid_) as session:
            return instances.get(session, uuid_, read_deleted=True)

    def wait(self, uuid_: str, done: Callable[[Instance], bool], timeout: float = 20) -> Instance:
        deadline = time.monotonic() + timeout
        while True:
            try:
                found = self.instance(uuid_)
                if done(found):
                    return found
            except Exception:
                found = None
            if time.monotonic() > deadline:
                raise AssertionError(f"instance {uuid_} never got there: {found}")
            time.sleep(0.02)

    def usages(self, host: str) -> dict[str, int]:
        """What placement counts as used on ``host``'s provider (one node per host)."""
        uuid_ = self.computes[host].manager.drivers[host].node
        provider = self.placement.ensure_provider(uuid_)
        return self.placement.usages(provider.uuid)

    def add_image(self, name: str) -> str:
        """Another active public image; its id."""
        return _image(self.api, name)

    def allocations(self, consumer: str) -> dict[str, dict[str, int]]:
        """Provider name -> resources held by ``consumer``."""
        held = self.placement.get_allocations(consumer).get("allocations", {})
        found = {}
        for rp, value in held.items():
            provider = self.placement.get_provider(rp)
            found[provider.name if provider else rp] = dict(value["resources"])
        return found


def _seed(api: Api) -> None:
    """Two flavors and an active public image, as the operator would make them."""
    for flavor in (TINY, SMALL):
        api.ok("POST", "/flavors", {"flavor": flavor}, user="admin")
    api.image_id = _image(api, "cirros")


def _image(api: Api, name: str) -> str:
    headers = {"X-Auth-Token": api.token("admin")}
    created = requests.post(f"{api.image_url}/v2/images", headers=headers, timeout=30, json={
        "name": name, "disk_format": "raw", "container_format": "bare",
        "visibility": "public"})  # fmt: skip
    assert created.status_code == 201, created.text
    image_id = str(created.json()["id"])
    uploaded = requests.put(
        f"{api.image_url}/v2/images/{image_id}/file", data=IMAGE_BYTES, timeout=30,
        headers={**headers, "Content-Type": "application/octet-stream"},
    )  # fmt: skip
    assert uploaded.status_code == 204, uploaded.text
    return image_id


@pytest.fixture
def plane(tmp_path: Path) -> Iterator[Plane]:
    placement = start_placement(tmp_path / "placement")
    conf = saphira.conf.load(
        overrides={
            "DEFAULT": {
                "state_path": str(tmp_path / "state"),
                "transport_url": f"inproc:///{uuid.uuid4().hex}",
                "host": "controller",
                "sync_power_state_interval": -1,
            },
            "scheduler": {"host_state_ttl": 0.0},
        }
    )
    cells.api_db_sync(conf)
    cells.map_cell0(conf)
    cells.create_cell(conf, name="cell1")
    cells.db_sync(conf)
    image_db_sync(make_image_engine(conf))
    validator = LocalValidator(placement.identity.backend)
    with serve(placement.app) as url, serve(build_image_app(conf, validator)) as image_url:
        conf.set_override("api_servers", [image_url], group="glance")
        api = Api(build_compute_app(conf, validator), placement.identity, image_url)
        _seed(api)
        client = PlacementClient(url, lambda: placement.token)
        transport = get_rpc_transport(conf)
        scheduler = scheduler_service.start(conf, client, transport=transport)
        conductor = ConductorService(conf, transport, client)
        conductor.start()
        plane = Plane(conf, transport, client, conductor, FaultInjector(), api)
        try:
            yield plane
        finally:
            # Each RPC server takes up to a second to stop: stop them all at once.
            services: list[Any] = [*plane.computes.values(), conductor, scheduler]
            with ThreadPoolExecutor(max_workers=len(services)) as pool:
                list(pool.map(lambda service: service.stop(), services))
            transport.cleanup()
