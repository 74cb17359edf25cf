"""POST/GET/HEAD/DELETE /v3/auth/tokens through the WSGI app."""

from __future__ import annotations

from tests.functional.identity.conftest import ADMIN_PASSWORD, Identity, password_auth


def test_version_documents(identity: Identity) -> None:
    root = identity.client.get("/")
    assert root.status_code == 300
    values = root.json["versions"]["values"]
    assert [v["status"] for v in values] == ["stable"]
    assert values[0]["id"].startswith("v3")
    assert values[0]["links"][0]["href"] == "http://localhost/v3/"
    assert values[0]["media-types"][0]["base"] == "application/json"
    v3 = identity.client.get("/v3")
    assert v3.status_code == 200
    assert v3.json["version"]["id"] == values[0]["id"]
    assert v3.headers["X-OpenStack-Request-ID"].startswith("req-")
    assert identity.client.get("/v3/").status_code == 200  # both spellings, no redirect


def test_project_scoped_token_body(identity: Identity) -> None:
    response = identity.client.post(
        "/v3/auth/tokens", json=password_auth("admin", ADMIN_PASSWORD, "admin")
    )
    assert response.status_code == 201
    token = response.json["token"]
    assert response.headers["X-Subject-Token"]
    assert token["methods"] == ["password"]
    assert token["user"]["name"] == "admin"
    assert token["user"]["domain"] == {"id": "default", "name": "Default"}
    assert token["project"]["name"] == "admin"
    assert token["project"]["domain"]["id"] == "default"
    assert token["is_domain"] is False
    assert {r["name"] for r in token["roles"]} == {"admin", "member", "reader"}
    assert token["expires_at"].endswith("Z") and token["issued_at"].endswith("Z")
    assert len(token["audit_ids"]) == 1
    types = {s["type"] for s in token["catalog"]}
    assert types == {"identity", "compute", "image", "network", "placement"}
    for service in token["catalog"]:
        interfaces = {e["interface"] for e in service["endpoints"]}
        assert interfaces == {"public", "internal", "admin"}
        for endpoint in service["endpoints"]:
            assert endpoint["region"] == endpoint["region_id"] == "RegionOne"


def test_scopes_system_domain_unscoped_and_by_id(identity: Identity) -> None:
    system = identity.client.post(
        "/v3/auth/tokens",
        json=password_auth("admin", ADMIN_PASSWORD, None, {"system": {"all": True}}),
    )
    assert system.status_code == 201
    assert system.json["token"]["system"] == {"all": True}
    unscoped = identity.client.post(
        "/v3/auth/tokens", json=password_auth("admin", ADMIN_PASSWORD, None)
    )
    assert unscoped.status_code == 201
    assert "project" not in unscoped.json["token"] and "catalog" not in unscoped.json["token"]
    by_id = password_auth(
        "admin", ADMIN_PASSWORD, None, {"project": {"id": identity.admin.project_id}}
    )
    by_id["auth"]["identity"]["password"]["user"] = {
        "id": identity.admin.user_id,
        "password": ADMIN_PASSWORD,
    }
    assert identity.client.post("/v3/auth/tokens", json=by_id).status_code == 201
    # admin has no role on the Default domain: Keystone answers 401.
    domain = identity.client.post(
        "/v3/auth/tokens",
        json=password_auth("admin", ADMIN_PASSWORD, None, {"domain": {"id": "default"}}),
    )
    assert domain.status_code == 401


def test_token_method_rescopes_and_keeps_expiry(identity: Identity) -> None:
    unscoped = identity.client.post(
        "/v3/auth/tokens", json=password_auth("demo", "demo-secret", None)
    )
    # demo has a default project with a role, so no scope means that project.
    assert unscoped.json["token"]["project"]["name"] == "demo"
    body = {
        "auth": {
            "identity": {
                "methods": ["token"],
                "token": {"id": unscoped.headers["X-Subject-Token"]},
            },
            "scope": {"project": {"name": "demo", "domain": {"id": "default"}}},
        }
    }
    rescoped = identity.client.post("/v3/auth/tokens", json=body)
    assert rescoped.status_code == 201
    token = rescoped.json["token"]
    assert token["expires_at"] == unscoped.json["token"]["expires_at"]
    assert token["audit_ids"][1] == unscoped.json["token"]["audit_ids"][0]
    assert token["methods"] == ["password", "token"]


def test_validate_head_and_revoke(identity: Identity) -> None:
    admin = identity.admin_token()
    demo = identity.demo_token()
    headers = {"X-Auth-Token": admin, "X-Subject-Token": demo}
    valid = identity.client.get("/v3/auth/tokens", headers=headers)
    assert valid.status_code == 200
    assert valid.json["token"]["user"]["name"] == "demo"
    assert valid.headers["X-Subject-Token"] == demo
    assert identity.client.head("/v3/auth/tokens", headers=headers).status_code == 200
    assert identity.client.delete("/v3/auth/tokens", headers=headers).status_code == 204
    gone = identity.client.get("/v3/auth/tokens", headers=headers)
    assert gone.status_code == 404
    assert gone.json["error"]["code"] == 404
    # The revoked token no longer authenticates its holder.
    own = identity.get("/v3/auth/projects", demo)
    assert own.status_code == 401
    assert own.json["error"]["message"] == "The request you have made requires authentication."
    assert own.headers["WWW-Authenticate"].startswith("Keystone uri=")


def test_subject_may_validate_own_token_but_not_others(identity: Identity) -> None:
    demo = identity.demo_token()
    admin = identity.admin_token()
    own = identity.client.get(
        "/v3/auth/tokens", headers={"X-Auth-Token": demo, "X-Subject-Token": demo}
    )
    assert own.status_code == 200
    other = identity.client.get(
        "/v3/auth/tokens", headers={"X-Auth-Token": demo, "X-Subject-Token": admin}
    )
    assert other.status_code == 403
    assert other.json["error"]["title"] == "Forbidden"


def test_auth_catalog_projects_domains_system(identity: Identity) -> None:
    demo = identity.demo_token()
    catalog = identity.get("/v3/auth/catalog", demo)
    assert {s["type"] for s in catalog.json["catalog"]} >= {"identity", "compute"}
    projects = identity.get("/v3/auth/projects", demo).json["projects"]
    assert [p["name"] for p in projects] == ["demo"]
    assert identity.get("/v3/auth/domains", demo).json["domains"] == []
    assert identity.get("/v3/auth/system", demo).json["system"] == []
    admin = identity.admin_token()
    assert identity.get("/v3/auth/system", admin).json["system"] == [{"all": True}]
