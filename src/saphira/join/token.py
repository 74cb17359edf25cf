"""Join tokens, node side: redeem one on the controller for the join's answers.

The token (``saphira.domain.join_token``) names the controller's compute API
addresses; the first that answers gets ``POST /compute-join`` with the
token's id and secret, and its reply carries the controller-side answers
(the controller's address, transport URL, identity URL, region, the service
users' passwords, the image and console URLs). A refusal (used, expired,
forged) stops the join before anything is written.
"""

from __future__ import annotations

from saphira.clients.transport import Request, Transport, TransportError
from saphira.domain.join_token import REDEEM_PATH, decode
from saphira.exception import JoinRefused
from saphira.join import answers as ans

TIMEOUT = 10.0


def redeem(transport: Transport, text: str) -> dict[str, str]:
    """The answers the controller gives for this token (once)."""
    token = decode(text)
    errors = []
    body = {"token_id": token.token_id, "secret": token.secret}
    for address in token.addresses:
        url = f"http://{address}{REDEEM_PATH}"
        request = Request("POST", url, {"Accept": "application/json"}, None, body, timeout=TIMEOUT)
        try:
            reply = transport.send(request)
        except TransportError as error:
            errors.append(f"{url}: {error.message}")
            continue
        if reply.status != 200:
            raise JoinRefused(
                reason=f"the controller refused the join token: {reply.status} {reply.text[:300]}"
                " (nothing was written)"
            )
        answers = reply.json().get("join", {})
        return {k: str(v) for k, v in answers.items() if k in ans.NAMES}
    raise JoinRefused(reason=f"no controller address of the token answered: {'; '.join(errors)}")
