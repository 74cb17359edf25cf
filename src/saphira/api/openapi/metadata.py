"""The metadata API: guests reach it through the proxies, which sign the instance id
(X-Instance-ID and X-Instance-ID-Signature), never with a Keystone token."""

from __future__ import annotations

from werkzeug.routing import Rule

from saphira.api import metadata
from saphira.api.openapi.model import ApiSpec, Body


def _public(_rule: Rule) -> bool:
    return True  # no Keystone token: the proxy's signature instead


SPEC = ApiSpec(
    name="metadata",
    title="Saphira metadata API (Nova and EC2 metadata for guests)",
    version="2.1",
    routes=metadata.routes,
    bodies={("POST", "/<path:path>"): Body({"type": "string"}, "text/plain")},
    public=_public,
)
