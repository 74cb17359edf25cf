"""Every server shape at every version boundary up to MAX, checked with the
schema tempest itself holds for that version (the newest module at or below it)."""

from __future__ import annotations

import datetime as dt
import importlib
import uuid
from pathlib import Path
from typing import Any

import pytest
import tempest.lib.api_schema.response.compute as schemas_root
from sqlalchemy.orm import Session
from tempest.lib.api_schema.response.compute.v2_2 import keypairs as keypairs22
from tempest.lib.api_schema.response.compute.v2_53 import hypervisors as hyper253

from saphira.api.compute import microversion
from saphira.db.api.models import CellMapping, InstanceMapping
from saphira.db.cell import instances
from saphira.db.cell.models import ComputeNode, Service
from saphira.db.engine import make_engine
from tests.functional.compute.servers_harness import IMAGE, Harness, check, make
from tests.wsgi import Client

_ROOT = Path(schemas_root.__file__).parent
_SCHEMA_VERSIONS = sorted(
    (microversion.Version.parse(p.parent.name[1:].replace("_", ".")), p.parent.name)
    for p in _ROOT.glob("v2_*/servers.py")
)
BOUNDARIES = ["2.1", "2.3", "2.9", "2.16", "2.19", "2.26", "2.47", "2.54", "2.57", "2.58",
              "2.62", "2.63", "2.66", "2.71", "2.73", "2.75", "2.79", "2.84", "2.89", "2.90",
              "2.94", "2.96", "2.98", "2.99", str(microversion.MAX)]  # fmt: skip


def schema(version: str, name: str) -> dict[str, Any]:
    """tempest's schema ``name`` for ``version``: the newest module that defines it."""
    wanted = microversion.Version.parse(version)
    for found, module in reversed(_SCHEMA_VERSIONS):
        if found <= wanted:
            loaded = importlib.import_module(f"{schemas_root.__name__}.{module}.servers")
            if hasattr(loaded, name):
                return dict(getattr(loaded, name))
    raise LookupError(name)


@pytest.fixture
def harness(tmp_path: Path) -> Harness:
    return make(tmp_path)


def _headers(version: str) -> dict[str, str]:
    return {"OpenStack-API-Version": f"compute {version}"}


def _placed(harness: Harness, client: Client, version: str, **extra: Any) -> str:
    server = {"name": "vm", "imageRef": IMAGE, "flavorRef": "1", **extra}
    if microversion.Version.parse(version) >= microversion.Version(2, 37):
        server["networks"] = "none"
    created = client.post("/v2.1/servers", json={"server": server}, headers=_headers(version))
    assert created.status_code == 202, created.data
    server_id = str(created.json["server"]["id"])
    harness.place(server_id)
    return server_id


@pytest.mark.parametrize("version", [v for v in BOUNDARIES if microversion.Version.parse(v)
                                     <= microversion.MAX])  # fmt: skip
@pytest.mark.parametrize("admin", [False, True])
def test_server_shapes(harness: Harness, version: str, admin: bool) -> None:
    client = harness.client(admin=admin)
    h = _headers(version)
    server_id = _placed(harness, client, version)
    url = f"/v2.1/servers/{server_id}"
    shown = check(schema(version, "get_server"), client.get(url, headers=h))["server"]
    check(schema(version, "list_servers"), client.get("/v2.1/servers", headers=h))
    listed = check(schema(version, "list_servers_detail"),
                   client.get("/v2.1/servers/detail", headers=h))["servers"]  # fmt: skip
    assert listed[0]["id"] == server_id and shown["id"] == server_id
    check(schema(version, "update_server"),
          client.put(url, json={"server": {"name": "renamed"}}, headers=h))  # fmt: skip
    assert client.post(f"{url}/action", json={"lock": None}, headers=h).status_code == 202
    check(schema(version, "get_server"), client.get(url, headers=h))
    assert client.post(f"{url}/action", json={"unlock": None}, headers=h).status_code == 202
    if microversion.Version.parse(version) >= microversion.Version(2, 26):
        check(schema(version, "update_all_tags"),
              client.put(f"{url}/tags", json={"tags": ["a"]}, headers=h))  # fmt: skip
        check(schema(version, "list_tags"), client.get(f"{url}/tags", headers=h))
    actions = check(schema(version, "list_instance_actions"),
                    client.get(f"{url}/os-instance-actions", headers=h))  # fmt: skip
    request_id = actions["instanceActions"][0]["request_id"]
    check(schema(version, "show_instance_action"),
          client.get(f"{url}/os-instance-actions/{request_id}", headers=h))  # fmt: skip
    rebuilt = client.post(f"{url}/action", json={"rebuild": {"imageRef": IMAGE}}, headers=h)
    check(schema(version, "rebuild_server_with_admin_pass"), rebuilt)


def test_pinned_zone_and_hints_from_their_versions(harness: Harness) -> None:
    client = harness.client()
    hints = {"os:scheduler_hints": {"query": '["=", "$free_ram_mb", 1024]'}}
    server = {"name": "vm", "imageRef": IMAGE, "flavorRef": "1", "networks": "none",
              "availability_zone": "nova"}  # fmt: skip
    created = client.post("/v2.1/servers", json={"server": server, **hints},
                          headers=_headers("2.96"))  # fmt: skip
    server_id = created.json["server"]["id"]
    harness.place(server_id)
    url = f"/v2.1/servers/{server_id}"
    assert (
        "pinned_availability_zone" not in client.get(url, headers=_headers("2.95")).json["server"]
    )
    at_96 = client.get(url, headers=_headers("2.96")).json["server"]
    assert at_96["pinned_availability_zone"] == "nova" and "scheduler_hints" not in at_96
    if microversion.Version(2, 100) <= microversion.MAX:
        at_100 = check(schema("2.100", "get_server"), client.get(url, headers=_headers("2.100")))
        assert at_100["server"]["scheduler_hints"] == {"query": '["=", "$free_ram_mb", 1024]'}


def test_server_groups_only_in_show_update_rebuild(harness: Harness) -> None:
    client = harness.client()
    server_id = _placed(harness, client, "2.71")
    h = _headers("2.71")
    assert client.get(f"/v2.1/servers/{server_id}", headers=h).json["server"]["server_groups"] == []
    assert "server_groups" not in client.get("/v2.1/servers/detail", headers=h).json["servers"][0]
    updated = client.put(f"/v2.1/servers/{server_id}", json={"server": {"name": "x"}}, headers=h)
    assert updated.json["server"]["server_groups"] == []


def _host(harness: Harness, name: str = "host1") -> str:
    """A compute service and its node in cell1, as the agent would report them."""
    with Session(harness.state.api_engine) as api:
        cell = next(c for c in api.query(CellMapping) if c.name == "cell1")
        url = cell.database_connection
    node_uuid = str(uuid.uuid4())
    with Session(make_engine(url)) as session:
        service = Service(uuid=str(uuid.uuid4()), host=name, binary="nova-compute",
                          topic="compute", last_seen_up=dt.datetime.now(dt.UTC)
                          .replace(tzinfo=None))  # fmt: skip
        session.add(service)
        session.flush()
        session.add(ComputeNode(uuid=node_uuid, service_id=service.id, host=name,
                                hypervisor_hostname=f"{name}.example", hypervisor_type="fake",
                                vcpus=8, memory_mb=8192, local_gb=100))  # fmt: skip
        session.commit()
    return node_uuid


def test_hypervisors_drop_usage_at_288(harness: Harness) -> None:
    node = _host(harness)
    admin = harness.client(admin=True)
    for _ in range(2):  # running_vms counts the instances the node holds
        _placed(harness, harness.client(), "2.87")
    at_53 = check(hyper253.get_hypervisor,
                  admin.get(f"/v2.1/os-hypervisors/{node}", headers=_headers("2.87")))  # fmt: skip
    assert at_53["hypervisor"]["vcpus"] == 8 and "uptime" not in at_53["hypervisor"]
    assert at_53["hypervisor"]["running_vms"] == 2
    check(hyper253.list_hypervisors_detail,
          admin.get("/v2.1/os-hypervisors/detail", headers=_headers("2.87")))  # fmt: skip
    stats = admin.get("/v2.1/os-hypervisors/statistics", headers=_headers("2.87"))
    assert stats.json["hypervisor_statistics"]["memory_mb"] == 8192
    assert stats.json["hypervisor_statistics"]["running_vms"] == 2
    h = _headers("2.88")
    shown = admin.get(f"/v2.1/os-hypervisors/{node}", headers=h).json["hypervisor"]
    assert "vcpus" not in shown and "cpu_info" not in shown and "uptime" in shown
    assert shown["hypervisor_type"] == "fake" and shown["service"]["host"] == "host1"
    detail = admin.get("/v2.1/os-hypervisors/detail", headers=h).json["hypervisors"]
    assert [d["id"] for d in detail] == [node] and "memory_mb" not in detail[0]
    check(hyper253.list_search_hypervisors, admin.get("/v2.1/os-hypervisors", headers=h))
    assert admin.get("/v2.1/os-hypervisors/statistics", headers=h).status_code == 404


def test_keypairs_import_only_from_292(harness: Harness) -> None:
    client = harness.client()
    made = client.post("/v2.1/os-keypairs", json={"keypair": {"name": "gen"}},
                       headers=_headers("2.91"))  # fmt: skip
    assert made.status_code == 201 and "private_key" in made.json["keypair"]
    public = made.json["keypair"]["public_key"]
    h = _headers("2.92")
    refused = client.post("/v2.1/os-keypairs", json={"keypair": {"name": "gen2"}}, headers=h)
    assert refused.status_code == 400, refused.data
    imported = client.post("/v2.1/os-keypairs",
                           json={"keypair": {"name": "me@host.x", "public_key": public}},
                           headers=h)  # fmt: skip
    check(keypairs22.create_keypair, imported)
    assert "private_key" not in imported.json["keypair"]
    check(keypairs22.get_keypair, client.get("/v2.1/os-keypairs/me@host.x", headers=h))
    check(keypairs22.list_keypairs, client.get("/v2.1/os-keypairs", headers=h))


def test_instance_actions_paging_and_windows(harness: Harness) -> None:
    client = harness.client()
    server_id = _placed(harness, client, "2.58")
    url = f"/v2.1/servers/{server_id}"
    for key in ("lock", "unlock", "lock"):  # a client per request: one request id each
        assert harness.client().post(f"{url}/action", json={key: None}).status_code == 202
    h = _headers("2.66")
    actions = client.get(f"{url}/os-instance-actions", headers=h).json["instanceActions"]
    assert len(actions) == 3
    page = client.get(f"{url}/os-instance-actions?limit=2", headers=h).json
    assert len(page["instanceActions"]) == 2 and page["links"][0]["rel"] == "next"
    marker = page["instanceActions"][-1]["request_id"]
    rest = client.get(f"{url}/os-instance-actions?marker={marker}", headers=h).json
    assert len(rest["instanceActions"]) == 1
    future = "2999-01-01T00:00:00Z"
    later = client.get(f"{url}/os-instance-actions?changes-since={future}", headers=h).json
    assert later["instanceActions"] == []
    before = client.get(f"{url}/os-instance-actions?changes-before={future}", headers=h).json
    assert len(before["instanceActions"]) == 3
    bad = client.get(f"{url}/os-instance-actions?marker=nope", headers=h)
    assert bad.status_code == 400


def test_unknown_status_filter_is_400_from_238(harness: Harness) -> None:
    client = harness.client()
    _placed(harness, client, "2.38")
    for url in ("/v2.1/servers?status=nonsense", "/v2.1/servers/detail?status=nonsense"):
        assert client.get(url, headers=_headers("2.37")).json["servers"] == []
        refused = client.get(url, headers=_headers("2.38"))
        assert refused.status_code == 400, refused.data
    known = client.get("/v2.1/servers?status=ACTIVE&status=nonsense", headers=_headers("2.38"))
    assert len(known.json["servers"]) == 1


def test_deleted_servers_actions_from_221(harness: Harness) -> None:
    client = harness.client()
    server_id = _placed(harness, client, "2.21")
    assert client.delete(f"/v2.1/servers/{server_id}").status_code == 204
    with Session(harness.state.api_engine) as api:  # what the conductor does once it is gone
        cell = next(c for c in api.query(CellMapping) if c.name == "cell1")
        with Session(make_engine(cell.database_connection)) as session:
            instances.soft_delete(session, server_id)
            session.commit()
        api.query(InstanceMapping).filter_by(instance_uuid=server_id).update(
            {"queued_for_delete": True}
        )
        api.commit()
    url = f"/v2.1/servers/{server_id}/os-instance-actions"
    assert client.get(url, headers=_headers("2.20")).status_code == 404
    listed = client.get(url, headers=_headers("2.21"))
    assert listed.status_code == 200, listed.data
    actions = listed.json["instanceActions"]
    assert "delete" in [action["action"] for action in actions]
    shown = client.get(f"{url}/{actions[0]['request_id']}", headers=_headers("2.21"))
    assert shown.status_code == 200, shown.data
    assert client.get(f"/v2.1/servers/{server_id}", headers=_headers("2.21")).status_code == 404
