"""/servers/{id}/os-server-password: the password the guest posted to the metadata
service (``computesvc.guest_metadata.set_password``), shown and cleared as Nova does.

Nova keeps it in the server's system metadata in chunks; an unset one shows as "".
"""

from __future__ import annotations

import json

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.compute import server_lookup
from saphira.api.compute.app import Call, route
from saphira.api.wsgi import json_response
from saphira.computesvc import servers
from saphira.metadata.content import password_chunks, password_of


def _found(call: Call, server_id: str, rule: str) -> server_lookup.Located:
    found = server_lookup.locate(call, server_id)
    call.enforce(f"os_compute_api:os-server-password:{rule}",
                 {"project_id": found.instance.project_id,
                  "user_id": found.instance.user_id})  # fmt: skip
    return found


def show(call: Call, server_id: str) -> Response:
    found = _found(call, server_id, "show")
    return json_response({"password": password_of(found.instance.system_metadata)})


def clear(call: Call, server_id: str) -> Response:
    found = _found(call, server_id, "clear")
    if password_of(found.instance.system_metadata):  # a building server has none yet
        sysmeta = {**found.instance.system_metadata, **password_chunks("")}
        servers.save(call.svc, found, system_metadata=json.dumps(sysmeta))
    return Response(status=204)


def routes() -> list[Rule]:
    path = "/servers/<server_id>/os-server-password"
    return [*route(path, ["GET"], show), *route(path, ["DELETE"], clear)]
