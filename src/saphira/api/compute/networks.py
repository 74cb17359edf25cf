"""/os-networks and /os-tenant-networks: the network service's networks as the
caller sees them, in nova-network's old shapes, up to 2.35 (404 from 2.36 on).

What only nova-network could do (create, delete, add, associate) is gone from
Nova: 410 at every microversion, as there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.compute import network_proxy as proxy
from saphira.api.compute.app import Call, Handler, max_version, route
from saphira.api.wsgi import json_response
from saphira.clients.network import NetworkNotFound
from saphira.exception import NotFound, SaphiraError

View = Callable[[Call, dict[str, Any]], dict[str, Any]]

_FIELDS = ("id", "cidr", "netmask", "gateway", "broadcast", "dns1", "dns2", "cidr_v6",
           "gateway_v6", "label", "netmask_v6")  # fmt: skip
# What an admin saw of a nova-network network; none of it exists any more.
_ADMIN_FIELDS = ("created_at", "updated_at", "deleted_at", "deleted", "injected", "bridge",
                 "vlan", "vpn_public_address", "vpn_public_port", "vpn_private_address",
                 "dhcp_start", "project_id", "host", "bridge_interface", "multi_host",
                 "priority", "rxtx_base", "mtu", "dhcp_server", "enable_dhcp",
                 "share_address")  # fmt: skip


class Gone(SaphiraError):
    code = 410
    title = "Gone"
    msg_fmt = "This resource is no longer available. No forwarding address is given."


def _network(call: Call, network: dict[str, Any]) -> dict[str, Any]:
    fields = _FIELDS + _ADMIN_FIELDS if call.context.is_admin else _FIELDS
    view: dict[str, Any] = dict.fromkeys(fields)
    view.update({"id": network["id"], "label": network["name"]})
    return view


def _tenant_network(call: Call, network: dict[str, Any]) -> dict[str, Any]:
    return {"id": network["id"], "cidr": "None", "label": network["name"]}  # sic: Nova's


def _lookup(call: Call, network_id: str) -> dict[str, Any]:
    try:
        return proxy.client(call).show_network(network_id)
    except NetworkNotFound:
        raise NotFound("Network not found") from None


def _lister(rule: str, view: View) -> Handler:
    @max_version(proxy.MAX_PROXY)
    def index(call: Call) -> Response:
        call.enforce(f"os_compute_api:{rule}:list")
        networks = proxy.client(call).list_networks()
        return json_response({"networks": [view(call, network) for network in networks]})

    return index


def _shower(rule: str, view: View) -> Handler:
    @max_version(proxy.MAX_PROXY)
    def show(call: Call, network_id: str) -> Response:
        call.enforce(f"os_compute_api:{rule}:show")
        return json_response({"network": view(call, _lookup(call, network_id))})

    return show


def gone(call: Call, **_ids: str) -> Response:
    raise Gone()


def routes() -> list[Rule]:
    found: list[Rule] = []
    kinds: list[tuple[str, View]] = [("os-networks", _network),
                                     ("os-tenant-networks", _tenant_network)]  # fmt: skip
    for rule, view in kinds:
        path = f"/{rule}"
        found += [
            *route(path, ["GET"], _lister(rule, view)),
            *route(path, ["POST"], gone),
            *route(f"{path}/<network_id>", ["GET"], _shower(rule, view)),
            *route(f"{path}/<network_id>", ["DELETE"], gone),
        ]
    return [
        *found,
        *route("/os-networks/add", ["POST"], gone),
        *route("/os-networks/<network_id>/action", ["POST"], gone),
    ]
