"""Identity through the real `openstack` CLI and openstacksdk against `saphira up`."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
import requests
from openstack import exceptions as sdk_exceptions

from tests.functional.clients import TIMEOUT, expired_token, sdk, sdk_password, validate
from tests.functional.cloud import Cloud

pytestmark = pytest.mark.functional
CATALOG_TYPES = {"identity", "compute", "image", "network", "placement"}


def _unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="module")
def admin_token(cloud: Cloud) -> dict[str, Any]:
    token: dict[str, Any] = cloud.openstack("token", "issue", "-f", "json")
    return token


def test_token_issue_is_project_scoped_and_valid(cloud: Cloud, admin_token: dict[str, Any]) -> None:
    assert admin_token["project_id"] and admin_token["user_id"] and admin_token["expires"]
    response = validate(cloud.url("identity"), admin_token["id"])
    assert response.status_code == 200
    body = response.json()["token"]
    assert body["project"]["name"] == "admin"
    assert "admin" in {role["name"] for role in body["roles"]}
    assert response.headers["X-OpenStack-Request-ID"].startswith("req-")


def test_catalog_lists_every_service_at_this_clouds_ports(cloud: Cloud) -> None:
    catalog = cloud.openstack("catalog", "list", "-f", "json")
    by_type = {entry["Type"]: json.dumps(entry["Endpoints"]) for entry in catalog}
    assert set(by_type) >= CATALOG_TYPES
    for kind in CATALOG_TYPES:
        assert cloud.url(kind) in by_type[kind], (kind, by_type[kind])
        for interface in ("public", "internal", "admin"):
            assert interface in by_type[kind]


def test_project_user_role_lifecycle_with_the_cli(cloud: Cloud) -> None:
    project, user, password = _unique("proj"), _unique("user"), _unique("pw")
    created = cloud.openstack("project", "create", "--description", "made by a test", project,
                              "-f", "json")  # fmt: skip
    assert cloud.openstack("project", "show", created["id"], "-f", "json")["name"] == project
    assert project in {p["Name"] for p in cloud.openstack("project", "list", "-f", "json")}
    new_user = cloud.openstack("user", "create", "--password", password, user, "-f", "json")
    cloud.openstack("role", "add", "--project", project, "--user", user, "member")
    assignments = cloud.openstack(
        "role", "assignment", "list", "--project", created["id"], "--names", "-f", "json"
    )
    assert [(a["Role"], a["User"]) for a in assignments] == [("member", f"{user}@Default")]

    as_user = sdk_password(cloud.url("identity"), user, password, project)
    assert as_user.current_user_id == new_user["id"]
    assert as_user.current_project_id == created["id"]

    cloud.openstack("project", "delete", created["id"])
    gone = cloud.openstack("project", "show", created["id"], check=False)
    assert gone.returncode != 0 and "No Project found" in gone.stderr


def test_revoked_token_gets_401(cloud: Cloud) -> None:
    token = sdk(cloud.clouds_yaml, "admin").auth_token
    assert validate(cloud.url("identity"), token).status_code == 200
    cloud.openstack("token", "revoke", token)
    response = requests.get(
        f"{cloud.url('identity')}/projects", headers={"X-Auth-Token": token}, timeout=TIMEOUT
    )
    assert response.status_code == 401
    assert response.json()["error"]["code"] == 401


def test_expired_token_gets_401(cloud: Cloud, admin_token: dict[str, Any]) -> None:
    token = expired_token(cloud.state_dir, admin_token["user_id"], admin_token["project_id"])
    fresh = admin_token["id"]
    assert validate(cloud.url("identity"), fresh, token).status_code == 404  # as Keystone says
    response = requests.get(
        f"{cloud.url('identity')}/projects", headers={"X-Auth-Token": token}, timeout=TIMEOUT
    )
    assert response.status_code == 401
    assert response.json()["error"]["code"] == 401


def test_member_sees_only_its_project_and_cannot_create_users(
    cloud: Cloud, admin_token: dict[str, Any]
) -> None:
    # The CLI falls back to the user's own projects when listing all is forbidden.
    listing = cloud.openstack("project", "list", "-f", "json", cloud="demo")
    assert [p["Name"] for p in listing] == ["demo"]
    creating = cloud.openstack("user", "create", "--password", "x", _unique("intruder"),
                               cloud="demo", check=False)  # fmt: skip
    assert creating.returncode != 0 and "403" in creating.stderr

    demo = sdk(cloud.clouds_yaml, "demo")
    everything = requests.get(
        f"{cloud.url('identity')}/projects", headers={"X-Auth-Token": demo.auth_token},
        timeout=TIMEOUT,
    )  # fmt: skip
    assert everything.status_code == 403
    assert demo.identity.get_project(demo.current_project_id).name == "demo"
    with pytest.raises(sdk_exceptions.ForbiddenException):
        demo.identity.get_project(admin_token["project_id"])


def test_reader_cannot_write(cloud: Cloud) -> None:
    admin = sdk(cloud.clouds_yaml, "admin")
    name, password = _unique("reader"), _unique("pw")
    project = admin.identity.find_project("demo", ignore_missing=False)
    user = admin.identity.create_user(name=name, password=password, domain_id="default")
    reader = admin.identity.find_role("reader", ignore_missing=False)
    admin.identity.assign_project_role_to_user(project, user, reader)

    as_reader = sdk_password(cloud.url("identity"), name, password, "demo")
    assert as_reader.identity.get_project(project.id).name == "demo"
    refused = _unique("nope")
    with pytest.raises(sdk_exceptions.ForbiddenException):
        as_reader.identity.create_project(name=refused, domain_id="default")
    with pytest.raises(sdk_exceptions.ForbiddenException):
        as_reader.identity.update_project(project.id, description="changed")
    assert admin.identity.find_project(refused, ignore_missing=True) is None


def test_log_lines_name_the_request_user_and_project(
    cloud: Cloud, admin_token: dict[str, Any]
) -> None:
    response = requests.get(
        f"{cloud.url('identity')}/projects",
        headers={"X-Auth-Token": admin_token["id"]},
        timeout=TIMEOUT,
    )
    assert response.status_code == 200
    request_id = response.headers["X-OpenStack-Request-ID"]
    who = f"[{request_id} {admin_token['user_id']} {admin_token['project_id']}]"
    lines = [line for line in cloud.log().splitlines() if who in line]
    assert lines, f"no log line names {who}"
    assert any("GET /v3/projects" in line for line in lines)


def test_service_users_ignore_the_lockout(cloud: Cloud) -> None:
    """Guessing a service user's password must not lock the services out."""
    token = sdk(cloud.clouds_yaml, "admin").auth_token
    found = requests.get(
        f"{cloud.url('identity')}/users?name=nova", headers={"X-Auth-Token": token}, timeout=TIMEOUT
    ).json()["users"]
    assert [u["options"] for u in found] == [{"ignore_lockout_failure_attempts": True}]
