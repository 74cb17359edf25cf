"""Version documents: ``GET /`` lists v2.0 and v2.1, ``/v2`` and ``/v2.1`` describe one."""

from __future__ import annotations

from typing import Any

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.compute import microversion
from saphira.api.compute.app import public_route
from saphira.api.wsgi import Request, json_response

_DOCS = "https://docs.openstack.org/"
_VERSIONS: dict[str, dict[str, str]] = {
    "v2.0": {"status": "SUPPORTED", "updated": "2011-01-21T11:33:21Z", "path": "v2",
             "version": "", "min_version": ""},
    "v2.1": {"status": "CURRENT", "updated": "2013-07-23T11:33:21Z", "path": "v2.1",
             "version": str(microversion.MAX), "min_version": str(microversion.MIN)},
}  # fmt: skip
_MEDIA = "application/vnd.openstack.compute+json;version=2"


def _summary(request: Request, ident: str) -> dict[str, Any]:
    info = _VERSIONS[ident]
    href = f"{request.host_url.rstrip('/')}/{info['path']}/"
    return {
        "id": ident,
        "status": info["status"],
        "version": info["version"],
        "min_version": info["min_version"],
        "updated": info["updated"],
        "links": [{"rel": "self", "href": href}],
    }


def list_versions(request: Request) -> Response:
    return json_response({"versions": [_summary(request, ident) for ident in _VERSIONS]})


def _one(request: Request, ident: str) -> Response:
    doc = _summary(request, ident)
    doc["links"].append({"rel": "describedby", "type": "text/html", "href": _DOCS})
    media = _MEDIA if ident == "v2.0" else f"{_MEDIA}.1"
    doc["media-types"] = [{"base": "application/json", "type": media}]
    return json_response({"version": doc})


def show_v21(request: Request) -> Response:
    return _one(request, "v2.1")


def show_v20(request: Request) -> Response:
    return _one(request, "v2.0")


def routes() -> list[Rule]:
    return [
        public_route("/", list_versions),
        public_route("/v2.1", show_v21),
        public_route("/v2", show_v20),
    ]


PUBLIC_PATHS = frozenset({"", "/", "/v2", "/v2/", "/v2.1", "/v2.1/"})
