"""What one API's description is built from."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from werkzeug.routing import Rule

Schema = dict[str, Any]
JSON = "application/json"


def keystone_error(code: Schema) -> Schema:
    """Keystone's error body (``{"error": {code, message, title}}``) with ``code`` as given."""
    fields = {"code": code, "message": {"type": "string"}, "title": {"type": "string"}}
    error = {"type": "object", "required": ["code", "message", "title"], "properties": fields}
    return {"type": "object", "required": ["error"], "properties": {"error": error}}


TEXT: Schema = {"type": "string"}
MAYBE_TEXT: Schema = {"type": ["string", "null"]}
FLAG: Schema = {"type": "boolean"}
COUNT: Schema = {"type": "integer", "minimum": 0}
TEXTS: Schema = {"type": "array", "items": TEXT}
INTEGER: Schema = {"type": "integer"}
MAYBE_INTEGER: Schema = {"type": ["integer", "null"]}


def answer(schema: Schema, description: str = "Success") -> dict[str, Any]:
    """A success response whose JSON body ``schema`` describes (JSON Schema 2020-12)."""
    return {"description": description, "content": {JSON: {"schema": schema}}}


def ok(schema: Schema) -> dict[str, Any]:
    """The answers of an operation whose success is a 200 with this body."""
    return {"200": answer(schema)}


def created(schema: Schema, description: str = "Created") -> dict[str, Any]:
    """The answers of an operation whose success is a 201 with this body."""
    return {"201": answer(schema, description)}


def keyed(item: Schema) -> Schema:
    """An object whose members (ids, names, keys) are each ``item``."""
    return {"type": "object", "additionalProperties": item}


def record(required: list[str], properties: Schema | None = None) -> Schema:
    """An object with these members at least (the fields every microversion or extension
    returns); others may come, as newer microversions and extensions add them."""
    return {"type": "object", "required": required, "properties": properties or {}}


# Links as Nova and Placement give them: [{"rel": "self", "href": "..."}, ...].
LINKS: Schema = {"type": "array", "items": record(["rel", "href"], {"rel": TEXT, "href": TEXT})}


# A version document's media types: [{"base": ..., "type": ...}, ...].
MEDIA_TYPES: Schema = {
    "type": "array",
    "items": record(["base", "type"], {"base": TEXT, "type": TEXT}),
}


def listing(key: str, item: Schema) -> Schema:
    """``{key: [item, ...]}``, and whatever paging links come beside it."""
    return record([key], {key: {"type": "array", "items": item}})


def wrapped(key: str, item: Schema) -> Schema:
    """``{key: item}``: one resource under its singular name."""
    return record([key], {key: item})


def list_and_show(
    path: str, param: str, keys: tuple[str, str], item: Schema, listed: Schema | None = None
) -> dict[tuple[str, str], dict[str, Any]]:
    """The answers of a collection at ``path`` (``{plural: [item...]}``, or ``listed``)
    and of its member at ``path/<param>`` (``{singular: item}``); ``keys`` = (plural,
    singular)."""
    plural, singular = keys
    return {
        ("GET", path): ok(listed or listing(plural, item)),
        ("GET", f"{path}/<{param}>"): ok(wrapped(singular, item)),
    }


@dataclass(frozen=True)
class Body:
    """A request body: the schema the handler validates it with, and its media type."""

    schema: Schema
    media_type: str = JSON


@dataclass(frozen=True)
class Query:
    """A query parameter an operation reads, and what it accepts."""

    name: str
    schema: Schema


@dataclass(frozen=True)
class Link:
    """create -> show/update/delete: the POST on ``collection`` answers the item's id at
    ``pointer`` (a JSON pointer into its body), which ``item``'s ``param`` takes."""

    collection: str  # OpenAPI path
    item: str  # OpenAPI path
    param: str
    pointer: str


@dataclass(frozen=True)
class Header:
    """A request header every authenticated operation takes (a microversion). Any text:
    as in Nova, an entry for another service (or garbage naming none) is ignored."""

    name: str
    description: str


@dataclass(frozen=True)
class ApiSpec:
    name: str  # the catalog type, e.g. "compute"
    title: str
    version: str
    routes: Callable[[], list[Rule]]
    bodies: Mapping[tuple[str, str], Body]  # (method, werkzeug rule) -> body
    public: Callable[[Rule], bool] = field(default=lambda rule: False)  # served without a token
    headers: tuple[Header, ...] = ()
    links: tuple[Link, ...] = ()
    fault: Schema | None = None  # the API's error body
    query: Mapping[tuple[str, str], tuple[Query, ...]] = field(default_factory=dict)
    # (method, werkzeug rule) -> responses of its own (a status whose body is not the fault)
    responses: Mapping[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    rule_key: Callable[[str], str] = field(default=lambda rule: rule)  # rule -> bodies' key
