"""Which routes run as which callers, in an order that deletes last."""

from __future__ import annotations

from saphira.api.openapi.paths import SKIPPED_METHODS
from tests.functional.policy.outcomes import Caller
from tests.functional.policy.routes import PROJECT_TWIN, Route, routes

APIS = ("identity", "compute", "network", "placement", "image")
ROLES = (Caller.ADMIN, Caller.MEMBER, Caller.READER, Caller.OTHER_MEMBER)
_ORDER = {"GET": 0, "POST": 1, "PUT": 2, "PATCH": 3, "DELETE": 4}
# Calls that end the cloud's use to the run: the admin's own token and the home
# project's member and reader. The matrix's victims keep the rest safe to delete.
_KEPT = frozenset({("DELETE", "/v3/auth/tokens")})


def ordered() -> list[Route]:
    every = [r for api in APIS for r in routes(api) if r.method not in SKIPPED_METHODS]
    kept = [r for r in every if (r.method, r.rule) not in _KEPT]
    return sorted(kept, key=lambda r: _ORDER.get(r.method, 5))


def plan(*, every_role: bool, twins: bool) -> list[tuple[Route, Caller]]:
    """Every route with every role, or each with one role in turn (so each role
    still meets every API); compute's /v2.1/<project_id> twins only if asked."""
    chosen = [r for r in ordered() if twins or not r.rule.startswith(PROJECT_TWIN)]
    if every_role:
        return [(route, role) for route in chosen for role in ROLES]
    return [(route, ROLES[index % len(ROLES)]) for index, route in enumerate(chosen)]
