"""Remote consoles: a URL with a fresh token (POST /servers/{id}/remote-consoles,
2.6+; the os-getVNCConsole action below 2.6) and the token's connection info
for admins (GET /os-console-auth-tokens/{token}), in Nova's shapes.

The compute host says where the guest's console listens (RPC
get_console_endpoint); ``saphira.computesvc.consoles`` keeps the token, hashed,
in the server's cell. noVNC, SPICE html5 and serial consoles; the console type is a
parameter everywhere: SPICE (spice-html5) and serial take the same path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.compute import server_lookup
from saphira.api.compute.app import Call, min_version, route
from saphira.api.wsgi import json_response
from saphira.computesvc import consoles
from saphira.exception import BadRequest, Conflict, ConsoleTypeUnavailable, NotFound, Unauthorized
from saphira.objects import ConsoleType

# (protocol, type) pairs Nova's schema accepts; the ones not served get its 400.
_PROTOCOLS = ("vnc", "spice", "rdp", "serial", "mks")
_TYPES = ("novnc", "xvpvnc", "rdp-html5", "spice-html5", "serial", "webmks")
_SERVED = {(kind.protocol, kind.value): kind for kind in ConsoleType}
REMOTE_CONSOLE_BODY = {
    "type": "object",
    "required": ["remote_console"],
    "additionalProperties": False,
    "properties": {
        "remote_console": {
            "type": "object",
            "required": ["protocol", "type"],
            "additionalProperties": False,
            "properties": {
                "protocol": {"enum": list(_PROTOCOLS)},
                "type": {"enum": list(_TYPES)},
            },
        }
    },
}


def console_url(call: Call, server_id: str, kind: ConsoleType) -> str:
    """A new token's URL for ``server_id``'s console of ``kind`` (404 if not visible)."""
    found = server_lookup.locate(call, server_id)
    call.enforce("os_compute_api:os-remote-consoles", {
        "project_id": found.instance.project_id, "user_id": found.instance.user_id})  # fmt: skip
    instance = found.instance
    if found.cell is None or not instance.host or instance.vm_state != "active":
        raise Conflict(f"Instance {instance.uuid} is not ready")
    conf = call.state.conf
    base = consoles.base_url(conf, kind)
    endpoint = call.state.servers.compute.get_console_endpoint(call.context, instance, kind)
    token = consoles.authorize(call.svc, found, kind, endpoint, base, conf.consoleauth.token_ttl)
    return consoles.access_url(base, token, kind)


def vnc_action(call: Call, server_id: str, _key: str, body: Any) -> Response:
    """os-getVNCConsole (2.1-2.5): {"console": {"type", "url"}}."""
    if call.at_least("2.6"):
        raise NotFound("The resource could not be found.")
    kind = body.get("type") if isinstance(body, dict) else None
    if kind not in ("novnc", "xvpvnc"):
        raise BadRequest("Invalid input for field/attribute type.")
    if kind != ConsoleType.NOVNC.value:
        raise ConsoleTypeUnavailable(console_type=kind)
    url = console_url(call, server_id, ConsoleType.NOVNC)
    return json_response({"console": {"type": kind, "url": url}})


def _legacy_action(kind: ConsoleType) -> Callable[[Call, str, str, Any], Response]:
    """os-getSPICEConsole / os-getSerialConsole (2.1-2.5): the one type each accepts."""

    def action(call: Call, server_id: str, _key: str, body: Any) -> Response:
        if call.at_least("2.6"):
            raise NotFound("The resource could not be found.")
        if not isinstance(body, dict) or body.get("type") != kind.value:
            raise BadRequest("Invalid input for field/attribute type.")
        url = console_url(call, server_id, kind)
        return json_response({"console": {"type": kind.value, "url": url}})

    return action


spice_action = _legacy_action(ConsoleType.SPICE_HTML5)
serial_action = _legacy_action(ConsoleType.SERIAL)


@min_version("2.6")
def remote_console(call: Call, server_id: str) -> Response:
    data = call.body(REMOTE_CONSOLE_BODY)["remote_console"]
    kind = _SERVED.get((data["protocol"], data["type"]))
    if kind is None:
        raise ConsoleTypeUnavailable(console_type=data["type"])
    url = console_url(call, server_id, kind)
    body = {"protocol": kind.protocol, "type": kind.value, "url": url}
    return json_response({"remote_console": body})


def auth_token(call: Call, token: str) -> Response:
    """The token's connection info; below 2.31 only RDP tokens are shown (Nova's 401)."""
    call.enforce("os_compute_api:os-console-auth-tokens")
    try:
        found = consoles.validate(call.state.directory, token)
    except NotFound:
        raise NotFound("Token not found") from None
    if not call.at_least("2.31") and found.console_type != "rdp-html5":
        raise Unauthorized("The requested console type details are not accessible")
    console: dict[str, Any] = {
        "instance_uuid": found.instance_uuid, "host": found.host, "port": found.port,
        "internal_access_path": found.internal_access_path,
    }  # fmt: skip
    if call.at_least("2.99"):
        console["tls_port"] = None  # SPICE's TLS port; no TLS consoles here
    return json_response({"console": console})


def routes() -> list[Rule]:
    return [
        *route("/servers/<server_id>/remote-consoles", ["POST"], remote_console),
        *route("/os-console-auth-tokens/<token>", ["GET"], auth_token),
    ]
