"""openstacksdk connections and raw identity calls for the functional tests."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import openstack
import requests
import yaml

from saphira.identity.fernet_keys import KeyRepository
from saphira.identity.tokens import TokenPayload, TokenProvider, utcnow

TIMEOUT = 30


def sdk(clouds_yaml: Path, name: str) -> Any:
    """A connection to a cloud of clouds.yaml, ignoring the caller's OS_* settings.

    The file is read here rather than by openstacksdk's config loader, whose
    metrics section handling warns about InfluxDB on every load.
    """
    entry = yaml.safe_load(clouds_yaml.read_text())["clouds"][name]
    auth = entry["auth"]
    return sdk_password(auth["auth_url"], auth["username"], auth["password"], auth["project_name"])


def sdk_password(auth_url: str, user: str, password: str, project: str) -> Any:
    return openstack.connect(
        auth_url=auth_url,
        username=user,
        password=password,
        project_name=project,
        user_domain_name="Default",
        project_domain_name="Default",
        region_name="RegionOne",
        identity_interface="public",
        load_yaml_config=False,
        load_envvars=False,
    )


def validate(identity_url: str, auth_token: str, subject: str | None = None) -> requests.Response:
    """GET /v3/auth/tokens: the subject validated with the auth token."""
    headers = {"X-Auth-Token": auth_token, "X-Subject-Token": subject or auth_token}
    return requests.get(f"{identity_url}/auth/tokens", headers=headers, timeout=TIMEOUT)


def expired_token(state_dir: Path, user_id: str, project_id: str) -> str:
    """A token the cloud itself could have issued an hour ago, expired a minute ago.

    Signed with the cloud's own key repository, so only its expiry is wrong;
    waiting for a real token to expire would take at least a minute.
    """
    now = utcnow()
    payload = TokenPayload(
        user_id=user_id,
        methods=("password",),
        issued_at=now - dt.timedelta(hours=1),
        expires_at=now - dt.timedelta(minutes=1),
        project_id=project_id,
    )
    return TokenProvider(KeyRepository(str(state_dir / "fernet-keys"))).issue(payload)
