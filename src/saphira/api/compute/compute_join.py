"""``POST /compute-join``: a new compute node redeems its join token once.

Why the compute API: the token lives in the API database, which this API
owns (as nova-api owns Nova's), and this process already holds what a
compute node's configuration needs from the controller: the message bus'
transport URL and the service users' credentials. The route sits outside
``/v2.1`` and takes no Keystone token (the join token is the credential and
the node has no other yet); everything else about it is the compute API's
(Nova's fault shapes, the body limit).

The reply carries the answers of ``saphira.join.answers`` the controller
knows: its address (the one the node reached), transport URL, identity URL,
region, the nova, placement and neutron users' passwords, the metadata
proxy's secret, the placement, network, image API and noVNC proxy URLs. An unknown, forged,
expired or already used token is one 401; nothing is written then.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from oslo_config import cfg
from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.compute.app import Call, public_post
from saphira.api.wsgi import json_response
from saphira.clients.identity import v3
from saphira.computesvc import join_tokens
from saphira.conf.endpoints import by_type, console_base_url, public_url
from saphira.domain.join_token import REDEEM_PATH
from saphira.exception import Conflict

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "token_id": {"type": "string", "minLength": 1, "maxLength": 36},
        "secret": {"type": "string", "minLength": 1, "maxLength": 128},
    },
    "required": ["token_id", "secret"],
    "additionalProperties": False,
}


def answers(conf: cfg.ConfigOpts, controller: str) -> dict[str, str]:
    """What a compute node's configuration needs from this controller."""
    auth = conf.keystone_authtoken
    return {
        "controller": controller,
        "transport_url": str(conf.transport_url),
        "identity_url": v3(auth.www_authenticate_uri or auth.auth_url
                           or public_url(conf, by_type("identity"))),
        "region": str(conf.region_name),
        "nova_password": str(auth.password or ""),
        "placement_password": str(conf.placement.password or ""),
        "neutron_password": str(conf.neutron.password or ""),
        "metadata_secret": str(conf.neutron.metadata_proxy_shared_secret or ""),
        "placement_url": str(conf.placement.endpoint_override
                             or public_url(conf, by_type("placement"))),
        "network_url": str(conf.neutron.endpoint_override
                           or public_url(conf, by_type("network"))),
        "glance_url": str((list(conf.glance.api_servers or []) or
                           [public_url(conf, by_type("image"))])[0]),
        "novncproxy_base_url": str(conf.vnc.novncproxy_base_url
                                   or console_base_url(conf, by_type("novnc"))),
    }  # fmt: skip


def redeem(call: Call) -> Response:
    body = call.body(SCHEMA)
    conf = call.state.conf
    if str(conf.transport_url).startswith(("inproc:", "fake:")):
        raise Conflict(
            f"this controller's transport_url is {conf.transport_url}: a compute node "
            "can join only a controller whose services talk over a message bus (rabbit://)"
        )
    request = call.request
    join_tokens.redeem(call.session, body["token_id"], body["secret"], request.remote_addr or "")
    controller = urlsplit(request.host_url).hostname or conf.my_ip
    return json_response({"join": answers(conf, controller)},
                         headers={"Cache-Control": "no-store"})  # fmt: skip


def routes() -> list[Rule]:
    return [public_post(REDEEM_PATH, redeem)]
