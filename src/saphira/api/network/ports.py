"""/v2.0/ports."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session
from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.network import crud
from saphira.api.network.app import Call, route
from saphira.api.network.attributes import (
    COMMON,
    Attr,
    a_dict,
    anything,
    boolean,
    list_of,
    nullable,
    one_of,
    string,
    uuid_text,
)
from saphira.api.network.listing import Collection
from saphira.api.network.views import PORT_RULES, View, port_view, public
from saphira.db.network.models import IPAllocation, Port
from saphira.netsvc import access, errors, ports

VNIC_TYPES = one_of(
    "normal", "direct", "macvtap", "baremetal", "direct-physical", "virtio-forwarder"
)
SPEC: dict[str, Attr] = {
    **COMMON,
    "network_id": Attr(uuid_text, put=False, required=True),
    "admin_state_up": Attr(boolean),
    "mac_address": Attr(string(32)),
    "fixed_ips": Attr(list_of(anything)),
    "device_id": Attr(string(255)),
    "device_owner": Attr(string(255)),
    "security_groups": Attr(nullable(list_of(uuid_text))),
    "port_security_enabled": Attr(boolean),
    "allowed_address_pairs": Attr(nullable(list_of(anything))),
    "binding:host_id": Attr(nullable(string(255))),
    "binding:profile": Attr(nullable(a_dict)),
    "binding:vnic_type": Attr(VNIC_TYPES),
}
COLLECTION = Collection(
    "ports",
    scalars=(
        "id",
        "name",
        "project_id",
        "network_id",
        "mac_address",
        "admin_state_up",
        "status",
        "device_id",
        "device_owner",
        "port_security_enabled",
        "binding:host_id",
        "binding:vif_type",
        "binding:vnic_type",
        "description",
        "created_at",
        "updated_at",
        "revision_number",
    ),
    lists=("security_groups",),
)
FIXED_IP_FILTERS = ("fixed_ips", "ip_address", "subnet_id")
_COLUMNS = {"id": Port.id, "network_id": Port.network_id, "device_id": Port.device_id,
            "device_owner": Port.device_owner, "project_id": Port.project_id,
            "tenant_id": Port.project_id, "mac_address": Port.mac_address}  # fmt: skip


def _shown(call: Call) -> Any:
    return lambda view: public(call.caller, view, PORT_RULES)


def _fixed_ip_filter(call: Call) -> dict[str, list[str]]:
    """``fixed_ips=ip_address=X`` (and ``subnet_id=``), or ``ip_address``/``subnet_id`` alone."""
    found: dict[str, list[str]] = {}
    for value in call.request.args.getlist("fixed_ips"):
        key, _, wanted = value.partition("=")
        if key not in ("ip_address", "subnet_id") or not wanted:
            raise errors.BadRequest(f"Bad fixed_ips request: '{value}' is not a valid filter.")
        found.setdefault(key, []).append(wanted)
    for key in ("ip_address", "subnet_id"):
        found.setdefault(key, []).extend(v for v in call.request.args.getlist(key) if v)
    return {key: values for key, values in found.items() if values}


def _query(call: Call) -> sa.Select[Port]:
    """The visible ports, narrowed in SQL by the plain column filters and fixed IPs."""
    query = access.ports(call.caller)
    args = call.request.args
    for key, column in _COLUMNS.items():
        values = [v for v in args.getlist(key) if v]
        if values:
            query = query.where(column.in_(values))
    fixed = _fixed_ip_filter(call)
    if fixed:
        holding = sa.select(IPAllocation.port_id)
        if fixed.get("ip_address"):
            holding = holding.where(IPAllocation.ip_address.in_(fixed["ip_address"]))
        if fixed.get("subnet_id"):
            holding = holding.where(IPAllocation.subnet_id.in_(fixed["subnet_id"]))
        query = query.where(Port.id.in_(holding.scalar_subquery()))
    return query


def _list(call: Call) -> Response:
    query = _query(call)
    with call.reader() as session:
        views = [port_view(p) for p in session.scalars(query)]
    return crud.listed(
        call, COLLECTION, views, _shown(call), lambda m: errors.PortNotFound(port_id=m),
        FIXED_IP_FILTERS,
    )  # fmt: skip


def _show(call: Call, port_id: str) -> Response:
    with call.reader() as session:
        view = port_view(access.port(session, call.caller, port_id))
    return crud.one(call, "port", _shown(call)(view))


def _create(call: Call) -> Response:
    def make(session: Session, attrs: dict[str, Any]) -> View:
        port = ports.create(session, call.caller, call.settings, attrs)
        return public(call.caller, port_view(port), PORT_RULES)

    return crud.created(call, "port", "ports", SPEC, make)


def _update(call: Call, port_id: str) -> Response:
    def change(session: Session, attrs: dict[str, Any]) -> View:
        port = ports.update(session, call.caller, call.settings, port_id, attrs)
        return public(call.caller, port_view(port), PORT_RULES)

    return crud.updated(call, "port", SPEC, change)


def _delete(call: Call, port_id: str) -> Response:
    return crud.deleted(call, lambda session: ports.delete(session, call.caller, port_id))


def routes() -> list[Rule]:
    return [
        route("/ports", ["GET"], _list),
        route("/ports", ["POST"], _create),
        route("/ports/<port_id>", ["GET"], _show),
        route("/ports/<port_id>", ["PUT"], _update),
        route("/ports/<port_id>", ["DELETE"], _delete),
    ]
