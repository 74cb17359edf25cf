"""/os-aggregates, read side only: the list is empty until host aggregates exist.

``openstack hypervisor show`` asks which aggregates hold the host; answering
with Nova's shape (no aggregates) keeps that command working. Creating
aggregates (and the scheduler filters that read them) is later work.
"""

from __future__ import annotations

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.compute.app import Call, route
from saphira.api.wsgi import json_response


def index(call: Call) -> Response:
    call.enforce("os_compute_api:os-aggregates:index")
    return json_response({"aggregates": []})


def routes() -> list[Rule]:
    return [*route("/os-aggregates", ["GET"], index)]
