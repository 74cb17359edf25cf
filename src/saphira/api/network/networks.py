"""/v2.0/networks."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session
from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.network import crud
from saphira.api.network.app import Call, route
from saphira.api.network.attributes import COMMON, Attr, boolean, integer, nullable, string
from saphira.api.network.listing import Collection
from saphira.api.network.views import NETWORK_RULES, View, network_view, public
from saphira.netsvc import access, errors, networks

SPEC: dict[str, Attr] = {
    **COMMON,
    "admin_state_up": Attr(boolean),
    "shared": Attr(boolean),
    "router:external": Attr(boolean),
    "port_security_enabled": Attr(boolean),
    "mtu": Attr(integer(68)),
    "provider:network_type": Attr(nullable(string(32))),
    "provider:physical_network": Attr(nullable(string(64))),
    "provider:segmentation_id": Attr(nullable(integer())),
}
COLLECTION = Collection(
    "networks",
    scalars=(
        "id",
        "name",
        "project_id",
        "status",
        "admin_state_up",
        "shared",
        "router:external",
        "mtu",
        "port_security_enabled",
        "provider:network_type",
        "provider:physical_network",
        "provider:segmentation_id",
        "description",
        "created_at",
        "updated_at",
        "revision_number",
    ),
    lists=("subnets",),
)


def _shown(call: Call) -> Any:
    return lambda view: public(call.caller, view, NETWORK_RULES)


def _list(call: Call) -> Response:
    with call.reader() as session:
        views = [network_view(n) for n in session.scalars(access.networks(call.caller))]
    return crud.listed(
        call, COLLECTION, views, _shown(call), lambda m: errors.NetworkNotFound(net_id=m)
    )


def _show(call: Call, net_id: str) -> Response:
    with call.reader() as session:
        view = network_view(access.network(session, call.caller, net_id))
    return crud.one(call, "network", _shown(call)(view))


def _create(call: Call) -> Response:
    def make(session: Session, attrs: dict[str, Any]) -> View:
        network = networks.create(session, call.caller, call.settings, attrs)
        return public(call.caller, network_view(network), NETWORK_RULES)

    return crud.created(call, "network", "networks", SPEC, make)


def _update(call: Call, net_id: str) -> Response:
    def change(session: Session, attrs: dict[str, Any]) -> View:
        network = networks.update(session, call.caller, call.settings, net_id, attrs)
        return public(call.caller, network_view(network), NETWORK_RULES)

    return crud.updated(call, "network", SPEC, change)


def _delete(call: Call, net_id: str) -> Response:
    return crud.deleted(call, lambda session: networks.delete(session, call.caller, net_id))


def routes() -> list[Rule]:
    return [
        route("/networks", ["GET"], _list),
        route("/networks", ["POST"], _create),
        route("/networks/<net_id>", ["GET"], _show),
        route("/networks/<net_id>", ["PUT"], _update),
        route("/networks/<net_id>", ["DELETE"], _delete),
    ]
