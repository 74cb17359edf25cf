"""CRUD with Keystone's shapes and status codes."""

from __future__ import annotations

from typing import Any

from tests.functional.identity.conftest import Identity, password_auth


def _create(identity: Identity, token: str, kind: str, body: dict[str, Any]) -> dict[str, Any]:
    response = identity.call("POST", f"/v3/{kind}s", token, json={kind: body})
    assert response.status_code == 201, response.get_data(as_text=True)
    created: dict[str, Any] = response.json[kind]
    assert created["links"]["self"].endswith(f"/v3/{kind}s/{created['id']}")
    return created


def test_project_lifecycle(identity: Identity) -> None:
    admin = identity.admin_token()
    project = _create(identity, admin, "project", {"name": "p1", "description": "one"})
    assert project["domain_id"] == "default"
    assert project["parent_id"] == "default"
    assert project["enabled"] is True and project["is_domain"] is False
    listed = identity.get("/v3/projects?name=p1", admin).json
    assert [p["id"] for p in listed["projects"]] == [project["id"]]
    assert "self" in listed["links"]
    top = identity.get("/v3/projects?parent_id=default&enabled=true", admin).json["projects"]
    assert {p["name"] for p in top} == {"admin", "demo", "p1"}
    patched = identity.call(
        "PATCH", f"/v3/projects/{project['id']}", admin, json={"project": {"enabled": False}}
    )
    assert patched.status_code == 200 and patched.json["project"]["enabled"] is False
    duplicate = identity.call("POST", "/v3/projects", admin, json={"project": {"name": "p1"}})
    assert duplicate.status_code == 409
    assert duplicate.json["error"]["title"] == "Conflict"
    assert identity.call("DELETE", f"/v3/projects/{project['id']}", admin).status_code == 204
    missing = identity.get(f"/v3/projects/{project['id']}", admin)
    assert missing.status_code == 404
    assert missing.json["error"]["message"] == f"Could not find project: {project['id']}."


def test_user_role_grant_and_login(identity: Identity) -> None:
    admin = identity.admin_token()
    project = _create(identity, admin, "project", {"name": "p2"})
    user = _create(identity, admin, "user", {"name": "alice", "password": "pw", "email": "a@x"})
    assert user["email"] == "a@x" and "password" not in user
    role = _create(identity, admin, "role", {"name": "observer"})
    assert role["domain_id"] is None
    member = identity.get("/v3/roles?name=member", admin).json["roles"][0]
    grant = f"/v3/projects/{project['id']}/users/{user['id']}/roles/{member['id']}"
    assert identity.call("HEAD", grant, admin).status_code == 404
    assert identity.call("PUT", grant, admin).status_code == 204
    assert identity.call("PUT", grant, admin).status_code == 204  # idempotent
    assert identity.call("HEAD", grant, admin).status_code == 204
    listed = identity.get(f"/v3/projects/{project['id']}/users/{user['id']}/roles", admin)
    assert [r["name"] for r in listed.json["roles"]] == ["member"]
    token = identity.token("alice", "pw", "p2")
    body = identity.get("/v3/auth/tokens", token, headers={"X-Subject-Token": token}).json
    assert {r["name"] for r in body["token"]["roles"]} == {"member", "reader"}
    assert identity.call("DELETE", grant, admin).status_code == 204
    assert identity.call("DELETE", grant, admin).status_code == 404
    # No role left on the project: the token is no longer valid there.
    assert identity.get("/v3/auth/projects", token).status_code == 401
    assert identity.call("DELETE", f"/v3/roles/{role['id']}", admin).status_code == 204


def test_role_assignments_filters(identity: Identity) -> None:
    admin = identity.admin_token()
    url = f"/v3/role_assignments?scope.project.id={identity.demo.project_id}"
    direct = identity.get(url, admin).json["role_assignments"]
    assert [(a["user"]["id"], a["role"]["id"]) for a in direct] == [
        (identity.demo.user_id, identity.demo.role_id)
    ]
    assert direct[0]["scope"] == {"project": {"id": identity.demo.project_id}}
    assert direct[0]["links"]["assignment"].endswith(
        f"/v3/projects/{identity.demo.project_id}/users/{identity.demo.user_id}"
        f"/roles/{identity.demo.role_id}"
    )
    effective = identity.get(f"{url}&effective&include_names=true", admin).json
    names = sorted(a["role"]["name"] for a in effective["role_assignments"])
    assert names == ["member", "reader"]
    assert effective["role_assignments"][0]["user"]["name"] == "demo"
    system = identity.get(f"/v3/role_assignments?user.id={identity.admin.user_id}", admin).json
    scopes = [a["scope"] for a in system["role_assignments"]]
    assert {"system": {"all": True}} in scopes
    by_role = identity.get(f"/v3/role_assignments?role.id={identity.demo.role_id}", admin).json
    roles = [a["role"]["id"] for a in by_role["role_assignments"]]
    assert roles and set(roles) == {identity.demo.role_id}, roles


def test_system_and_domain_grants(identity: Identity) -> None:
    admin = identity.admin_token()
    reader = identity.get("/v3/roles?name=reader", admin).json["roles"][0]["id"]
    user = identity.demo.user_id
    system = f"/v3/system/users/{user}/roles/{reader}"
    assert identity.call("PUT", system, admin).status_code == 204
    assert identity.call("GET", system, admin).status_code == 204
    listed = identity.get(f"/v3/system/users/{user}/roles", admin).json["roles"]
    assert [r["id"] for r in listed] == [reader]
    domain = f"/v3/domains/default/users/{user}/roles/{reader}"
    assert identity.call("PUT", domain, admin).status_code == 204
    token = identity.token("demo", "demo-secret", None, {"domain": {"name": "Default"}})
    assert identity.get("/v3/auth/domains", token).json["domains"][0]["id"] == "default"
    assert identity.call("DELETE", system, admin).status_code == 204


def test_domains(identity: Identity) -> None:
    admin = identity.admin_token()
    domain = _create(identity, admin, "domain", {"name": "d1", "description": "x"})
    project = _create(identity, admin, "project", {"name": "p", "domain_id": domain["id"]})
    assert project["parent_id"] == domain["id"]
    assert identity.call("DELETE", f"/v3/domains/{domain['id']}", admin).status_code == 403
    disabled = {"domain": {"enabled": False}}
    patched = identity.call("PATCH", f"/v3/domains/{domain['id']}", admin, json=disabled)
    assert patched.status_code == 200
    assert identity.call("DELETE", f"/v3/projects/{project['id']}", admin).status_code == 204
    assert identity.call("DELETE", f"/v3/domains/{domain['id']}", admin).status_code == 204


def test_services_endpoints_regions(identity: Identity) -> None:
    admin = identity.admin_token()
    region = _create(identity, admin, "region", {"id": "RegionTwo", "description": "2"})
    assert region["id"] == "RegionTwo"
    service = _create(identity, admin, "service", {"type": "volumev3", "name": "cinder"})
    endpoint = _create(
        identity,
        admin,
        "endpoint",
        {
            "service_id": service["id"],
            "interface": "public",
            "url": "http://x:8776/v3",
            "region": "RegionTwo",
        },
    )
    assert endpoint["region"] == endpoint["region_id"] == "RegionTwo"
    found = identity.get(f"/v3/endpoints?service_id={service['id']}&interface=public", admin)
    assert [e["id"] for e in found.json["endpoints"]] == [endpoint["id"]]
    by_region = identity.get("/v3/endpoints?region_id=RegionOne", admin).json["endpoints"]
    assert len(by_region) == 15
    patched = identity.call(
        "PATCH", f"/v3/endpoints/{endpoint['id']}", admin, json={"endpoint": {"enabled": False}}
    )
    assert patched.json["endpoint"]["enabled"] is False
    bad = identity.call(
        "POST",
        "/v3/endpoints",
        admin,
        json={"endpoint": {"service_id": "nope", "interface": "public", "url": "http://x"}},
    )
    assert bad.status_code == 404
    assert identity.call("DELETE", f"/v3/services/{service['id']}", admin).status_code == 204
    assert identity.get(f"/v3/endpoints/{endpoint['id']}", admin).status_code == 404
    assert identity.call("DELETE", "/v3/regions/RegionTwo", admin).status_code == 204


def test_region_by_put_and_endpoint_region_made_on_demand(identity: Identity) -> None:
    """PUT /v3/regions/{id} names the region; an endpoint's v2-era "region" is made if
    missing (Keystone's compatibility), while an unknown region_id stays a 404."""
    admin = identity.admin_token()
    made = identity.call("PUT", "/v3/regions/RegionPut", admin, json={"region": {}})
    assert made.status_code == 201 and made.json["region"]["id"] == "RegionPut"
    assert (
        identity.call("PUT", "/v3/regions/RegionPut", admin, json={"region": {}}).status_code == 409
    )
    clash = {"region": {"id": "Other"}}
    assert identity.call("PUT", "/v3/regions/RegionX", admin, json=clash).status_code == 400
    assert identity.get("/v3/regions/RegionX", admin).status_code == 404
    service = _create(identity, admin, "service", {"type": "volumev3"})
    base = {"service_id": service["id"], "interface": "public", "url": "http://x:8776/v3"}
    endpoint = _create(identity, admin, "endpoint", {**base, "region": "RegionNew"})
    assert endpoint["region_id"] == "RegionNew"
    assert identity.get("/v3/regions/RegionNew", admin).status_code == 200
    unknown = {"endpoint": {**base, "region_id": "RegionNope"}}
    assert identity.call("POST", "/v3/endpoints", admin, json=unknown).status_code == 404


def test_self_service_password_change(identity: Identity) -> None:
    token = identity.demo_token()
    user = identity.demo.user_id
    wrong = {"user": {"password": "new", "original_password": "wrong"}}
    url = f"/v3/users/{user}/password"
    assert identity.call("POST", url, token, json=wrong).status_code == 401
    right = {"user": {"password": "new-secret", "original_password": "demo-secret"}}
    assert identity.call("POST", url, token, json=right).status_code == 204
    # Keystone revokes the user's tokens when the password changes.
    assert identity.get("/v3/auth/projects", token).status_code == 401
    old = identity.client.post("/v3/auth/tokens", json=password_auth("demo", "demo-secret"))
    assert old.status_code == 401
    identity.token("demo", "new-secret", "demo")
