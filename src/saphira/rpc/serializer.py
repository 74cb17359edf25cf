"""What crosses the bus: the request context as a dict, payloads as tagged dicts."""

from __future__ import annotations

import dataclasses
from typing import Any

import oslo_messaging

from saphira.context import RequestContext
from saphira.rpc import payload

_NAMES = tuple(f.name for f in dataclasses.fields(RequestContext))
_FIELDS = set(_NAMES)


def context_to_dict(ctxt: RequestContext) -> dict[str, Any]:
    """Every field as it is (strings, None, booleans: nothing to copy deeply, as
    ``dataclasses.asdict`` would), the roles as a list."""
    values = {name: getattr(ctxt, name) for name in _NAMES}
    values["roles"] = list(ctxt.roles)
    return values


def context_from_dict(values: dict[str, Any]) -> RequestContext:
    """Unknown keys are ignored so a newer sender's context still loads."""
    known = {k: v for k, v in values.items() if k in _FIELDS}
    known["roles"] = tuple(known.get("roles") or ())
    return RequestContext(**known)


class Serializer(oslo_messaging.Serializer):  # type: ignore[misc]
    """oslo.messaging serializer for both halves of a message."""

    def serialize_entity(self, ctxt: Any, entity: Any) -> Any:
        return payload.to_primitive(entity)

    def deserialize_entity(self, ctxt: Any, entity: Any) -> Any:
        return payload.from_primitive(entity)

    def serialize_context(self, ctxt: RequestContext | dict[str, Any]) -> dict[str, Any]:
        return ctxt if isinstance(ctxt, dict) else context_to_dict(ctxt)

    def deserialize_context(self, ctxt: dict[str, Any]) -> RequestContext:
        return context_from_dict(ctxt)
