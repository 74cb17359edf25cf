"""Real clients (keystoneauth1, openstacksdk) against the identity app on a real port."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import openstack
import pytest
from keystoneauth1 import exceptions as ks_exceptions
from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v3

from saphira.identity.bootstrap import ServiceEndpoints, bootstrap
from tests.functional.identity.conftest import ADMIN_PASSWORD, Identity, endpoints, start_identity
from tests.functional.identity.server import serve


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Identity, str]]:
    identity = start_identity(tmp_path)
    with serve(identity.client.application) as url:
        catalog = {
            **endpoints(),
            "identity": ServiceEndpoints(f"{url}/v3", f"{url}/v3", f"{url}/v3"),
        }
        bootstrap(identity.backend, password=ADMIN_PASSWORD, endpoints=catalog)
        yield identity, url
    identity.backend.engine.dispose()


def _connect(url: str, user: str, password: str, project: str) -> openstack.connection.Connection:
    return openstack.connect(
        auth_url=f"{url}/v3",
        username=user,
        password=password,
        project_name=project,
        user_domain_name="Default",
        project_domain_name="Default",
        region_name="RegionOne",
        identity_interface="public",
    )


def test_keystoneauth_password_and_failure(served: tuple[Identity, str]) -> None:
    _identity, url = served
    auth = v3.Password(
        auth_url=f"{url}/v3",
        username="admin",
        password=ADMIN_PASSWORD,
        project_name="admin",
        user_domain_name="Default",
        project_domain_name="Default",
    )
    session = ks_session.Session(auth=auth)
    assert session.get_token()
    assert session.get_endpoint(service_type="compute", interface="public").endswith(":8774")
    access = auth.get_access(session)
    assert set(access.role_names) == {"admin", "member", "reader"}
    bad = v3.Password(
        auth_url=f"{url}/v3",
        username="admin",
        password="wrong",
        project_name="admin",
        user_domain_name="Default",
        project_domain_name="Default",
    )
    with pytest.raises(ks_exceptions.Unauthorized):
        ks_session.Session(auth=bad).get_token()


def test_openstacksdk_admin_workflow(served: tuple[Identity, str]) -> None:
    _identity, url = served
    conn = _connect(url, "admin", ADMIN_PASSWORD, "admin")
    try:
        project = conn.identity.create_project(name="sdk-project", domain_id="default")
        assert project.id and project.name == "sdk-project"
        user = conn.identity.create_user(name="sdk-user", password="pw", domain_id="default")
        member = conn.identity.find_role("member")
        conn.identity.assign_project_role_to_user(project, user, member)
        assert conn.identity.validate_user_has_project_role(project, user, member)
        names = {p.name for p in conn.identity.projects()}
        assert {"admin", "demo", "sdk-project"} <= names
        assignments = list(conn.identity.role_assignments(scope_project_id=project.id))
        assert [(a.user["id"], a.role["id"]) for a in assignments] == [(user.id, member.id)]
        services = {s.type for s in conn.identity.services()}
        assert {"identity", "compute", "image", "network", "placement"} <= services
        user_conn = _connect(url, "sdk-user", "pw", "sdk-project")
        try:
            assert user_conn.authorize()
            with pytest.raises(openstack.exceptions.ForbiddenException):
                user_conn.identity.create_project(name="nope", domain_id="default")
        finally:
            user_conn.close()
        conn.identity.delete_project(project)
        assert conn.identity.find_project("sdk-project") is None
    finally:
        conn.close()
