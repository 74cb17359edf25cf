"""The admin pages' identity calls: projects, users, roles and who has which in a project.

openstacksdk's identity proxy with the admin's token. A grant and a revoke are
sent through the proxy and their answer checked here (openstacksdk's
``assign_project_role_to_user`` returns False on a refusal instead of raising).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import quote

from openstack import exceptions as sdk
from openstack.identity.v3 import _proxy as v3
from openstack.identity.v3.project import Project
from openstack.identity.v3.user import User

from saphira.dashboard.cloud import Conn


def _identity(conn: Conn) -> v3.Proxy:
    """The identity v3 proxy (the dashboard logs in with v3; v2 has no projects API)."""
    proxy = conn.identity
    if not isinstance(proxy, v3.Proxy):
        raise sdk.SDKException("the identity service does not speak v3")
    return proxy


@dataclass(frozen=True)
class ProjectRow:
    id: str
    name: str
    description: str
    enabled: bool


@dataclass(frozen=True)
class UserRow:
    id: str
    name: str
    email: str
    enabled: bool
    default_project_id: str


@dataclass(frozen=True)
class RoleRow:
    id: str
    name: str


@dataclass(frozen=True)
class Member:
    """A user with their roles in one project."""

    user_id: str
    user_name: str
    roles: tuple[RoleRow, ...]


@dataclass(frozen=True)
class UserRequest:
    name: str
    password: str = field(repr=False)  # never in a log line
    email: str = ""
    project_id: str = ""  # the default project; "" for none
    role_id: str = ""  # a role given in it at once (by the view); "" for none


def _project(p: Project) -> ProjectRow:
    return ProjectRow(
        str(p.id), str(p.name or p.id), str(p.description or ""), p.is_enabled is not False
    )


def projects(conn: Conn) -> list[ProjectRow]:
    return sorted((_project(p) for p in _identity(conn).projects()), key=lambda p: (p.name, p.id))


def project(conn: Conn, project_id: str) -> ProjectRow:
    return _project(_identity(conn).get_project(project_id))


def create_project(conn: Conn, name: str, description: str, domain_id: str) -> str:
    made = _identity(conn).create_project(name=name, description=description, domain_id=domain_id)
    return str(made.id)


def _user(u: User) -> UserRow:
    return UserRow(
        str(u.id), str(u.name or u.id), str(u.email or ""), u.is_enabled is not False,
        str(u.default_project_id or ""),
    )  # fmt: skip


def users(conn: Conn) -> list[UserRow]:
    return sorted((_user(u) for u in _identity(conn).users()), key=lambda u: (u.name, u.id))


def create_user(conn: Conn, request: UserRequest, domain_id: str) -> str:
    attrs: dict[str, object] = {
        "name": request.name, "password": request.password, "domain_id": domain_id,
    }  # fmt: skip
    if request.email:
        attrs["email"] = request.email
    if request.project_id:
        attrs["default_project_id"] = request.project_id
    return str(_identity(conn).create_user(**attrs).id)


def roles(conn: Conn) -> list[RoleRow]:
    found = (RoleRow(str(r.id), str(r.name or r.id)) for r in _identity(conn).roles())
    return sorted(found, key=lambda r: r.name)


def members(conn: Conn, project_id: str) -> list[Member]:
    """The users with a role given directly in the project, with those roles."""
    found = _identity(conn).role_assignments(scope_project_id=project_id, include_names=True)
    names: dict[str, str] = {}
    held: dict[str, list[RoleRow]] = {}
    for a in found:
        user, role = a.user or {}, a.role or {}
        if not user.get("id"):
            continue  # a group's assignment
        uid = str(user["id"])
        names[uid] = str(user.get("name") or uid)
        held.setdefault(uid, []).append(RoleRow(str(role.get("id")), str(role.get("name") or "")))
    made = [
        Member(u, names[u], tuple(sorted(set(r), key=lambda x: x.name))) for u, r in held.items()
    ]
    return sorted(made, key=lambda m: (m.user_name, m.user_id))


def grant(conn: Conn, project_id: str, user_id: str, role_id: str, *, give: bool) -> None:
    """Give (PUT) or take away (DELETE) a user's role in a project; a refusal raises."""
    p, u, r = (quote(part, safe="") for part in (project_id, user_id, role_id))
    url = f"/projects/{p}/users/{u}/roles/{r}"
    answer = _identity(conn).put(url) if give else _identity(conn).delete(url)
    sdk.raise_from_response(answer)
