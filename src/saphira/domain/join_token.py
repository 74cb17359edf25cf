"""A join token as one argument: base64url of ``v1 <address:port,...> <id> <secret>``.

``saphira-manage compute-token create`` encodes it on the controller (the
compute API's addresses, the token's id, its secret); the node's
``saphira-openstack-setup-compute --token`` decodes it and redeems it at one
of the addresses (``POST /compute-join``). Anything that does not decode is
the same ``ComputeTokenInvalid`` as a forged one.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

from saphira.exception import ComputeTokenInvalid

VERSION = "v1"
REDEEM_PATH = "/compute-join"


@dataclass(frozen=True)
class JoinToken:
    addresses: tuple[str, ...]  # host:port of the controller's compute API
    token_id: str
    secret: str


def encode(token: JoinToken) -> str:
    text = f"{VERSION} {','.join(token.addresses)} {token.token_id} {token.secret}"
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def decode(text: str) -> JoinToken:
    try:
        raw = base64.urlsafe_b64decode(text.strip() + "=" * (-len(text.strip()) % 4)).decode()
        version, addresses, token_id, secret = raw.split(" ")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise ComputeTokenInvalid() from None
    if version != VERSION or not addresses or not token_id or not secret:
        raise ComputeTokenInvalid()
    return JoinToken(tuple(addresses.split(",")), token_id, secret)
