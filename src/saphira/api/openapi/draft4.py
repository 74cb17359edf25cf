"""The request schemas are JSON Schema draft 4 (what the APIs validate with);
OpenAPI 3.1 speaks draft 2020-12. The few keywords that differ are rewritten."""

from __future__ import annotations

from typing import Any

_NESTED_MAPS = ("properties", "patternProperties", "definitions", "$defs")
_NESTED_ONE = ("items", "additionalProperties", "not", "additionalItems")
_NESTED_LISTS = ("allOf", "anyOf", "oneOf")


def convert(schema: Any) -> Any:
    """A 2020-12 copy of a draft-4 schema (the original is never changed)."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _NESTED_MAPS:
            out[key] = {name: convert(inner) for name, inner in value.items()}
        elif key in _NESTED_ONE:
            out[key] = [convert(v) for v in value] if isinstance(value, list) else convert(value)
        elif key in _NESTED_LISTS:
            out[key] = [convert(inner) for inner in value]
        elif key in ("exclusiveMinimum", "exclusiveMaximum"):
            continue  # draft 4's booleans: folded into minimum/maximum below
        elif key == "id":
            out["$id"] = value
        else:
            out[key] = value
    for flag, bound in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        if schema.get(flag) is True and bound in schema:
            out[flag] = out.pop(bound)
    if isinstance(out.get("items"), list):  # draft 4's tuple form
        out["prefixItems"] = out.pop("items")
        if "additionalItems" in out:
            out["items"] = out.pop("additionalItems")
    return out
