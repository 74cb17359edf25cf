"""The image API's default rules: Glance's rule names and its current defaults.

Targets are Glance's image targets: ``project_id`` and ``owner`` are the
image's owner, ``visibility`` its visibility, ``member_id`` the project a
membership is about (the caller's own for image rules). Who may *see* an
image is still decided by the records layer (a 404, never a 403, so nothing
leaks); these rules decide what a caller may do with what it can see. An
operator overrides any of them in policy.yaml, as with Glance.
"""

from __future__ import annotations

from oslo_policy import policy

ADMIN = "role:admin"
PROJECT_MEMBER = "role:member and project_id:%(project_id)s"
PROJECT_READER = "role:reader and project_id:%(project_id)s"
ADMIN_OR_MEMBER = f"{ADMIN} or ({PROJECT_MEMBER})"
ADMIN_OR_READER = f"{ADMIN} or ({PROJECT_READER})"
_SEEN = (
    "project_id:%(project_id)s or project_id:%(member_id)s or "
    "'community':%(visibility)s or 'public':%(visibility)s or 'shared':%(visibility)s"
)
READ_IMAGE = f"{ADMIN} or (role:reader and ({_SEEN}))"
DOWNLOAD_IMAGE = f"{ADMIN} or (role:member and ({_SEEN}))"
READ_MEMBERS = (
    f"{ADMIN} or (role:reader and (project_id:%(project_id)s or project_id:%(member_id)s))"
)
MODIFY_MEMBER = f"{ADMIN} or (role:member and project_id:%(member_id)s)"
SCOPES = ["project"]

_IMAGE = "/v2/images/{image_id}"
_RULES: list[tuple[str, str, str, str]] = [
    ("add_image", ADMIN_OR_MEMBER, "POST", "/v2/images"),
    ("get_images", ADMIN_OR_READER, "GET", "/v2/images"),
    ("get_image", READ_IMAGE, "GET", _IMAGE),
    ("modify_image", ADMIN_OR_MEMBER, "PATCH", _IMAGE),
    ("publicize_image", ADMIN, "PATCH", _IMAGE),
    ("communitize_image", ADMIN_OR_MEMBER, "PATCH", _IMAGE),
    ("delete_image", ADMIN_OR_MEMBER, "DELETE", _IMAGE),
    ("upload_image", ADMIN_OR_MEMBER, "PUT", f"{_IMAGE}/file"),  # and .../stage
    ("download_image", DOWNLOAD_IMAGE, "GET", f"{_IMAGE}/file"),
    ("deactivate", ADMIN_OR_MEMBER, "POST", f"{_IMAGE}/actions/deactivate"),
    ("reactivate", ADMIN_OR_MEMBER, "POST", f"{_IMAGE}/actions/reactivate"),
    ("import_image", ADMIN_OR_MEMBER, "POST", f"{_IMAGE}/import"),
    ("get_members", READ_MEMBERS, "GET", f"{_IMAGE}/members"),
    ("get_member", READ_MEMBERS, "GET", f"{_IMAGE}/members/{{member_id}}"),
    ("add_member", ADMIN_OR_MEMBER, "POST", f"{_IMAGE}/members"),
    ("modify_member", MODIFY_MEMBER, "PUT", f"{_IMAGE}/members/{{member_id}}"),
    ("delete_member", ADMIN_OR_MEMBER, "DELETE", f"{_IMAGE}/members/{{member_id}}"),
]


def list_rules() -> list[policy.RuleDefault]:
    return [
        policy.DocumentedRuleDefault(
            name=name,
            check_str=check,
            description=name.replace("_", " ").capitalize() + ".",
            operations=[{"method": method, "path": path}],
            scope_types=SCOPES,
        )
        for name, check, method, path in _RULES
    ]
