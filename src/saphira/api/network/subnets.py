"""/v2.0/subnets."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session
from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.network import crud
from saphira.api.network.app import Call, route
from saphira.api.network.attributes import (
    COMMON,
    Attr,
    anything,
    boolean,
    dict_of,
    ip_version,
    list_of,
    nullable,
    one_of,
    string,
    uuid_text,
)
from saphira.api.network.listing import Collection
from saphira.api.network.views import View, subnet_view
from saphira.netsvc import access, errors, subnets

MODES = one_of("slaac", "dhcpv6-stateful", "dhcpv6-stateless")
SPEC: dict[str, Attr] = {
    **COMMON,
    "network_id": Attr(uuid_text, put=False, required=True),
    "ip_version": Attr(ip_version, put=False, required=True),
    "cidr": Attr(string(64), put=False, required=True),
    "gateway_ip": Attr(nullable(string(64))),
    "allocation_pools": Attr(list_of(dict_of(("start", "end"), ("start", "end")))),
    "dns_nameservers": Attr(list_of(anything)),
    "host_routes": Attr(list_of(dict_of(("destination", "nexthop"), ("destination", "nexthop")))),
    "enable_dhcp": Attr(boolean),
    "ipv6_ra_mode": Attr(nullable(MODES), put=False),
    "ipv6_address_mode": Attr(nullable(MODES), put=False),
}
COLLECTION = Collection(
    "subnets",
    scalars=(
        "id",
        "name",
        "project_id",
        "network_id",
        "ip_version",
        "cidr",
        "gateway_ip",
        "enable_dhcp",
        "ipv6_ra_mode",
        "ipv6_address_mode",
        "subnetpool_id",
        "description",
        "created_at",
        "updated_at",
        "revision_number",
    ),
    lists=("dns_nameservers",),
)


def _list(call: Call) -> Response:
    with call.reader() as session:
        views = [subnet_view(s) for s in session.scalars(access.subnets(call.caller))]
    return crud.listed(
        call, COLLECTION, views, lambda v: v, lambda m: errors.SubnetNotFound(subnet_id=m)
    )


def _show(call: Call, subnet_id: str) -> Response:
    with call.reader() as session:
        view = subnet_view(access.subnet(session, call.caller, subnet_id))
    return crud.one(call, "subnet", view)


def _create(call: Call) -> Response:
    def make(session: Session, attrs: dict[str, Any]) -> View:
        return subnet_view(subnets.create(session, call.caller, call.settings, attrs))

    return crud.created(call, "subnet", "subnets", SPEC, make)


def _update(call: Call, subnet_id: str) -> Response:
    def change(session: Session, attrs: dict[str, Any]) -> View:
        return subnet_view(subnets.update(session, call.caller, subnet_id, attrs))

    return crud.updated(call, "subnet", SPEC, change)


def _delete(call: Call, subnet_id: str) -> Response:
    return crud.deleted(call, lambda session: subnets.delete(session, call.caller, subnet_id))


def routes() -> list[Rule]:
    return [
        route("/subnets", ["GET"], _list),
        route("/subnets", ["POST"], _create),
        route("/subnets/<subnet_id>", ["GET"], _show),
        route("/subnets/<subnet_id>", ["PUT"], _update),
        route("/subnets/<subnet_id>", ["DELETE"], _delete),
    ]
