"""JSON request bodies (size-limited, schema-checked) and JSON responses."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import jsonschema
from werkzeug.wrappers import Response

from saphira.common import fastjson
from saphira.exception import BadRequest, PayloadTooLarge, ValidationError

if TYPE_CHECKING:
    from saphira.api.wsgi.app import Request

_BODY = "saphira.body"


def read_body(request: Request) -> bytes:
    """The raw body; 413 past the limit, even for chunked bodies with no length."""
    cached = request.environ.get(_BODY)
    if isinstance(cached, bytes):
        return cached
    limit = request.max_body_size
    length = request.content_length
    if length is not None and length > limit:
        raise PayloadTooLarge()
    data = request.stream.read(limit + 1)
    if len(data) > limit:
        raise PayloadTooLarge()
    request.environ[_BODY] = data
    return data


def json_body(request: Request) -> Any:
    data = read_body(request)
    if not data.strip():
        raise BadRequest("The request body is empty; a JSON object is required.")
    try:
        return json.loads(data)
    except (ValueError, UnicodeDecodeError) as error:
        raise BadRequest(f"Malformed request body: {error}") from None
    except RecursionError:
        raise BadRequest("Malformed request body: nested too deeply.") from None


#: The formats our schemas name (without a checker jsonschema ignores "format").
FORMATS = jsonschema.FormatChecker(formats=("ipv4", "ipv6", "uuid"))


def validate(body: Any, schema: dict[str, Any]) -> None:
    """ValidationError naming the field, as Keystone's validators word it."""
    validator = jsonschema.Draft4Validator(schema, format_checker=FORMATS)
    error = jsonschema.exceptions.best_match(validator.iter_errors(body))
    if error is not None:
        path = "/".join(str(p) for p in error.absolute_path)
        if path:
            raise ValidationError(f"Invalid input for field '{path}': {error.message}")
        raise ValidationError(f"Invalid input: {error.message}")


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    data = b"" if body is None else json.dumps(body).encode("utf-8")
    return Response(
        data,
        status=status,
        headers=headers,
        mimetype="application/json" if body is not None else None,
    )


def compact_json_response(body: Any, status: int = 200) -> Response:
    """``json_response`` for large bodies (the compute API's listings): compact UTF-8
    JSON written by orjson (``saphira.common.fastjson``), a tenth of json.dumps' time."""
    return Response(fastjson.dumps(body), status=status, mimetype="application/json")
