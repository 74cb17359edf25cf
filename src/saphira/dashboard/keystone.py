"""Identity for the dashboard: log in, list the user's projects, rescope, revoke.

As Horizon's openstack_auth: a password gives an unscoped token, which lists
the projects the user has a role on (``GET /v3/auth/projects``) and is
exchanged for a token scoped to one of them; a project switch is another
exchange. Every call goes through keystoneauth (openstacksdk's own session
layer), never around it.
"""

from __future__ import annotations

from dataclasses import dataclass

from keystoneauth1 import access, session
from keystoneauth1.identity import v3

DOMAIN = "Default"
ADMIN_ROLE = "admin"


@dataclass(frozen=True)
class Project:
    id: str
    name: str


@dataclass(frozen=True)
class Login:
    """Who is logged in and with which tokens; the session's whole identity."""

    user_id: str
    user_name: str
    unscoped: str  # the token that lists projects and is rescoped, revoked at logout
    scoped: access.AccessInfo  # the project token every API call carries
    projects: tuple[Project, ...]
    auth_url: str

    @property
    def project(self) -> Project:
        wanted = self.scoped.project_id
        return next(p for p in self.projects if p.id == wanted)

    @property
    def expires_at(self) -> float:
        expires = self.scoped.expires
        return expires.timestamp() if expires is not None else float("inf")

    @property
    def is_admin(self) -> bool:
        """The admin role in the current project (Horizon's gate for its Admin panels)."""
        return ADMIN_ROLE in (self.scoped.role_names or [])


class NoProject(Exception):
    """The user has no role on any project: nothing to show."""


class Keystone:
    def __init__(self, auth_url: str, verify: str | bool, timeout: float) -> None:
        self.auth_url = auth_url.rstrip("/")
        self.session = session.Session(verify=verify, timeout=timeout)

    def login(self, user: str, password: str, domain: str = DOMAIN) -> Login:
        """Raises keystoneauth's Unauthorized on a wrong password, NoProject without roles."""
        plugin = v3.Password(
            self.auth_url, username=user, password=password,
            user_domain_name=domain, unscoped=True,
        )  # fmt: skip
        unscoped = plugin.get_access(self.session)
        token = str(unscoped.auth_token)
        projects = self.projects(token)
        if not projects:
            self.revoke(token)
            raise NoProject(user)
        home = self._default_project(token, str(unscoped.user_id))
        first = home if home in {p.id for p in projects} else projects[0].id
        return self._scoped(token, projects, first, str(unscoped.username or user))

    def switch(self, login: Login, project_id: str) -> Login:
        """The same user scoped to another of its projects (KeyError if not one)."""
        if project_id not in {p.id for p in login.projects}:
            raise KeyError(project_id)
        switched = self._scoped(login.unscoped, login.projects, project_id, login.user_name)
        if login.scoped.auth_token:
            self.revoke(login.scoped.auth_token)
        return switched

    def projects(self, token: str) -> tuple[Project, ...]:
        reply = self.session.get(
            f"{self.auth_url}/auth/projects", headers={"X-Auth-Token": token}, authenticated=False
        )
        found = [Project(p["id"], p["name"]) for p in reply.json().get("projects", [])]
        return tuple(sorted(found, key=lambda p: (p.name, p.id)))

    def _default_project(self, token: str, user_id: str) -> str:
        """The user's default project (where a login lands, as in Keystone), or ""."""
        reply = self.session.get(
            f"{self.auth_url}/users/{user_id}", headers={"X-Auth-Token": token},
            authenticated=False, raise_exc=False,
        )  # fmt: skip
        if reply.status_code != 200:
            return ""
        return str(reply.json().get("user", {}).get("default_project_id") or "")

    def revoke(self, token: str) -> None:
        """DELETE /v3/auth/tokens: the token revokes itself (404 when already gone)."""
        headers = {"X-Auth-Token": token, "X-Subject-Token": token}
        self.session.delete(
            f"{self.auth_url}/auth/tokens", headers=headers, authenticated=False,
            raise_exc=False,
        )  # fmt: skip

    def logout(self, login: Login) -> None:
        if login.scoped.auth_token:
            self.revoke(login.scoped.auth_token)
        self.revoke(login.unscoped)

    def _scoped(
        self, token: str, projects: tuple[Project, ...], project: str, user_name: str
    ) -> Login:
        plugin = v3.Token(self.auth_url, token=token, project_id=project)
        scoped = plugin.get_access(self.session)
        return Login(str(scoped.user_id), user_name, token, scoped, projects, self.auth_url)
