"""The servers API's default rules: Nova's names and its current defaults.

Targets carry the server's ``project_id`` and ``user_id``.
"""

from __future__ import annotations

from oslo_policy import policy

from saphira.policies.compute import ADMIN, MEMBER_OR_ADMIN, READER_OR_ADMIN

_P = "os_compute_api:"
_S = "/servers/{server_id}"
_ACTION = f"{_S}/action"
_RULES: list[tuple[str, str, str, str]] = [
    ("servers:index", READER_OR_ADMIN, "GET", "/servers"),
    ("servers:detail", READER_OR_ADMIN, "GET", "/servers/detail"),
    ("servers:index:get_all_tenants", ADMIN, "GET", "/servers"),
    ("servers:detail:get_all_tenants", ADMIN, "GET", "/servers/detail"),
    ("servers:allow_all_filters", ADMIN, "GET", "/servers"),
    ("servers:show", READER_OR_ADMIN, "GET", _S),
    ("servers:show:host_status", ADMIN, "GET", _S),
    ("servers:create", MEMBER_OR_ADMIN, "POST", "/servers"),
    ("servers:create:forced_host", ADMIN, "POST", "/servers"),
    ("servers:update", MEMBER_OR_ADMIN, "PUT", _S),
    ("servers:delete", MEMBER_OR_ADMIN, "DELETE", _S),
    ("servers:start", MEMBER_OR_ADMIN, "POST", _ACTION),
    ("servers:stop", MEMBER_OR_ADMIN, "POST", _ACTION),
    ("servers:reboot", MEMBER_OR_ADMIN, "POST", _ACTION),
    ("servers:rebuild", MEMBER_OR_ADMIN, "POST", _ACTION),
    ("servers:resize", MEMBER_OR_ADMIN, "POST", _ACTION),
    ("servers:confirm_resize", MEMBER_OR_ADMIN, "POST", _ACTION),
    ("servers:revert_resize", MEMBER_OR_ADMIN, "POST", _ACTION),
    ("servers:create_image", MEMBER_OR_ADMIN, "POST", _ACTION),
    ("os-migrate-server:migrate", ADMIN, "POST", _ACTION),
    ("os-migrate-server:migrate:host", ADMIN, "POST", _ACTION),
    ("os-migrate-server:migrate_live", ADMIN, "POST", _ACTION),
    ("os-evacuate", ADMIN, "POST", _ACTION),
    ("os-migrations:index", ADMIN, "GET", "/os-migrations"),
    ("os-extended-server-attributes", ADMIN, "GET", _S),
    ("os-lock-server:lock", MEMBER_OR_ADMIN, "POST", _ACTION),
    ("os-lock-server:unlock", MEMBER_OR_ADMIN, "POST", _ACTION),
    ("os-lock-server:unlock:unlock_override", ADMIN, "POST", _ACTION),
    ("os-pause-server:pause", MEMBER_OR_ADMIN, "POST", _ACTION),
    ("os-pause-server:unpause", MEMBER_OR_ADMIN, "POST", _ACTION),
    ("os-suspend-server:suspend", MEMBER_OR_ADMIN, "POST", _ACTION),
    ("os-suspend-server:resume", MEMBER_OR_ADMIN, "POST", _ACTION),
    ("os-console-output", MEMBER_OR_ADMIN, "POST", _ACTION),
    ("os-remote-consoles", MEMBER_OR_ADMIN, "POST", f"{_S}/remote-consoles"),
    ("os-console-auth-tokens", ADMIN, "GET", "/os-console-auth-tokens/{console_token}"),
    ("os-instance-actions:events", ADMIN, "GET", f"{_S}/os-instance-actions/{{request_id}}"),
    ("os-server-external-events:create", ADMIN, "POST", "/os-server-external-events"),
    ("ips:index", READER_OR_ADMIN, "GET", f"{_S}/ips"),
    ("ips:show", READER_OR_ADMIN, "GET", f"{_S}/ips/{{network}}"),
    ("server-metadata:index", READER_OR_ADMIN, "GET", f"{_S}/metadata"),
    ("server-metadata:show", READER_OR_ADMIN, "GET", f"{_S}/metadata/{{key}}"),
    ("server-metadata:create", MEMBER_OR_ADMIN, "POST", f"{_S}/metadata"),
    ("server-metadata:update_all", MEMBER_OR_ADMIN, "PUT", f"{_S}/metadata"),
    ("server-metadata:update", MEMBER_OR_ADMIN, "PUT", f"{_S}/metadata/{{key}}"),
    ("server-metadata:delete", MEMBER_OR_ADMIN, "DELETE", f"{_S}/metadata/{{key}}"),
    ("os-server-tags:index", READER_OR_ADMIN, "GET", f"{_S}/tags"),
    ("os-server-tags:show", READER_OR_ADMIN, "GET", f"{_S}/tags/{{tag}}"),
    ("os-server-tags:update_all", MEMBER_OR_ADMIN, "PUT", f"{_S}/tags"),
    ("os-server-tags:update", MEMBER_OR_ADMIN, "PUT", f"{_S}/tags/{{tag}}"),
    ("os-server-tags:delete_all", MEMBER_OR_ADMIN, "DELETE", f"{_S}/tags"),
    ("os-server-tags:delete", MEMBER_OR_ADMIN, "DELETE", f"{_S}/tags/{{tag}}"),
    ("os-attach-interfaces:list", READER_OR_ADMIN, "GET", f"{_S}/os-interface"),
    ("os-attach-interfaces:show", READER_OR_ADMIN, "GET", f"{_S}/os-interface/{{port_id}}"),
    ("os-attach-interfaces:create", MEMBER_OR_ADMIN, "POST", f"{_S}/os-interface"),
    ("os-attach-interfaces:delete", MEMBER_OR_ADMIN, "DELETE", f"{_S}/os-interface/{{port_id}}"),
    ("os-security-groups:list", READER_OR_ADMIN, "GET", f"{_S}/os-security-groups"),
    ("os-security-groups:add", MEMBER_OR_ADMIN, "POST", _ACTION),
    ("os-security-groups:remove", MEMBER_OR_ADMIN, "POST", _ACTION),
    # Issue 15: the password a guest posted to the metadata service.
    ("os-server-password:show", READER_OR_ADMIN, "GET", f"{_S}/os-server-password"),
    ("os-server-password:clear", MEMBER_OR_ADMIN, "DELETE", f"{_S}/os-server-password"),
]  # fmt: skip


def list_rules() -> list[policy.RuleDefault]:
    return [
        policy.DocumentedRuleDefault(
            name=f"{_P}{name}",
            check_str=check,
            description=name.replace(":", " ").replace("-", " ") + ".",
            operations=[{"method": method, "path": f"/v2.1{path}"}],
            scope_types=["project"],
        )
        for name, check, method, path in _RULES
    ]
