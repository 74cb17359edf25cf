"""The network service as the compute API's proxies reach it: with the caller's
own token, as Nova's neutron client does, so it shows what the caller may see
and refuses what the caller may not do.

Nova maps the service's refusals differently per call (a conflict is a 400
for one, a 403 for another), so each proxy names its mapping to ``refused``;
the network service's message is kept. A refusal a proxy did not expect goes
up as it is (a 500).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from saphira.api.compute.app import Call
from saphira.api.compute.security_group_views import server_groups
from saphira.clients.network import NetworkClient, NetworkRefused
from saphira.exception import BadRequest, NotImplementedHere, SaphiraError
from saphira.objects import Instance

Refusals = Mapping[int, type[SaphiraError]]
MAX_PROXY = "2.35"  # Nova's MAX_PROXY_API_SUPPORT_VERSION: 404 from 2.36 on


def client(call: Call) -> NetworkClient:
    url = call.state.network_url
    if not url:
        raise NotImplementedHere("No network service is configured for this cloud.")
    token = call.context.auth_token or ""
    return NetworkClient.for_caller(url, token)


@contextmanager
def refused(mapping: Refusals) -> Iterator[None]:
    try:
        yield
    except NetworkRefused as error:
        kind = mapping.get(error.code)
        if kind is None:
            raise
        raise kind(error.message) from None


def is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def check_uuid(value: str, message: str) -> str:
    if not is_uuid(value):
        raise BadRequest(message)
    return value


def security_group_names(call: Call, instances: list[Instance]) -> dict[str, list[dict[str, str]]]:
    """The ``security_groups`` of server bodies, as Nova shows them: from the
    servers' ports (a server without NICs asks nothing and shows none)."""
    wired = [instance.uuid for instance in instances if instance.network_info]
    if not wired:
        return {}
    found = server_groups(client(call), wired, detailed=False)
    return {
        server: [{"name": group.get("name") or group["id"]} for group in groups]
        for server, groups in found.items()
    }
