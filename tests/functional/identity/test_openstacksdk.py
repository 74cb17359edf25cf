"""Real clients (keystoneauth1, openstacksdk) against the identity app on a real port."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import openstack
import pytest
from keystoneauth1 import exceptions as ks_exceptions
from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v3
from openstack.identity.v3._proxy import Proxy as IdentityV3

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


def _v3(conn: openstack.connection.Connection) -> IdentityV3:
    """The connection's identity proxy, which the v3 catalog makes v3's."""
    proxy = conn.identity
    assert isinstance(proxy, IdentityV3), proxy
    return proxy


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
    compute = session.get_endpoint(service_type="compute", interface="public")
    assert compute is not None and compute.endswith(":8774"), compute
    access = auth.get_access(session)
    assert access.role_names is not None
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
    identity = _v3(conn)
    try:
        project = identity.create_project(name="sdk-project", domain_id="default")
        assert project.id and project.name == "sdk-project"
        user = identity.create_user(name="sdk-user", password="pw", domain_id="default")
        member = identity.find_role("member")
        assert member is not None
        identity.assign_project_role_to_user(project, user, member)
        assert identity.validate_user_has_project_role(project, user, member)
        names = {p.name for p in identity.projects()}
        assert {"admin", "demo", "sdk-project"} <= names
        assignments = list(identity.role_assignments(scope_project_id=project.id))
        assert [(a.user["id"], a.role["id"]) for a in assignments] == [(user.id, member.id)]
        services = {s.type for s in identity.services()}
        assert {"identity", "compute", "image", "network", "placement"} <= services
        user_conn = _connect(url, "sdk-user", "pw", "sdk-project")
        try:
            assert user_conn.authorize()
            with pytest.raises(openstack.exceptions.ForbiddenException):
                _v3(user_conn).create_project(name="nope", domain_id="default")
        finally:
            user_conn.close()
        identity.delete_project(project)
        assert identity.find_project("sdk-project") is None
    finally:
        conn.close()
