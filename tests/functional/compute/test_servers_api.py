"""/servers against the app in process, every body checked with tempest's schemas."""

from __future__ import annotations

from pathlib import Path

import pytest
from tempest.lib.api_schema.response.compute.v2_1 import servers as v21
from tempest.lib.api_schema.response.compute.v2_47 import servers as v247
from tempest.lib.api_schema.response.compute.v2_63 import servers as v263

from tests.functional.compute.servers_harness import IMAGE, Harness, check, make
from tests.wsgi import Client, JsonResponse

H21 = {"OpenStack-API-Version": "compute 2.1"}


@pytest.fixture
def harness(tmp_path: Path) -> Harness:
    return make(tmp_path)


def _create(client: Client, version: str = "2.1", **extra: object) -> JsonResponse:
    server = {"name": "vm", "imageRef": IMAGE, "flavorRef": "1", **extra}
    if version >= "2.37" and "networks" not in server:
        server["networks"] = "none"
    return client.post(
        "/v2.1/servers",
        json={"server": server},
        headers={"OpenStack-API-Version": f"compute {version}"},
    )


def test_create_show_list_delete_build_request(harness: Harness) -> None:
    client = harness.client()
    created = check(v21.create_server_with_admin_pass, _create(client))
    server_id = created["server"]["id"]
    assert [i.uuid for i in harness.recorder.builds[0]] == [server_id]
    shown = check(v21.get_server, client.get(f"/v2.1/servers/{server_id}", headers=H21))
    assert shown["server"]["status"] == "BUILD"
    listed = check(v21.list_servers, client.get("/v2.1/servers", headers=H21))
    assert [s["id"] for s in listed["servers"]] == [server_id]
    check(v21.list_servers_detail, client.get("/v2.1/servers/detail", headers=H21))
    assert client.delete(f"/v2.1/servers/{server_id}").status_code == 204
    missing = client.get(f"/v2.1/servers/{server_id}")
    assert missing.status_code == 404
    assert missing.json == {
        "itemNotFound": {"code": 404, "message": f"Instance {server_id} could not be found."}
    }


@pytest.mark.parametrize(("body", "word"), [
    ({"flavorRef": "nope"}, "Flavor nope could not be found."),
    ({"imageRef": "7c2b6e1e-0000-4000-8000-000000000000"}, "could not be found"),
    ({"key_name": "missing"}, "Invalid key_name provided."),
    ({"user_data": "!!notbase64"}, "valid base 64"),
    ({"availability_zone": "mars"}, "availability zone is not available"),
    ({"min_count": 3, "max_count": 2}, "min_count must be <= max_count"),
    ({"accessIPv6": "notvalid"}, "'notvalid' is not a 'ipv6'"),
    ({"accessIPv4": "1.2.3"}, "'1.2.3' is not a 'ipv4'"),
    ({"networks": [{"uuid": "a-b-c-d-e-f-g-h-i-j"}]}, "network uuid is not in proper format"),
    ({"networks": [{"port": "not-a-uuid"}]}, "field 'server/networks/0/port'"),
    ({"networks": [{"uuid": IMAGE, "fixed_ip": "10.0.0.300"}]}, "networks/0/fixed_ip"),
])  # fmt: skip
def test_create_bad_input_is_400(harness: Harness, body: dict[str, object], word: str) -> None:
    response = _create(harness.client(), "2.1", **body)
    assert response.status_code == 400, response.data
    assert word in response.json["badRequest"]["message"]


def test_networks_required_from_237(harness: Harness) -> None:
    client = harness.client()
    server = {"name": "vm", "imageRef": IMAGE, "flavorRef": "1"}
    response = client.post(
        "/v2.1/servers", json={"server": server}, headers={"OpenStack-API-Version": "compute 2.37"}
    )
    assert response.status_code == 400


def test_min_max_count_and_reservation_id(harness: Harness) -> None:
    client = harness.client()
    response = _create(client, min_count=2, max_count=3, return_reservation_id=True)
    assert response.status_code == 202
    reservation = response.json["reservation_id"]
    listed = client.get(f"/v2.1/servers?reservation_id={reservation}").json["servers"]
    assert sorted(s["name"] for s in listed) == ["vm-1", "vm-2", "vm-3"]


def test_quota_limits_instances(harness: Harness) -> None:
    admin = harness.client(admin=True)
    admin.put("/v2.1/os-quota-sets/p1", json={"quota_set": {"instances": 2}})
    client = harness.client()
    assert _create(client, min_count=1, max_count=5).status_code == 202
    assert len(client.get("/v2.1/servers").json["servers"]) == 2
    over = _create(client)
    assert over.status_code == 403, over.data


def test_other_project_gets_404(harness: Harness) -> None:
    server_id = _create(harness.client()).json["server"]["id"]
    assert harness.client(project="p2").get(f"/v2.1/servers/{server_id}").status_code == 404
    assert harness.client(project="p2").get("/v2.1/servers").json["servers"] == []


def test_actions_on_placed_server(harness: Harness) -> None:
    client = harness.client()
    server_id = _create(client).json["server"]["id"]
    harness.place(server_id)
    shown = check(
        v247.get_server,
        client.get(f"/v2.1/servers/{server_id}", headers={"OpenStack-API-Version": "compute 2.47"}),
    )
    assert shown["server"]["status"] == "ACTIVE"
    url = f"/v2.1/servers/{server_id}/action"
    assert client.post(url, json={"os-stop": None}).status_code == 202
    assert harness.recorder.casts[-1][:2] == ("host1", "stop_instance")
    again = client.post(url, json={"os-stop": None})
    assert again.status_code == 409
    assert "in task_state powering-off. Cannot stop" in again.json["conflictingRequest"]["message"]
    assert client.post(url, json={"reboot": {"type": "bad"}}).status_code == 400
    actions = client.get(f"/v2.1/servers/{server_id}/os-instance-actions").json
    assert [a["action"] for a in actions["instanceActions"]] == ["stop"]


def test_lock_reason_and_metadata_and_tags(harness: Harness) -> None:
    client = harness.client()
    server_id = _create(client).json["server"]["id"]
    harness.place(server_id)
    h273 = {"OpenStack-API-Version": "compute 2.64"}
    url = f"/v2.1/servers/{server_id}"
    assert client.post(f"{url}/action", json={"lock": None},
                       headers=h273).status_code == 202  # fmt: skip
    shown = check(v263.get_server, client.get(url, headers=h273))
    assert shown["server"]["locked"] is True
    assert client.post(f"{url}/action", json={"unlock": None}).status_code == 202
    put = client.put(f"{url}/metadata/k", json={"meta": {"k": "v"}})
    assert put.status_code == 200 and client.get(f"{url}/metadata").json == {"metadata": {"k": "v"}}
    tags = client.put(f"{url}/tags", json={"tags": ["a", "b"]}, headers=h273)
    assert tags.json == {"tags": ["a", "b"]}
    updated = check(v21.update_server, client.put(url, json={"server": {"name": "renamed"}}))
    assert updated["server"]["name"] == "renamed"
