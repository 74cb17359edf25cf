"""The compute API's default rules: Nova's names and its current defaults.

Targets carry ``project_id`` and ``user_id`` of the thing acted on (the
caller's own when there is no other), so "own project" is one check string.
"""

from __future__ import annotations

from oslo_policy import policy

ADMIN = "role:admin"
ANY = "@"
PROJECT_READER = "role:reader and project_id:%(project_id)s"
PROJECT_MEMBER = "role:member and project_id:%(project_id)s"
READER_OR_ADMIN = f"({ADMIN}) or ({PROJECT_READER})"
MEMBER_OR_ADMIN = f"({ADMIN}) or ({PROJECT_MEMBER})"
OWNER_OR_ADMIN = f"({ADMIN}) or user_id:%(user_id)s"

_P = "os_compute_api:"
_RULES: list[tuple[str, str, str, str]] = [
    (f"{_P}os-flavor-manage:create", ADMIN, "POST", "/flavors"),
    (f"{_P}os-flavor-manage:update", ADMIN, "PUT", "/flavors/{flavor_id}"),
    (f"{_P}os-flavor-manage:delete", ADMIN, "DELETE", "/flavors/{flavor_id}"),
    (f"{_P}os-flavor-extra-specs:index", READER_OR_ADMIN, "GET", "/flavors/{id}/os-extra_specs"),
    (f"{_P}os-flavor-extra-specs:show", READER_OR_ADMIN, "GET",
     "/flavors/{id}/os-extra_specs/{key}"),
    (f"{_P}os-flavor-extra-specs:create", ADMIN, "POST", "/flavors/{id}/os-extra_specs"),
    (f"{_P}os-flavor-extra-specs:update", ADMIN, "PUT", "/flavors/{id}/os-extra_specs/{key}"),
    (f"{_P}os-flavor-extra-specs:delete", ADMIN, "DELETE",
     "/flavors/{id}/os-extra_specs/{key}"),
    (f"{_P}os-flavor-access", ADMIN, "GET", "/flavors/{flavor_id}/os-flavor-access"),
    (f"{_P}os-flavor-access:add_tenant_access", ADMIN, "POST", "/flavors/{id}/action"),
    (f"{_P}os-flavor-access:remove_tenant_access", ADMIN, "POST", "/flavors/{id}/action"),
    (f"{_P}os-keypairs:index", OWNER_OR_ADMIN, "GET", "/os-keypairs"),
    (f"{_P}os-keypairs:create", OWNER_OR_ADMIN, "POST", "/os-keypairs"),
    (f"{_P}os-keypairs:show", OWNER_OR_ADMIN, "GET", "/os-keypairs/{name}"),
    (f"{_P}os-keypairs:delete", OWNER_OR_ADMIN, "DELETE", "/os-keypairs/{name}"),
    (f"{_P}os-availability-zone:list", ANY, "GET", "/os-availability-zone"),
    (f"{_P}os-availability-zone:detail", ADMIN, "GET", "/os-availability-zone/detail"),
    (f"{_P}limits", ANY, "GET", "/limits"),
    (f"{_P}limits:other_project", ADMIN, "GET", "/limits"),
    (f"{_P}os-quota-sets:show", READER_OR_ADMIN, "GET", "/os-quota-sets/{tenant_id}"),
    (f"{_P}os-quota-sets:detail", READER_OR_ADMIN, "GET", "/os-quota-sets/{tenant_id}/detail"),
    (f"{_P}os-quota-sets:defaults", ANY, "GET", "/os-quota-sets/{tenant_id}/defaults"),
    (f"{_P}os-quota-sets:update", ADMIN, "PUT", "/os-quota-sets/{tenant_id}"),
    (f"{_P}os-quota-sets:delete", ADMIN, "DELETE", "/os-quota-sets/{tenant_id}"),
    (f"{_P}os-quota-class-sets:show", ADMIN, "GET", "/os-quota-class-sets/{quota_class}"),
    (f"{_P}os-quota-class-sets:update", ADMIN, "PUT", "/os-quota-class-sets/{quota_class}"),
    (f"{_P}os-server-groups:create", PROJECT_MEMBER, "POST", "/os-server-groups"),
    (f"{_P}os-server-groups:index", READER_OR_ADMIN, "GET", "/os-server-groups"),
    (f"{_P}os-server-groups:index:all_projects", ADMIN, "GET", "/os-server-groups"),
    (f"{_P}os-server-groups:show", READER_OR_ADMIN, "GET", "/os-server-groups/{id}"),
    (f"{_P}os-server-groups:delete", MEMBER_OR_ADMIN, "DELETE", "/os-server-groups/{id}"),
    (f"{_P}os-services:list", ADMIN, "GET", "/os-services"),
    (f"{_P}os-services:update", ADMIN, "PUT", "/os-services/{service_id}"),
    (f"{_P}os-services:delete", ADMIN, "DELETE", "/os-services/{service_id}"),
    (f"{_P}os-hypervisors:list", ADMIN, "GET", "/os-hypervisors"),
    (f"{_P}os-hypervisors:list-detail", ADMIN, "GET", "/os-hypervisors/detail"),
    (f"{_P}os-hypervisors:show", ADMIN, "GET", "/os-hypervisors/{hypervisor_id}"),
    (f"{_P}os-hypervisors:statistics", ADMIN, "GET", "/os-hypervisors/statistics"),
    (f"{_P}os-hypervisors:search", ADMIN, "GET", "/os-hypervisors/{pattern}/search"),
    (f"{_P}os-hypervisors:servers", ADMIN, "GET", "/os-hypervisors/{pattern}/servers"),
    (f"{_P}os-hypervisors:uptime", ADMIN, "GET", "/os-hypervisors/{hypervisor_id}/uptime"),
    (f"{_P}os-aggregates:index", ADMIN, "GET", "/os-aggregates"),
    (f"{_P}os-instance-actions:list", READER_OR_ADMIN, "GET", "/servers/{id}/os-instance-actions"),
    (f"{_P}os-instance-actions:show", READER_OR_ADMIN, "GET",
     "/servers/{id}/os-instance-actions/{request_id}"),
    (f"{_P}os-networks:list", READER_OR_ADMIN, "GET", "/os-networks"),
    (f"{_P}os-networks:show", READER_OR_ADMIN, "GET", "/os-networks/{network_id}"),
    (f"{_P}os-tenant-networks:list", READER_OR_ADMIN, "GET", "/os-tenant-networks"),
    (f"{_P}os-tenant-networks:show", READER_OR_ADMIN, "GET", "/os-tenant-networks/{network_id}"),
    (f"{_P}os-security-groups:get", READER_OR_ADMIN, "GET", "/os-security-groups"),
    (f"{_P}os-security-groups:show", READER_OR_ADMIN, "GET", "/os-security-groups/{id}"),
    (f"{_P}os-security-groups:create", MEMBER_OR_ADMIN, "POST", "/os-security-groups"),
    (f"{_P}os-security-groups:update", MEMBER_OR_ADMIN, "PUT", "/os-security-groups/{id}"),
    (f"{_P}os-security-groups:delete", MEMBER_OR_ADMIN, "DELETE", "/os-security-groups/{id}"),
    (f"{_P}os-security-groups:rule:create", MEMBER_OR_ADMIN, "POST", "/os-security-group-rules"),
    (f"{_P}os-security-groups:rule:delete", MEMBER_OR_ADMIN, "DELETE",
     "/os-security-group-rules/{id}"),
]  # fmt: skip


def list_rules() -> list[policy.RuleDefault]:
    return [
        policy.DocumentedRuleDefault(
            name=name,
            check_str=check,
            description=name.removeprefix(_P).replace(":", " ").replace("-", " ") + ".",
            operations=[{"method": method, "path": f"/v2.1{path}"}],
            scope_types=["project"],
        )
        for name, check, method, path in _RULES
    ]
