"""The placement API's default rules: admins and the service users do everything.

``saphira up`` gives the service users (nova, placement) the admin role on the
service project, as the install guide does; ``role:service`` is honoured too.
Anyone else is refused, as Placement's own defaults refuse them.
"""

from __future__ import annotations

from oslo_policy import policy

PLACEMENT_ADMIN = "role:admin or role:service"
SCOPES = ["system", "project"]

_RULES: list[tuple[str, str, str]] = [
    ("placement:resource_providers", "GET POST PUT DELETE", "/resource_providers"),
    ("placement:inventories", "GET POST PUT DELETE", "/resource_providers/{uuid}/inventories"),
    ("placement:aggregates", "GET PUT", "/resource_providers/{uuid}/aggregates"),
    ("placement:resource_provider_traits", "GET PUT DELETE", "/resource_providers/{uuid}/traits"),
    ("placement:usages", "GET", "/usages"),
    ("placement:resource_classes", "GET POST PUT DELETE", "/resource_classes"),
    ("placement:traits", "GET PUT DELETE", "/traits"),
    ("placement:allocations", "GET PUT POST DELETE", "/allocations"),
    ("placement:allocation_candidates", "GET", "/allocation_candidates"),
]


def list_rules() -> list[policy.RuleDefault]:
    return [
        policy.DocumentedRuleDefault(
            name=name,
            check_str=PLACEMENT_ADMIN,
            description=f"Use {path} of the placement API.",
            operations=[{"method": method, "path": path} for method in methods.split()],
            scope_types=SCOPES,
        )
        for name, methods, path in _RULES
    ]
