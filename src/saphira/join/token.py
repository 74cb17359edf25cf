"""Join tokens, node side: decode one and redeem it on the controller.

A token is one argument: base64url of ``v1 <addresses> <id> <secret>``
(addresses comma separated). Redemption is ``POST /compute-join`` on the
controller's compute API (``saphira.api.compute.compute_join``), which
answers the configuration's controller-side answers once.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

from saphira.clients.transport import Request, Transport, TransportError
from saphira.exception import ComputeTokenInvalid, JoinRefused
from saphira.join import answers as ans

VERSION = "v1"
PORT = 8774
PATH = "/compute-join"


@dataclass(frozen=True)
class Token:
    addresses: tuple[str, ...]
    token_id: str
    secret: str


def encode(token: Token) -> str:
    text = f"{VERSION} {','.join(token.addresses)} {token.token_id} {token.secret}"
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def decode(text: str) -> Token:
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode()
        version, addresses, token_id, secret = raw.split(" ")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise ComputeTokenInvalid() from None
    if version != VERSION or not addresses:
        raise ComputeTokenInvalid()
    return Token(tuple(addresses.split(",")), token_id, secret)


def redeem(transport: Transport, text: str, port: int = PORT) -> dict[str, str]:
    """The answers the controller gives for this token (once); refused: nothing written."""
    token = decode(text)
    errors = []
    for address in token.addresses:
        url = f"http://{address}:{port}{PATH}"
        body = {"token_id": token.token_id, "secret": token.secret}
        try:
            reply = transport.send(Request("POST", url, {"Accept": "application/json"}, None, body,
                                           timeout=10))  # fmt: skip
        except TransportError as error:
            errors.append(f"{url}: {error.message}")
            continue
        if reply.status != 200:
            raise JoinRefused(reason=f"the controller refused the join token: {reply.status} "
                                     f"{reply.text[:300]} (nothing was written)")  # fmt: skip
        answers = reply.json().get("join", {})
        return {k: str(v) for k, v in answers.items() if k in ans.NAMES}
    raise JoinRefused(reason=f"no controller address of the token answered: {'; '.join(errors)}")
