"""/v2.0/extensions: exactly what this service implements, under Neutron's aliases.

Clients decide from this list what to send (the CLI and Nova look for
``binding``, ``port-security``, ``security-group`` ...), so nothing is
listed that is not served.
"""

from __future__ import annotations

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.network.app import Call, route
from saphira.api.wsgi import json_response
from saphira.exception import NotFound

UPDATED = "2024-01-01T00:00:00-00:00"
_EXTENSIONS: tuple[tuple[str, str, str], ...] = (
    ("agent", "agent", "The agent management extension."),
    ("allowed-address-pairs", "Allowed Address Pairs", "Provides allowed address pairs"),
    ("binding", "Port Binding", "Expose port bindings of a virtual port to external application"),
    ("external-net", "Neutron external network", "Adds external network attribute to network "
     "resource."),
    ("net-mtu", "Network MTU", "Provides MTU attribute for a network resource."),
    ("net-mtu-writable", "Network MTU (writable)", "Provides a writable MTU attribute for a "
     "network resource."),
    ("pagination", "Pagination support", "Extension that indicates that pagination is enabled."),
    ("port-security", "Port Security", "Provides port security"),
    ("project-id", "project_id field enabled", "Extension that indicates that project_id field "
     "is enabled."),
    ("provider", "Provider Network", "Expose mapping of virtual networks to physical networks"),
    ("quotas", "Quota management support", "Expose functions for quotas management per "
     "project"),
    ("quota_details", "Quota details management support", "Expose functions for quotas usage "
     "statistics per project"),
    ("security-group", "security-group", "The security groups extension."),
    ("sorting", "Sorting support", "Extension that indicates that sorting is enabled."),
    ("standard-attr-description", "standard-attr-description", "Extension to add descriptions "
     "to standard attributes"),
    ("standard-attr-revisions", "Resource revision numbers", "This extension will display the "
     "revision number of neutron resources."),
    ("standard-attr-timestamp", "Resource timestamps", "Adds created_at and updated_at fields "
     "to all Neutron resources that have Neutron standard attributes."),
    ("stateful-security-group", "Stateful security group", "Indicates if the security group "
     "is stateful or not"),
    ("filter-validation", "Filter parameters validation", "Provides validation on filter "
     "parameters."),
)  # fmt: skip


def aliases() -> list[str]:
    """What a client configures as the service's extensions (tempest's api_extensions)."""
    return [alias for alias, _name, _description in _EXTENSIONS]


def _view(alias: str, name: str, description: str) -> dict[str, object]:
    return {"alias": alias, "name": name, "description": description, "updated": UPDATED,
            "links": []}  # fmt: skip


def _list(call: Call) -> Response:
    return json_response({"extensions": [_view(*ext) for ext in _EXTENSIONS]})


def _show(call: Call, alias: str) -> Response:
    for ext in _EXTENSIONS:
        if ext[0] == alias:
            return json_response({"extension": _view(*ext)})
    raise NotFound(f"Extension with alias {alias} does not exist")


def routes() -> list[Rule]:
    return [
        route("/extensions", ["GET"], _list),
        route("/extensions/<path:alias>", ["GET"], _show),
    ]
