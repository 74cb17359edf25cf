"""A member reaches only what its project may see: another project's server
group or private flavor named in a create does not exist for it. Who "may see
everything" is the context_is_admin policy rule, decided where the token is
validated, so a policy.yaml that narrows it narrows every such decision."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
import yaml

from saphira.api.auth import AuthTokenMiddleware, ValidatedToken, from_conf
from saphira.api.compute import build_compute_app
from saphira.context import RequestContext
from saphira.exception import Unauthorized
from saphira.policy import Enforcer
from tests.functional.compute.servers_harness import IMAGE, Harness, make
from tests.wsgi import Client, JsonResponse

ADMIN_ROLES = ("admin", "member", "reader")
TOKENS = {
    "admin": RequestContext(user_id="root", project_id="ops", roles=ADMIN_ROLES),
    "owner": RequestContext(user_id="u1", project_id="p1", roles=("member", "reader")),
    "other": RequestContext(user_id="u2", project_id="p2", roles=("member", "reader")),
}


class Tokens:
    """A token validator that knows three callers by name."""

    def validate(self, token: str, allow_expired: bool = False) -> ValidatedToken:
        if token not in TOKENS:
            raise Unauthorized()
        return ValidatedToken(TOKENS[token], dt.datetime(2100, 1, 1))


@pytest.fixture
def harness(tmp_path: Path) -> Harness:
    return make(tmp_path)


def _authenticated(harness: Harness) -> AuthTokenMiddleware:
    """The compute app behind the real token middleware, which asks context_is_admin."""
    app = build_compute_app(harness.state)
    return from_conf(app, harness.conf, Tokens(), is_admin=harness.state.enforcer.is_admin)


def _call(app: AuthTokenMiddleware, who: str, method: str, path: str,
          body: Any = None) -> JsonResponse:  # fmt: skip
    return Client(app).open(f"/v2.1{path}", method=method, json=body,
                            headers={"X-Auth-Token": who})  # fmt: skip


def _create(
    app: AuthTokenMiddleware, who: str, flavor: str = "1", hints: dict[str, Any] | None = None
) -> JsonResponse:
    server = {"name": "vm", "imageRef": IMAGE, "flavorRef": flavor}
    return _call(app, who, "POST", "/servers", {"server": server, **(hints or {})})


def _private_flavor(app: AuthTokenMiddleware, shared_with: str) -> str:
    flavor = {"name": "secret", "ram": 512, "vcpus": 1, "disk": 1, "id": "secret",
              "os-flavor-access:is_public": False}  # fmt: skip
    assert _call(app, "admin", "POST", "/flavors", {"flavor": flavor}).status_code == 200
    grant = {"addTenantAccess": {"tenant": shared_with}}
    assert _call(app, "admin", "POST", "/flavors/secret/action", grant).status_code == 200
    return "secret"


def test_another_projects_server_group_does_not_exist_for_a_member(harness: Harness) -> None:
    app = _authenticated(harness)
    made = _call(app, "owner", "POST", "/os-server-groups",
                 {"server_group": {"name": "mine", "policies": ["anti-affinity"]}})  # fmt: skip
    group = made.json["server_group"]["id"]
    hints = {"os:scheduler_hints": {"group": group}}
    refused = _create(app, "other", hints=hints)
    assert refused.status_code == 400, refused.data
    assert refused.json["badRequest"]["message"] == (
        f"Invalid server group: Instance group {group} could not be found."
    )
    assert harness.recorder.builds == []
    for method in ("GET", "DELETE"):
        hidden = _call(app, "other", method, f"/os-server-groups/{group}")
        assert hidden.status_code == 404, (method, hidden.data)
    members = _call(app, "owner", "GET", f"/os-server-groups/{group}").json["server_group"]
    assert members["members"] == []
    assert _create(app, "owner", hints=hints).status_code == 202
    assert _create(app, "admin", hints=hints).status_code == 202  # an admin sees every group


def test_a_private_flavor_of_another_project_does_not_exist_for_a_member(
    harness: Harness,
) -> None:
    app = _authenticated(harness)
    flavor = _private_flavor(app, shared_with="p1")
    refused = _create(app, "other", flavor=flavor)
    assert refused.status_code == 400, refused.data
    assert refused.json["badRequest"]["message"] == f"Flavor {flavor} could not be found."
    assert _call(app, "other", "GET", f"/flavors/{flavor}").status_code == 404
    assert _create(app, "owner", flavor=flavor).status_code == 202
    grant = {"addTenantAccess": {"tenant": "p2"}}
    for named in (flavor, "no-such-flavor"):  # the same answer: existence does not leak
        denied = _call(app, "other", "POST", f"/flavors/{named}/action", grant)
        assert denied.status_code == 403, (named, denied.data)


def test_a_policy_yaml_narrowing_context_is_admin_narrows_what_an_admin_sees(
    harness: Harness, tmp_path: Path
) -> None:
    policy_file = tmp_path / "policy.yaml"
    policy_file.write_text("{}\n", encoding="utf-8")
    harness.conf.set_override("policy_file", str(policy_file), group="oslo_policy")
    harness.state.enforcer = Enforcer(harness.conf)
    app = _authenticated(harness)
    flavor = _private_flavor(app, shared_with="p1")
    server = _create(app, "owner").json["server"]["id"]
    assert _call(app, "admin", "GET", f"/flavors/{flavor}").status_code == 200
    assert _call(app, "admin", "GET", f"/servers/{server}").status_code == 200
    listed = _call(app, "admin", "GET", "/servers?all_tenants=1").json["servers"]
    assert [s["id"] for s in listed] == [server]

    narrowed = {"context_is_admin": "role:admin and project_id:cloud-admin"}
    policy_file.write_text(yaml.safe_dump(narrowed), encoding="utf-8")
    assert _call(app, "admin", "GET", f"/flavors/{flavor}").status_code == 404
    assert _call(app, "admin", "GET", f"/servers/{server}").status_code == 404
    assert _call(app, "admin", "GET", "/servers?all_tenants=1").json["servers"] == []
    assert _call(app, "owner", "GET", f"/servers/{server}").status_code == 200
