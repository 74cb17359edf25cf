"""What the cloud holds, as admin sees it: compared before and after rejected calls."""

from __future__ import annotations

import json

import requests

from tests.functional.policy.outcomes import Caller
from tests.functional.policy.requests_spec import World

TIMEOUT = 60
LISTINGS: tuple[tuple[str, str], ...] = (
    ("identity", "/v3/domains"),
    ("identity", "/v3/projects"),
    ("identity", "/v3/users"),
    ("identity", "/v3/roles"),
    ("identity", "/v3/role_assignments"),
    ("identity", "/v3/services"),
    ("identity", "/v3/endpoints"),
    ("identity", "/v3/regions"),
    ("compute", "/v2.1/servers/detail?all_tenants=1"),
    ("compute", "/v2.1/flavors/detail?is_public=None"),
    ("compute", "/v2.1/os-keypairs"),
    ("compute", "/v2.1/os-server-groups?all_projects=True"),
    ("compute", "/v2.1/os-aggregates"),
    ("network", "/v2.0/networks"),
    ("network", "/v2.0/subnets"),
    ("network", "/v2.0/ports"),
    ("network", "/v2.0/security-groups"),
    ("network", "/v2.0/security-group-rules"),
    ("image", "/v2/images"),
    ("placement", "/resource_providers"),
    ("placement", "/resource_classes"),
    ("placement", "/traits"),
)
_VERSIONS = {"compute": "compute latest", "placement": "placement latest"}


def warm_up(world: World, callers: tuple[Caller, ...]) -> None:
    """Neutron makes a project's default security group on its first call: a write no
    rejected call makes, so every caller's project has its own before the snapshot."""
    for caller in callers:
        headers = {"X-Auth-Token": str(world.tokens[caller])}
        url = world.roots["network"] + "/v2.0/security-groups"
        assert requests.get(url, headers=headers, timeout=TIMEOUT).status_code == 200


def _stable(api: str, response: requests.Response) -> str:
    """The listing without what the cloud changes on its own: a provider's generation
    moves with each inventory report of the compute host."""
    if api != "placement":
        return response.text
    body = response.json()
    for row in body.get("resource_providers", []):
        row.pop("generation", None)
    return json.dumps(body, sort_keys=True)


def snapshot(world: World) -> dict[str, str]:
    token = str(world.tokens[Caller.ADMIN])
    taken = {}
    for api, path in LISTINGS:
        headers = {"X-Auth-Token": token, "OpenStack-API-Version": _VERSIONS.get(api, "")}
        response = requests.get(world.roots[api] + path, headers=headers, timeout=TIMEOUT)
        assert response.status_code == 200, f"{path}: {response.status_code} {response.text}"
        taken[f"{api} {path}"] = _stable(api, response)
    return taken


def changed(before: dict[str, str], after: dict[str, str]) -> list[str]:
    return [name for name in before if before[name] != after[name]]
