"""The state directory of ``saphira up``: where it is, and what is written once.

``saphira.conf`` is written on first start only and never overwritten: from
then on it belongs to the operator. It carries state_path (so saphira-manage
finds the same databases) and the generated service-user passwords together
with the options that consume them, as the install guide writes them, and a
random ``[neutron] metadata_proxy_shared_secret`` (the metadata API refuses
every request while it is empty).
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass

CONF_NAME = "saphira.conf"
SERVICE_USERS = (  # (conf group, user name): the guide's service users and where they go
    ("keystone_authtoken", "nova"),
    ("placement", "placement"),
    ("neutron", "neutron"),
    ("nova", "nova"),  # neutron.conf's [nova]: the same user as keystone_authtoken's
)


def default_state_dir() -> str:
    """/var/lib/saphira for root, $XDG_DATA_HOME/saphira or ~/.local/share/saphira otherwise."""
    if os.geteuid() == 0:
        return "/var/lib/saphira"
    data_home = os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share")
    return os.path.join(data_home, "saphira")


def new_password() -> str:
    """URL-safe characters only: no quoting trouble in INI, YAML or shell files."""
    return secrets.token_urlsafe(18)


def ensure_dir(path: str) -> None:
    """Create the directory 0711, or set it so, and make what is in it private.

    It holds keys, passwords and databases, so nobody else may list it or read
    its files (``saphira up`` runs with umask 077, and files from older starts
    are tightened here); but QEMU runs as its own user and must pass through
    it to the guests' disks under instances_path, hence the execute bits.
    """
    os.makedirs(path, mode=0o711, exist_ok=True)
    os.chmod(path, 0o711)
    for entry in os.scandir(path):
        if entry.is_file(follow_symlinks=False):
            os.chmod(entry.path, entry.stat().st_mode & 0o700)


def write_private(path: str, text: str) -> None:
    """Write a 0600 file atomically: a reader never sees half of it."""
    tmp = f"{path}.tmp-{os.getpid()}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(tmp, path)


@dataclass(frozen=True)
class InitialConf:
    state_dir: str
    identity_url: str  # http://my_ip:port/ of identity, for auth_url and www_authenticate_uri
    region: str


def render_conf(initial: InitialConf) -> str:
    lines = [
        "# Written by `saphira up` on first start and never overwritten: edit freely.",
        "# saphira-manage --config-file this-file ... works on the same databases.",
        "[DEFAULT]",
        f"state_path = {initial.state_dir}",
    ]
    passwords = {user: new_password() for _, user in SERVICE_USERS}
    for group, user in SERVICE_USERS:
        lines += [
            "",
            f"[{group}]",
            *(
                [f"www_authenticate_uri = {initial.identity_url}"]
                if group == "keystone_authtoken"
                else [f"region_name = {initial.region}"]
            ),
            f"auth_url = {initial.identity_url}",
            "auth_type = password",
            "project_domain_name = Default",
            "user_domain_name = Default",
            "project_name = service",
            f"username = {user}",
            f"password = {passwords[user]}",
        ]
        if group == "neutron":  # signs what the metadata proxy forwards to the metadata API
            lines.append(f"metadata_proxy_shared_secret = {new_password()}")
            lines.append("service_metadata_proxy = true")  # the DHCP agent runs the proxies
    return "\n".join(lines) + "\n"


def write_initial_conf(initial: InitialConf) -> str | None:
    """Write <state-dir>/saphira.conf unless it exists; its path if written."""
    path = os.path.join(initial.state_dir, CONF_NAME)
    if os.path.exists(path):
        return None
    write_private(path, render_conf(initial))
    return path
