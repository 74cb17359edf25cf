"""Policy as data, enforced with oslo.policy.

The defaults give three roles their meaning (bootstrap makes admin imply
member imply reader, so every rule names the weakest role that suffices):
admin may do everything; a reader may look at its own project; a member may
also look at and change its own user. An operator overrides any rule in the
usual policy.yaml ([oslo_policy] policy_file).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from oslo_config import cfg
from oslo_policy import policy

from saphira.context import RequestContext
from saphira.exception import Forbidden
from saphira.policies import compute as compute_policies
from saphira.policies import image as image_policies
from saphira.policies import network as network_policies
from saphira.policies import placement as placement_policies
from saphira.policies import servers as server_policies

SCOPES = ["system", "domain", "project"]

ADMIN = "role:admin"
OWN_PROJECT_READER = "role:reader and project_id:%(target.project.id)s"
OWN_DOMAIN_READER = "role:reader and domain_id:%(target.domain.id)s"
SELF = "user_id:%(target.user.id)s"
IN_DOMAIN = "project_domain_id:%(target.domain.id)s"  # as Keystone: a token sees its domain
TOKEN_SUBJECT = "user_id:%(target.token.user_id)s"

_BASE: list[policy.RuleDefault] = [
    policy.RuleDefault("admin_required", ADMIN, description="Holds the admin role."),
    policy.RuleDefault("service_role", "role:service", description="A service user."),
]

# (name, check string, method, path) in the order of the API reference.
_RULES: list[tuple[str, str, str, str]] = [
    ("identity:validate_token", f"{ADMIN} or rule:service_role or {TOKEN_SUBJECT}", "GET",
     "/v3/auth/tokens"),
    ("identity:revoke_token", f"{ADMIN} or rule:service_role or {TOKEN_SUBJECT}", "DELETE",
     "/v3/auth/tokens"),
    ("identity:get_auth_catalog", "", "GET", "/v3/auth/catalog"),
    ("identity:get_auth_projects", "", "GET", "/v3/auth/projects"),
    ("identity:get_auth_domains", "", "GET", "/v3/auth/domains"),
    ("identity:get_auth_system", "", "GET", "/v3/auth/system"),
    ("identity:get_domain", f"{ADMIN} or ({OWN_DOMAIN_READER}) or {IN_DOMAIN}", "GET",
     "/v3/domains/{id}"),
    ("identity:list_domains", ADMIN, "GET", "/v3/domains"),
    ("identity:create_domain", ADMIN, "POST", "/v3/domains"),
    ("identity:update_domain", ADMIN, "PATCH", "/v3/domains/{id}"),
    ("identity:delete_domain", ADMIN, "DELETE", "/v3/domains/{id}"),
    ("identity:get_project", f"{ADMIN} or ({OWN_PROJECT_READER})", "GET", "/v3/projects/{id}"),
    ("identity:list_projects", ADMIN, "GET", "/v3/projects"),
    ("identity:list_user_projects", f"{ADMIN} or {SELF}", "GET", "/v3/users/{id}/projects"),
    ("identity:create_project", ADMIN, "POST", "/v3/projects"),
    ("identity:update_project", ADMIN, "PATCH", "/v3/projects/{id}"),
    ("identity:delete_project", ADMIN, "DELETE", "/v3/projects/{id}"),
    ("identity:get_user", f"{ADMIN} or {SELF}", "GET", "/v3/users/{id}"),
    ("identity:list_users", ADMIN, "GET", "/v3/users"),
    ("identity:create_user", ADMIN, "POST", "/v3/users"),
    ("identity:update_user", ADMIN, "PATCH", "/v3/users/{id}"),
    ("identity:delete_user", ADMIN, "DELETE", "/v3/users/{id}"),
    ("identity:change_password", SELF, "POST", "/v3/users/{id}/password"),
    ("identity:get_role", f"{ADMIN} or role:reader", "GET", "/v3/roles/{id}"),
    ("identity:list_roles", f"{ADMIN} or role:reader", "GET", "/v3/roles"),
    ("identity:create_role", ADMIN, "POST", "/v3/roles"),
    ("identity:update_role", ADMIN, "PATCH", "/v3/roles/{id}"),
    ("identity:delete_role", ADMIN, "DELETE", "/v3/roles/{id}"),
    ("identity:check_grant", f"{ADMIN} or ({OWN_PROJECT_READER})", "HEAD",
     "/v3/projects/{p}/users/{u}/roles/{r}"),
    ("identity:list_grants", f"{ADMIN} or ({OWN_PROJECT_READER})", "GET",
     "/v3/projects/{p}/users/{u}/roles"),
    ("identity:create_grant", ADMIN, "PUT", "/v3/projects/{p}/users/{u}/roles/{r}"),
    ("identity:revoke_grant", ADMIN, "DELETE", "/v3/projects/{p}/users/{u}/roles/{r}"),
    ("identity:list_role_assignments", f"{ADMIN} or ({OWN_PROJECT_READER})", "GET",
     "/v3/role_assignments"),
    ("identity:get_service", f"{ADMIN} or role:reader", "GET", "/v3/services/{id}"),
    ("identity:list_services", f"{ADMIN} or role:reader", "GET", "/v3/services"),
    ("identity:create_service", ADMIN, "POST", "/v3/services"),
    ("identity:update_service", ADMIN, "PATCH", "/v3/services/{id}"),
    ("identity:delete_service", ADMIN, "DELETE", "/v3/services/{id}"),
    ("identity:get_endpoint", f"{ADMIN} or role:reader", "GET", "/v3/endpoints/{id}"),
    ("identity:list_endpoints", f"{ADMIN} or role:reader", "GET", "/v3/endpoints"),
    ("identity:create_endpoint", ADMIN, "POST", "/v3/endpoints"),
    ("identity:update_endpoint", ADMIN, "PATCH", "/v3/endpoints/{id}"),
    ("identity:delete_endpoint", ADMIN, "DELETE", "/v3/endpoints/{id}"),
    ("identity:get_region", "", "GET", "/v3/regions/{id}"),
    ("identity:list_regions", "", "GET", "/v3/regions"),
    ("identity:create_region", ADMIN, "POST", "/v3/regions"),
    ("identity:update_region", ADMIN, "PATCH", "/v3/regions/{id}"),
    ("identity:delete_region", ADMIN, "DELETE", "/v3/regions/{id}"),
]  # fmt: skip


def list_rules() -> list[policy.RuleDefault]:
    """Every default rule; the oslo.policy entry point (sample generator) reads this."""
    documented = [
        policy.DocumentedRuleDefault(
            name=name,
            check_str=check,
            description=name.split(":")[1].replace("_", " ").capitalize() + ".",
            operations=[{"method": method, "path": path}],
            scope_types=SCOPES,
        )
        for name, check, method, path in _RULES
    ]
    return [
        *_BASE,
        *documented,
        *compute_policies.list_rules(),
        *placement_policies.list_rules(),
        *image_policies.list_rules(),
        *server_policies.list_rules(),
        *network_policies.list_rules(),
    ]


class _RequestReloadEnforcer(policy.Enforcer):
    """oslo.policy's enforcer, looking for changed policy files once per request.

    oslo.policy's enforce() re-runs load_rules() on every check: it searches
    every configuration directory for policy.yaml and policy.d and walks all
    registered rules, which cost a listing of servers more than its policy
    checks. The files are still read again as oslo.policy reads them, at a
    request's first check; its further checks skip the search.
    """

    def __init__(self, conf: cfg.ConfigOpts) -> None:
        super().__init__(conf)
        self.checked_for = threading.local()

    def load_rules(self, force_reload: bool = False) -> None:
        if force_reload or not getattr(self.checked_for, "skip", False):
            super().load_rules(force_reload)


class Enforcer:
    """One oslo.policy enforcer per cloud, built from that cloud's ConfigOpts."""

    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self._enforcer = _RequestReloadEnforcer(conf)
        self._enforcer.register_defaults(list_rules())
        self._enforcer.load_rules()  # now, not racing in the first concurrent requests

    def enforce(self, context: RequestContext, rule: str, target: Mapping[str, Any]) -> None:
        """Raise Forbidden unless ``context`` may apply ``rule`` to ``target``."""
        state = self._enforcer.checked_for
        if getattr(state, "context", None) is not context:
            self._enforcer.load_rules()
            state.context = context
        state.skip = True
        try:
            allowed = self._enforcer.enforce(rule, dict(target), context.policy_credentials())
        finally:
            state.skip = False
        if not allowed:
            raise Forbidden(f"You are not authorized to perform the requested action: {rule}.")
