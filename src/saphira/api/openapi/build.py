"""One API's OpenAPI 3.1 document from its ``ApiSpec``."""

from __future__ import annotations

import re
from typing import Any

from werkzeug.routing import Rule

from saphira.api.openapi import draft4
from saphira.api.openapi.model import JSON, ApiSpec, Link, keystone_error
from saphira.api.openapi.paths import PathParam, Template, methods, template

TOKEN = "X-Auth-Token"
_SECURITY = {"keystone": {"type": "apiKey", "in": "header", "name": TOKEN}}


def operation_id(method: str, path: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", f"{method.lower()} {path}").strip("_")


def _path_param(param: PathParam) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string", "minLength": 1}
    if param.choices:
        schema = {"type": "string", "enum": list(param.choices)}
    elif not param.slashes:
        schema["pattern"] = "^[^/]+$"
    return {"name": param.name, "in": "path", "required": True, "schema": schema}


# The token middleware's refusal, in Keystone's shape whatever the API (keystonemiddleware's).
UNAUTHORIZED = keystone_error({"const": 401})


def _responses(spec: ApiSpec) -> dict[str, Any]:
    responses: dict[str, Any] = {"default": {"description": f"The {spec.name} API's answer"}}
    if spec.fault is not None:
        fault = {"description": "An error", "content": {JSON: {"schema": spec.fault}}}
        refused = {"description": "No valid token", "content": {JSON: {"schema": UNAUTHORIZED}}}
        responses.update({"4XX": fault, "401": refused})
    return responses


def _operation(spec: ApiSpec, rule: Rule, found: Template, method: str) -> dict[str, Any]:
    key = (method, spec.rule_key(rule.rule))
    op: dict[str, Any] = {
        "operationId": operation_id(method, found.path),
        "tags": [spec.name],
        "responses": {**_responses(spec), **spec.responses.get(key, {})},
    }
    params = [
        {"name": q.name, "in": "query", "required": False, "schema": draft4.convert(q.schema)}
        for q in spec.query.get(key, ())
    ]
    if spec.public(rule):
        op["security"] = []
    else:
        params += [
            {
                "name": header.name,
                "in": "header",
                "required": False,
                "description": header.description,
                "schema": {"type": "string"},
            }
            for header in spec.headers
        ]
    if params:
        op["parameters"] = params
    body = spec.bodies.get(key)
    if body is not None:
        content = {body.media_type: {"schema": draft4.convert(body.schema)}}
        op["requestBody"] = {"required": True, "content": content}
    return op


def _paths(spec: ApiSpec) -> dict[str, dict[str, Any]]:
    paths: dict[str, dict[str, Any]] = {}
    for rule in spec.routes():
        found = template(rule)
        item = paths.setdefault(found.path, {})
        if found.params:
            item["parameters"] = [_path_param(param) for param in found.params]
        for method in methods(rule):
            item.setdefault(method.lower(), _operation(spec, rule, found, method))
    return paths


def _add_link(paths: dict[str, dict[str, Any]], link: Link) -> None:
    create = paths[link.collection]["post"]
    targets = {
        f"{method}_created": {
            "operationId": operation_id(method, link.item),
            "parameters": {link.param: f"$response.body#{link.pointer}"},
        }
        for method in ("get", "put", "patch", "delete")
        if method in paths[link.item]
    }
    create["responses"]["2XX"] = {"description": "Created", "links": targets}


def document(spec: ApiSpec) -> dict[str, Any]:
    """The API's OpenAPI 3.1 document (a new dict on every call)."""
    paths = _paths(spec)
    for link in spec.links:
        _add_link(paths, link)
    return {
        "openapi": "3.1.0",
        "info": {"title": spec.title, "version": spec.version},
        "paths": paths,
        "components": {"securitySchemes": _SECURITY},
        "security": [{"keystone": []}],
    }
