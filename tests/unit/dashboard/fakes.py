"""Fakes for the dashboard's unit tests: logins without an identity service."""

from __future__ import annotations

import re
import time

from keystoneauth1 import access, exceptions

from saphira.dashboard.keystone import Keystone, Login, Project
from tests.wsgi import Client

PASSWORDS = {"alice": "alice-pw", "bob": "bob-pw"}


def login(user: str = "alice", project: str = "p1", *, expires_in: float = 3600) -> Login:
    """A Login as the identity service would give it: a scoped token's body."""
    expires = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + expires_in))
    body: dict[str, object] = {
        "token": {
            "expires_at": expires,
            "user": {"id": f"{user}-id", "name": user, "domain": {"id": "default"}},
            "project": {"id": project, "name": project, "domain": {"id": "default"}},
            "catalog": [],
        }
    }
    scoped = access.create(body=body, auth_token=f"{user}-{project}-token")
    projects = (Project("p1", "p1"), Project("p2", "p2"))
    return Login(f"{user}-id", user, f"{user}-unscoped", scoped, projects, "http://id/v3")


class FakeKeystone(Keystone):
    """Logs in the users of PASSWORDS; records every token revoked."""

    def __init__(self) -> None:
        super().__init__("http://id/v3", True, 5)
        self.revoked: list[str] = []

    def login(self, user: str, password: str, domain: str = "Default") -> Login:
        if PASSWORDS.get(user) != password:
            raise exceptions.Unauthorized("The request you have made requires authentication.")
        return login(user)

    def switch(self, login_: Login, project_id: str) -> Login:
        if project_id not in {p.id for p in login_.projects}:
            raise KeyError(project_id)
        return login(login_.user_name, project_id)

    def revoke(self, token: str) -> None:
        self.revoked.append(token)


def log_in(client: Client, user: str = "alice") -> None:
    """Log ``user`` in through the login form, as a browser does (its CSRF token read)."""
    form = client.get("/auth/login")
    token = re.search(r'name="csrf_token" value="([^"]+)"', form.text)
    assert token is not None
    data = {"csrf_token": token[1], "username": user, "password": PASSWORDS[user]}
    assert client.post("/auth/login", data=data).status_code == 303
