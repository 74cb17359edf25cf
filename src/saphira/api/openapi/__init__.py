"""OpenAPI 3.1 descriptions of every API, built from its route table and the
JSON schemas its handlers validate request bodies with.

``document(api)`` builds one API's description; ``OpenAPIFirst`` serves it
unauthenticated at ``/openapi.json`` under the API's root, built once per
process on the first request. Each API's table (``tables``) names, for a
route, the schema its handler validates with (the same object, imported
from the API's own schema module), so a description cannot drift from the
validation; a test checks that every route of every router is described.
"""

from __future__ import annotations

from saphira.api.openapi.build import document
from saphira.api.openapi.serve import PATH, OpenAPIFirst, described, described_image

__all__ = ["PATH", "OpenAPIFirst", "described", "described_image", "document"]
