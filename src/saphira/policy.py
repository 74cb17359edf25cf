"""Policy as data, enforced with oslo.policy.

The defaults give three roles their meaning (bootstrap makes admin imply
member imply reader, so every rule names the weakest role that suffices):
admin may do everything; a reader may look at its own project and its domain;
a member may also look at and change its own user. Roles, services,
endpoints and grants are for admins, as in Keystone's defaults (Keystone asks
for a system reader; Saphira has no system scope for members). An operator overrides any rule in the
usual policy.yaml ([oslo_policy] policy_file).
"""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Hashable, Mapping
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
from saphira.policy_memo import Decisions

SCOPES = ["system", "domain", "project"]

ADMIN = "role:admin"
OWN_PROJECT_READER = "role:reader and project_id:%(target.project.id)s"
OWN_DOMAIN_READER = "role:reader and domain_id:%(target.domain.id)s"
# Keystone: a project-scoped token may read its project's domain.
OWN_PROJECT_DOMAIN = "project_domain_id:%(target.domain.id)s"
SELF = "user_id:%(target.user.id)s"
TOKEN_SUBJECT = "user_id:%(target.token.user_id)s"

IS_ADMIN = "context_is_admin"
_BASE: list[policy.RuleDefault] = [
    policy.RuleDefault(
        IS_ADMIN,
        ADMIN,
        description="Who sees every project's resources (Nova's, Neutron's and Glance's "
        "context_is_admin; one policy file serves every API here). Decided once per "
        "request where the token is validated: RequestContext.is_admin.",
    ),
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
    ("identity:get_domain", f"{ADMIN} or ({OWN_DOMAIN_READER}) or {OWN_PROJECT_DOMAIN}", "GET",
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
    ("identity:get_role", ADMIN, "GET", "/v3/roles/{id}"),
    ("identity:list_roles", ADMIN, "GET", "/v3/roles"),
    ("identity:create_role", ADMIN, "POST", "/v3/roles"),
    ("identity:update_role", ADMIN, "PATCH", "/v3/roles/{id}"),
    ("identity:delete_role", ADMIN, "DELETE", "/v3/roles/{id}"),
    ("identity:check_grant", ADMIN, "HEAD",
     "/v3/projects/{p}/users/{u}/roles/{r}"),
    ("identity:list_grants", ADMIN, "GET",
     "/v3/projects/{p}/users/{u}/roles"),
    ("identity:create_grant", ADMIN, "PUT", "/v3/projects/{p}/users/{u}/roles/{r}"),
    ("identity:revoke_grant", ADMIN, "DELETE", "/v3/projects/{p}/users/{u}/roles/{r}"),
    ("identity:list_role_assignments", f"{ADMIN} or ({OWN_PROJECT_READER})", "GET",
     "/v3/role_assignments"),
    ("identity:get_service", ADMIN, "GET", "/v3/services/{id}"),
    ("identity:list_services", ADMIN, "GET", "/v3/services"),
    ("identity:create_service", ADMIN, "POST", "/v3/services"),
    ("identity:update_service", ADMIN, "PATCH", "/v3/services/{id}"),
    ("identity:delete_service", ADMIN, "DELETE", "/v3/services/{id}"),
    ("identity:get_endpoint", ADMIN, "GET", "/v3/endpoints/{id}"),
    ("identity:list_endpoints", ADMIN, "GET", "/v3/endpoints"),
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


def _config_dirs(conf: cfg.ConfigOpts) -> list[str]:
    """Where oslo.config's find_file looks for a relative policy file, in its order:
    --config-dir, the configuration files' directories, then ~/.<project>, ~,
    /etc/<project>, /etc (oslo.config's private _get_config_dirs, without snaps)."""
    given = conf.config_dir or []
    dirs = [given] if isinstance(given, str) else list(given)
    dirs += [os.path.dirname(name) for name in reversed(conf.config_file or [])]
    project = conf.project
    dirs += [f"~/.{project}", "~", f"/etc/{project}"] if project else ["~"]
    dirs.append("/etc")
    return [os.path.abspath(os.path.expanduser(directory)) for directory in dirs]


def _stamp(path: str) -> Hashable:
    """What changes when ``path`` appears, goes or is written (a directory: any file in it)."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    stamp = (found.st_mtime_ns, found.st_size, found.st_ino)
    if not stat.S_ISDIR(found.st_mode):
        return stamp
    try:
        entries = sorted(os.scandir(path), key=lambda entry: entry.name)
        return stamp, tuple((entry.name, _stamp(entry.path)) for entry in entries)
    except OSError:
        return stamp


class _WatchedEnforcer(policy.Enforcer):
    """oslo.policy's enforcer, re-reading the policy files only when they change.

    oslo.policy's enforce() re-runs load_rules() on every check: it searches
    the configuration directories for policy.yaml and policy.d (find_file) and
    walks every registered rule, about 0.3 ms each time. Here load_rules()
    first takes the stamp (mtime, size, inode; a directory's files too) of
    every place oslo.policy would look and hands over to oslo.policy only when
    one differs from the last load, so a changed, new or removed policy file
    still applies at the next request. A request checks at most once: its
    further checks skip even the stamp (``checked_for``). Each load starts a
    new ``decisions`` (saphira.policy_memo): what pure rules decided under
    the rules loaded before is dropped with them.
    """

    def __init__(self, conf: cfg.ConfigOpts) -> None:
        super().__init__(conf)
        self.checked_for = threading.local()
        self.files_read = 0  # how often oslo.policy was let look at the files
        self.decisions = Decisions({})
        self._seen: Hashable = None

    def watched(self) -> list[str]:
        names = [self.policy_file, *self.conf.oslo_policy.policy_dirs]
        dirs = _config_dirs(self.conf)
        return [
            path
            for name in names
            for path in ([name] if os.path.isabs(name) else [os.path.join(d, name) for d in dirs])
        ]

    def load_rules(self, force_reload: bool = False) -> None:
        if getattr(self.checked_for, "skip", False) and not force_reload:
            return
        seen = tuple(_stamp(path) for path in self.watched())
        if force_reload or not self.rules or seen != self._seen:
            super().load_rules(force_reload)
            self.decisions = Decisions(self.rules)
            self.files_read += 1
            self._seen = seen


class Enforcer:
    """One oslo.policy enforcer per cloud, built from that cloud's ConfigOpts."""

    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self._enforcer = _WatchedEnforcer(conf)
        self._enforcer.register_defaults(list_rules())
        self._enforcer.load_rules()  # now, not racing in the first concurrent requests

    def _look_at_files(self, context: RequestContext, *, admin: bool = False) -> threading.local:
        """The files' stamps once per request: at is_admin, which the token middleware asks
        first, or at the request's first check; further checks of the same context, and
        the first one after is_admin for the same request id, skip the look."""
        state = self._enforcer.checked_for
        if admin:
            self._enforcer.load_rules()
            state.admin_for = context.request_id
        elif getattr(state, "context", None) is not context:
            if getattr(state, "admin_for", None) != context.request_id:
                self._enforcer.load_rules()
            state.context, state.admin_for = context, None
        return state

    def is_admin(self, context: RequestContext) -> bool:
        """The context_is_admin rule for this caller, as Nova's check_is_admin asks it
        (the caller's own credentials as the target)."""
        credentials = context.policy_credentials()
        state = self._look_at_files(context, admin=True)
        return self._decide(state, IS_ADMIN, credentials, credentials)

    def enforce(self, context: RequestContext, rule: str, target: Mapping[str, Any]) -> None:
        """Raise Forbidden unless ``context`` may apply ``rule`` to ``target``."""
        state = self._look_at_files(context)
        if not self._decide(state, rule, target, context.policy_credentials()):
            raise Forbidden(f"You are not authorized to perform the requested action: {rule}.")

    def _decide(
        self,
        state: threading.local,
        rule: str,
        target: Mapping[str, Any],
        credentials: dict[str, Any],
    ) -> bool:
        """oslo.policy's decision, or the one it gave before under the same rules."""
        enforcer = self._enforcer

        def evaluate() -> bool:
            state.skip = True  # as enforce() does: the files were just looked at
            try:
                return bool(enforcer.enforce(rule, dict(target), dict(credentials)))
            finally:
                state.skip = False

        return enforcer.decisions.decide(rule, target, credentials, evaluate)
