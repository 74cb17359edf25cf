"""clouds.yaml and openrc files: how a person or a tool reaches the cloud.

They are rewritten on every start (the URLs follow --port-offset and my_ip)
but keep the passwords of the first start: clouds.yaml is where the admin and
demo passwords live, so it is read back before it is rewritten.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from typing import Any

import yaml

from saphira.service.statedir import write_private

CLOUDS_NAME = "clouds.yaml"


@dataclass(frozen=True)
class Cloud:
    name: str  # the cloud name in clouds.yaml; also the user and project name
    username: str
    password: str
    project_name: str


def read_passwords(path: str) -> dict[str, str]:
    """Passwords by cloud name from an existing clouds.yaml; empty if none."""
    try:
        with open(path, encoding="utf-8") as handle:
            data: Any = yaml.safe_load(handle)
    except FileNotFoundError:
        return {}
    clouds = data.get("clouds") if isinstance(data, dict) else None
    result: dict[str, str] = {}
    for name, cloud in (clouds or {}).items():
        password = (cloud or {}).get("auth", {}).get("password")
        if isinstance(password, str) and password:
            result[str(name)] = password
    return result


def _cloud_entry(cloud: Cloud, auth_url: str, region: str, cacert: str | None) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "auth": {
            "auth_url": auth_url,
            "username": cloud.username,
            "password": cloud.password,
            "project_name": cloud.project_name,
            "user_domain_name": "Default",
            "project_domain_name": "Default",
        },
        "auth_type": "password",
        "region_name": region,
        "identity_api_version": 3,
        "interface": "public",
    }
    if cacert:
        entry["cacert"] = cacert
    return entry


def write_clouds_yaml(
    path: str, clouds: list[Cloud], auth_url: str, region: str, cacert: str | None = None
) -> None:
    data = {"clouds": {c.name: _cloud_entry(c, auth_url, region, cacert) for c in clouds}}
    header = "# Written by `saphira up` on every start; passwords are kept across starts.\n"
    write_private(path, header + yaml.safe_dump(data, default_flow_style=False, sort_keys=False))


def openrc_text(cloud: Cloud, auth_url: str, region: str, cacert: str | None = None) -> str:
    values = {
        "OS_AUTH_URL": auth_url,
        "OS_USERNAME": cloud.username,
        "OS_PASSWORD": cloud.password,
        "OS_PROJECT_NAME": cloud.project_name,
        "OS_USER_DOMAIN_NAME": "Default",
        "OS_PROJECT_DOMAIN_NAME": "Default",
        "OS_REGION_NAME": region,
        "OS_IDENTITY_API_VERSION": "3",
        "OS_INTERFACE": "public",
    }
    if cacert:
        values["OS_CACERT"] = cacert
    lines = [f"# source me: credentials of the {cloud.name} cloud (written by saphira up)"]
    lines += [f"export {key}={shlex.quote(value)}" for key, value in values.items()]
    return "\n".join(lines) + "\n"


def write_client_files(
    state_dir: str, clouds: list[Cloud], auth_url: str, region: str, cacert: str | None = None
) -> None:
    """clouds.yaml plus one <name>-openrc per cloud, all 0600; ``cacert`` when TLS is on."""
    write_clouds_yaml(os.path.join(state_dir, CLOUDS_NAME), clouds, auth_url, region, cacert)
    for cloud in clouds:
        write_private(
            os.path.join(state_dir, f"{cloud.name}-openrc"),
            openrc_text(cloud, auth_url, region, cacert),
        )


def usage(state_dir: str) -> str:
    """The lines printed after start: how to use what was written."""
    clouds = os.path.join(state_dir, CLOUDS_NAME)
    openrc = os.path.join(state_dir, "admin-openrc")
    return (
        f"clouds 'admin' and 'demo' in {clouds}; use them with\n"
        f"  OS_CLIENT_CONFIG_FILE={shlex.quote(clouds)} openstack --os-cloud admin token issue\n"
        f"  or: . {shlex.quote(openrc)} && openstack token issue"
    )
