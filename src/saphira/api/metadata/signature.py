"""Who is asking: the instance the metadata proxy vouches for, never the guest's word.

The proxy (the network side) resolves the guest's network and source address
to an instance and sends, as Neutron's metadata agent does for Nova:
``X-Instance-ID``, ``X-Tenant-ID``, ``X-Instance-ID-Signature`` (hex
HMAC-SHA256 of the instance id keyed with ``[neutron]
metadata_proxy_shared_secret``) and ``X-Forwarded-For`` (the guest's
address). Only a correct signature names an instance; the address is kept
for the logs and identifies nothing. With no secret configured every request
is refused: an empty key would let anyone sign.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
from dataclasses import dataclass

from werkzeug.datastructures import Headers

from saphira.exception import BadRequest, Forbidden

LOG = logging.getLogger(__name__)

INSTANCE = "X-Instance-ID"
TENANT = "X-Tenant-ID"
SIGNATURE = "X-Instance-ID-Signature"
FORWARDED_FOR = "X-Forwarded-For"


@dataclass(frozen=True)
class Proxied:
    instance_id: str
    project_id: str
    address: str | None


def sign(secret: str, instance_id: str) -> str:
    return hmac.new(secret.encode(), instance_id.encode(), hashlib.sha256).hexdigest()


def _one(headers: Headers, name: str) -> str:
    values = headers.getlist(name)
    if not values:
        raise BadRequest(f"{name} header is missing from request.")
    if len(values) > 1 or "," in values[0]:  # WSGI joins repeated headers with commas
        raise BadRequest(f"Multiple {name} headers found within request.")
    return values[0]


def check(headers: Headers, secret: str) -> Proxied:
    """The vouched-for instance, or 400 (headers missing or repeated) / 403 (not signed)."""
    instance_id = _one(headers, INSTANCE)
    project_id = _one(headers, TENANT)
    signature = headers.get(SIGNATURE, "")
    address = headers.get(FORWARDED_FOR)
    if not secret:
        LOG.warning("metadata request for %s refused: [neutron] metadata_proxy_shared_secret "
                    "is not set", instance_id)  # fmt: skip
        raise Forbidden("Invalid proxy request signature.")
    expected = sign(secret, instance_id)
    if not hmac.compare_digest(expected.encode(), signature.encode()):
        LOG.warning("X-Instance-ID-Signature does not match for instance %s (request from %s)",
                    instance_id, address)  # fmt: skip
        raise Forbidden("Invalid proxy request signature.")
    return Proxied(instance_id, project_id, address)
