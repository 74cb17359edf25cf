"""Version discovery: GET / (300 Multiple Choices) and GET /v3."""

from __future__ import annotations

from typing import Any

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.identity.app import Call, route
from saphira.api.wsgi import json_response

UPDATED = "2024-04-01T00:00:00Z"
VERSION_ID = "v3.14"


def _v3(base: str) -> dict[str, Any]:
    return {
        "id": VERSION_ID,
        "status": "stable",
        "updated": UPDATED,
        "links": [{"rel": "self", "href": f"{base}/v3/"}],
        "media-types": [
            {"base": "application/json", "type": "application/vnd.openstack.identity-v3+json"}
        ],
    }


def versions(call: Call) -> Response:
    return json_response({"versions": {"values": [_v3(call.base)]}}, status=300)


def version(call: Call) -> Response:
    return json_response({"version": _v3(call.base)})


def routes() -> list[Rule]:
    return [
        route("/", ["GET"], versions, public=True),
        route("/v3", ["GET"], version, public=True),
    ]
