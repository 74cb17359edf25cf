"""The headers between guest, proxy, agent and metadata API: what is stripped, what is signed.

The contract with the metadata API is Nova's (and Neutron's metadata agent's):
``X-Instance-ID``, ``X-Tenant-ID``, ``X-Instance-ID-Signature`` (hex
HMAC-SHA256 of the instance id keyed with ``[neutron]
metadata_proxy_shared_secret``) and ``X-Forwarded-For``. A guest must never
set any of them, nor the proxy's own ``X-Neutron-Network-ID``.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable

NETWORK_ID = "X-Neutron-Network-ID"
FORWARDED_FOR = "X-Forwarded-For"
INSTANCE_ID = "X-Instance-ID"
TENANT_ID = "X-Tenant-ID"
SIGNATURE = "X-Instance-ID-Signature"

# RFC 9110 7.6.1's hop-by-hop headers, and what only the proxy path may set.
HOP_BY_HOP = frozenset(
    {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "proxy-connection",
     "te", "trailer", "trailers", "transfer-encoding", "upgrade"}
)  # fmt: skip
TRUSTED_PREFIXES = ("x-instance-id", "x-tenant-id", "x-forwarded-", "x-neutron-", "x-saphira-")
TRUSTED_NAMES = frozenset({"forwarded", "x-real-ip", "host", "content-length"})


def guest_may_send(name: str) -> bool:
    """Whether a header from the guest may travel on (the proxy sets the others itself)."""
    lowered = name.strip().lower()
    return not (
        lowered in HOP_BY_HOP or lowered in TRUSTED_NAMES or lowered.startswith(TRUSTED_PREFIXES)
    )


def from_guest(headers: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """The guest's headers without hop-by-hop ones and without any the proxy path owns.

    Also drops what the guest's ``Connection`` header names as hop-by-hop.
    """
    pairs = list(headers)
    named = {
        token.strip().lower()
        for name, value in pairs
        if name.strip().lower() == "connection"
        for token in value.split(",")
    }
    return [
        (name, value)
        for name, value in pairs
        if guest_may_send(name) and name.strip().lower() not in named
    ]


def sign_instance_id(secret: str, instance_id: str) -> str:
    """Nova's ``X-Instance-ID-Signature``: hex HMAC-SHA256 of the id, keyed with the secret."""
    return hmac.new(secret.encode(), instance_id.encode(), hashlib.sha256).hexdigest()


def to_metadata_api(
    instance_id: str, project_id: str, remote_address: str, secret: str
) -> dict[str, str]:
    """The four headers the metadata API trusts, and nothing from the guest."""
    return {
        FORWARDED_FOR: remote_address,
        INSTANCE_ID: instance_id,
        TENANT_ID: project_id,
        SIGNATURE: sign_instance_id(secret, instance_id),
    }
