"""/os-keypairs: create (generate or import; import only from 2.92), list (2.35 paging),
show, delete."""

from __future__ import annotations

import datetime as dt
from typing import Any

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.compute import keygen, schemas
from saphira.api.compute.app import Call, route
from saphira.api.compute.common import paging
from saphira.api.wsgi import json_response
from saphira.computesvc import keypairs as store
from saphira.computesvc.keypairs import KeyPair
from saphira.exception import BadRequest


def _time(value: dt.datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _user(call: Call, rule: str) -> str:
    """The key pairs' owner: the caller, or ?user_id= / body user_id for admins (2.10)."""
    user_id = call.request.args.get("user_id") if call.at_least("2.10") else None
    owner = user_id or call.context.user_id or ""
    call.enforce(rule, {"user_id": owner})
    return owner


def _get(call: Call, name: str, user_id: str) -> KeyPair:
    return store.get(call.svc, name, user_id)


def _summary(call: Call, row: KeyPair) -> dict[str, Any]:
    view = {"name": row.name, "public_key": row.public_key, "fingerprint": row.fingerprint}
    if call.at_least("2.2"):
        view["type"] = row.type
    return view


def index(call: Call) -> Response:
    user_id = _user(call, "os_compute_api:os-keypairs:index")
    rows = store.list_keypairs(call.svc, user_id)
    body: dict[str, Any] = {}
    if call.at_least("2.35"):
        limit, marker = paging(call)
        if marker is not None:
            names = [row.name for row in rows]
            if marker not in names:
                raise BadRequest(f"Marker {marker} could not be found.")
            rows = rows[names.index(marker) + 1 :]
        more = len(rows) > limit
        rows = rows[:limit]
        if more and rows and call.request.args.get("limit") is not None:
            body["keypairs_links"] = call.next_link("os-keypairs", rows[-1].name)
    body["keypairs"] = [{"keypair": _summary(call, row)} for row in rows]
    return json_response(body)


def show(call: Call, keypair_name: str) -> Response:
    row = _get(call, keypair_name, _user(call, "os_compute_api:os-keypairs:show"))
    view = _summary(call, row)
    view.update({
        "user_id": row.user_id, "deleted": False, "id": row.id,
        "created_at": _time(row.created_at), "updated_at": _time(row.updated_at),
        "deleted_at": None,
    })  # fmt: skip
    return json_response({"keypair": view})


def _schema(call: Call) -> dict[str, Any]:
    if call.at_least("2.92"):
        return schemas.KEYPAIR_CREATE_292
    if call.at_least("2.10"):
        return schemas.KEYPAIR_CREATE_210
    return schemas.KEYPAIR_CREATE_22 if call.at_least("2.2") else schemas.KEYPAIR_CREATE


def create(call: Call) -> Response:
    data = call.body(_schema(call))["keypair"]
    owner = data.get("user_id") or call.context.user_id or ""
    call.enforce("os_compute_api:os-keypairs:create", {"user_id": owner})
    key_type = data.get("type", "ssh")
    made = keygen.material(data["name"], key_type, data.get("public_key"))
    store.create(call.state.quota, call.svc, owner, data["name"], fingerprint=made.fingerprint,
                 public_key=made.public_key, key_type=key_type)  # fmt: skip
    view = {"name": data["name"], "public_key": made.public_key,
            "fingerprint": made.fingerprint, "user_id": owner}  # fmt: skip
    if made.private_key is not None:
        view["private_key"] = made.private_key
    if call.at_least("2.2"):
        view["type"] = key_type
    return json_response({"keypair": view}, status=201 if call.at_least("2.2") else 200)


def delete(call: Call, keypair_name: str) -> Response:
    store.delete(call.svc, keypair_name, _user(call, "os_compute_api:os-keypairs:delete"))
    return Response(status=204 if call.at_least("2.2") else 202)


def routes() -> list[Rule]:
    return [
        *route("/os-keypairs", ["GET"], index),
        *route("/os-keypairs", ["POST"], create),
        *route("/os-keypairs/<keypair_name>", ["GET"], show),
        *route("/os-keypairs/<keypair_name>", ["DELETE"], delete),
    ]
