"""Policy: a member sees only its project and itself; a reader cannot write."""

from __future__ import annotations

import pytest

from saphira.identity.bootstrap import ensure_project_user
from tests.functional.identity.conftest import Identity

WRITES = [
    ("POST", "/v3/users", {"user": {"name": "eve", "password": "x"}}),
    ("POST", "/v3/projects", {"project": {"name": "evil"}}),
    ("POST", "/v3/roles", {"role": {"name": "evil"}}),
    ("POST", "/v3/domains", {"domain": {"name": "evil"}}),
    ("POST", "/v3/services", {"service": {"type": "evil"}}),
    ("POST", "/v3/regions", {"region": {"id": "evil"}}),
]


@pytest.mark.parametrize(("method", "path", "body"), WRITES)
def test_member_cannot_create(identity: Identity, method: str, path: str, body: object) -> None:
    response = identity.call(method, path, identity.demo_token(), json=body)
    assert response.status_code == 403
    assert response.json["error"]["code"] == 403
    assert identity.get(path, identity.admin_token()).status_code == 200


def test_member_sees_own_project_only(identity: Identity) -> None:
    token = identity.demo_token()
    own = identity.get(f"/v3/projects/{identity.demo.project_id}", token)
    assert own.status_code == 200 and own.json["project"]["name"] == "demo"
    assert identity.get(f"/v3/projects/{identity.admin.project_id}", token).status_code == 403
    assert identity.get("/v3/projects", token).status_code == 403
    assert identity.get("/v3/users", token).status_code == 403
    assert identity.get(f"/v3/users/{identity.demo.user_id}", token).status_code == 200
    assert identity.get(f"/v3/users/{identity.admin.user_id}", token).status_code == 403
    mine = identity.get(f"/v3/users/{identity.demo.user_id}/projects", token).json["projects"]
    assert [p["name"] for p in mine] == ["demo"]
    other = f"/v3/role_assignments?scope.project.id={identity.admin.project_id}"
    assert identity.get(other, token).status_code == 403
    ours = f"/v3/role_assignments?scope.project.id={identity.demo.project_id}"
    assert identity.get(ours, token).status_code == 200


def test_member_sees_its_projects_domain_only(identity: Identity) -> None:
    """Keystone's get_domain: a project-scoped token may read its project's domain."""
    admin = identity.admin_token()
    other = identity.call("POST", "/v3/domains", admin, json={"domain": {"name": "other"}})
    token = identity.demo_token()
    assert identity.get("/v3/domains/default", token).json["domain"]["id"] == "default"
    assert identity.get(f"/v3/domains/{other.json['domain']['id']}", token).status_code == 403
    assert identity.get("/v3/domains", token).status_code == 403


def test_member_of_a_cannot_touch_b(identity: Identity) -> None:
    b = ensure_project_user(identity.backend, project_name="b", username="bob", password="pw")
    token = identity.demo_token()
    assert identity.get(f"/v3/projects/{b.project_id}", token).status_code == 403
    grant = f"/v3/projects/{b.project_id}/users/{identity.demo.user_id}/roles/{b.role_id}"
    assert identity.call("PUT", grant, token).status_code == 403
    assert identity.call("DELETE", f"/v3/projects/{b.project_id}", token).status_code == 403
    # A member cannot scope a token to a project it has no role on.
    from tests.functional.identity.conftest import password_auth

    body = password_auth("demo", "demo-secret", "b")
    assert identity.client.post("/v3/auth/tokens", json=body).status_code == 401


def test_reader_cannot_write(identity: Identity) -> None:
    r = ensure_project_user(
        identity.backend,
        project_name="demo",
        username="rita",
        password="pw",
        role_name="reader",
    )
    token = identity.token("rita", "pw", "demo")
    assert identity.get(f"/v3/projects/{r.project_id}", token).status_code == 200
    patch = {"project": {"description": "changed"}}
    assert (
        identity.call("PATCH", f"/v3/projects/{r.project_id}", token, json=patch).status_code == 403
    )
    grant = f"/v3/projects/{r.project_id}/users/{r.user_id}/roles/{identity.admin.role_id}"
    assert identity.call("PUT", grant, token).status_code == 403
    admin = identity.admin_token()
    project = identity.get(f"/v3/projects/{r.project_id}", admin).json["project"]
    assert project["description"] == ""
