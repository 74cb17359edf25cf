"""What tempest expects to find in the cloud: accounts, flavors and an image.

Tempest runs with pre-provisioned credentials (no dynamic accounts), so the
harness creates them the way an operator would, with openstacksdk as admin.
Each project has a member and a reader (tempest asks for a reader in the
primary member's own project), so concurrent test classes never see each
other's resources; admin accounts share one project.

Tempest hands out ``alt`` credentials as the first free non-admin account in
file order, so a pool of alt-only accounts (each in a project of its own,
without a reader) comes first: otherwise an alt could take the one reader of
the project another class's primary is about to need.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

PROJECTS = 16  # two workers hold primary and reader each; 8 ran dry now and then
ALT_ACCOUNTS = 6  # two workers each hold one alt; spare for slow releases
ADMIN_ACCOUNTS = 8
SYSTEM_READERS = 2  # the identity admin tests read as a system-scoped reader, one per worker
IMAGE_BYTES = b"\0" * 1024 * 1024  # a raw disk of one MiB: the image service checks formats


@dataclass(frozen=True)
class Account:
    username: str
    password: str
    project_name: str
    roles: tuple[str, ...]
    admin: bool = False
    system: bool = False  # a role on the system rather than on project_name

    def as_yaml(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"username": self.username, "password": self.password}
        if self.system:  # tempest reads a "domain_name" as domain scope, so the user's own
            entry.update(user_domain_name="Default", system="all")
        else:
            entry.update(project_name=self.project_name, domain_name="Default")
        entry["roles"] = list(self.roles)
        if self.admin:
            entry["types"] = ["admin"]
        return entry


@dataclass
class Provisioned:
    accounts: list[Account] = field(default_factory=list)
    flavor_ref: str = ""
    flavor_ref_alt: str = ""
    image_ref: str = ""
    image_ref_alt: str = ""

    @property
    def admin(self) -> Account:
        return next(account for account in self.accounts if account.admin)


def _account(conn: Any, name: str, project: str, role: str, admin: bool) -> Account:
    domain = conn.identity.find_domain("default") or conn.identity.find_domain("Default")
    found = conn.identity.find_project(project, domain_id=domain.id)
    proj = found or conn.identity.create_project(name=project, domain_id=domain.id)
    password = secrets.token_urlsafe(16)
    user = conn.identity.create_user(
        name=name, password=password, domain_id=domain.id, default_project_id=proj.id
    )
    conn.identity.assign_project_role_to_user(proj, user, conn.identity.find_role(role))
    return Account(name, password, project, (role,), admin)


def _system_account(conn: Any, name: str, role: str) -> Account:
    domain = conn.identity.find_domain("default") or conn.identity.find_domain("Default")
    password = secrets.token_urlsafe(16)
    user = conn.identity.create_user(name=name, password=password, domain_id=domain.id)
    conn.identity.assign_system_role_to_user(user, conn.identity.find_role(role), "all")
    return Account(name, password, "", (role,), system=True)


def _flavor(conn: Any, name: str, ram: int, vcpus: int, disk: int) -> str:
    return str(conn.compute.create_flavor(name=name, ram=ram, vcpus=vcpus, disk=disk).id)


def _image(conn: Any, name: str) -> str:
    image = conn.image.create_image(
        name=name,
        disk_format="raw",
        container_format="bare",
        visibility="public",
        data=IMAGE_BYTES,
        validate_checksum=False,
    )
    return str(image.id)


def provision(conn: Any) -> Provisioned:
    """Create everything on the cloud ``conn`` (an admin connection) reaches."""
    done = Provisioned()
    for number in range(1, ALT_ACCOUNTS + 1):
        project = f"tempest-alt-{number}"
        done.accounts.append(_account(conn, f"{project}-member", project, "member", admin=False))
    for number in range(1, PROJECTS + 1):
        project = f"tempest-{number}"
        for role in ("member", "reader"):
            done.accounts.append(_account(conn, f"{project}-{role}", project, role, admin=False))
    for number in range(1, ADMIN_ACCOUNTS + 1):
        name = f"tempest-admin-{number}"
        done.accounts.append(_account(conn, name, "tempest-admin", "admin", admin=True))
    for number in range(1, SYSTEM_READERS + 1):
        done.accounts.append(_system_account(conn, f"tempest-system-reader-{number}", "reader"))
    done.flavor_ref = _flavor(conn, "tempest-small", ram=128, vcpus=1, disk=1)
    done.flavor_ref_alt = _flavor(conn, "tempest-medium", ram=256, vcpus=1, disk=2)
    done.image_ref = _image(conn, "tempest-image")
    done.image_ref_alt = _image(conn, "tempest-image-alt")
    return done
