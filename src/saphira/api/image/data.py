"""Image data: PUT/GET /file, PUT /stage, POST /import and /v2/info/import.

Bytes are read from ``wsgi.input`` in chunks (cheroot streams them and
terminates chunked bodies) and sent back from a generator, so neither
direction ever holds an image in memory.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, BinaryIO

from werkzeug.wrappers import Response

from saphira import exception
from saphira.api.image.app import Call, route
from saphira.api.wsgi import json_response
from saphira.image.store import CHUNK, Truncated

SIZE_HEADER = "X-Openstack-Image-Size"


def _read(stream: BinaryIO, length: int | None) -> Iterator[bytes]:
    """The request body in chunks; a broken connection becomes Truncated."""
    left = length
    while left is None or left > 0:
        try:
            chunk = stream.read(CHUNK if left is None else min(CHUNK, left))
        except (OSError, ValueError):
            raise Truncated() from None
        if not chunk:
            return
        if left is not None:
            left -= len(chunk)
        yield chunk


def _expected(call: Call) -> int | None:
    """The announced size: Content-Length, else X-OpenStack-Image-Size for chunked bodies."""
    length = call.request.content_length
    header = call.request.headers.get(SIZE_HEADER)
    if header is not None:
        try:
            announced = int(header)
        except ValueError:
            raise exception.BadRequest(f"{SIZE_HEADER} must be an integer") from None
        if length is not None and length != announced:
            raise exception.BadRequest(f"{SIZE_HEADER} does not match Content-Length")
        return announced
    return length


def _body(call: Call) -> tuple[Iterator[bytes], int | None]:
    if call.request.mimetype != "application/octet-stream":
        raise exception.UnsupportedMediaType("Image data must be sent as application/octet-stream.")
    expected = _expected(call)
    stream = call.request.environ["wsgi.input"]
    return _read(stream, call.request.content_length), expected


def _owned(call: Call, image_id: str, action: str) -> None:
    with call.records.session() as session:
        image = call.records.visible(session, call.ctx, image_id)
        call.authorize(action, image)


def _upload(call: Call, image_id: str) -> Response:
    _owned(call, image_id, "upload_image")
    chunks, expected = _body(call)
    call.backend.data.upload(call.ctx, image_id, chunks, expected)
    return Response(status=204)


def _stage(call: Call, image_id: str) -> Response:
    if "glance-direct" not in call.settings.import_methods:
        raise exception.NotFound("The glance-direct import method is not enabled.")
    _owned(call, image_id, "upload_image")
    chunks, expected = _body(call)
    call.backend.data.stage(image_id, chunks, expected)
    return Response(status=204)


def _import(call: Call, image_id: str) -> Response:
    body = call.body()
    method = body.get("method") if isinstance(body, dict) else None
    name = method.get("name") if isinstance(method, dict) else None
    if name not in call.settings.import_methods:
        raise exception.BadRequest(f"Import method {name} is not valid.")
    _owned(call, image_id, "import_image")
    call.backend.data.import_staged(image_id)
    return Response(status=202)


def _info_import(call: Call) -> Response:
    methods = {
        "description": "Import methods available.",
        "type": "array",
        "value": list(call.settings.import_methods),
    }
    return json_response({"import-methods": methods})


def _range(call: Call, size: int) -> tuple[int, int] | None:
    """(start, stop) of a satisfiable single Range header; 416 otherwise; None without one."""
    if "Range" not in call.request.headers:
        return None
    wanted = call.request.range
    found = wanted.range_for_length(size) if wanted is not None else None
    if found is None:
        raise RangeNotSatisfiable(f"Requested range not satisfiable (size {size}).")
    return found


class RangeNotSatisfiable(exception.SaphiraError):
    code = 416
    title = "Requested Range Not Satisfiable"


def _download(call: Call, image_id: str) -> Response:
    with call.records.session() as session:
        image = call.records.visible(session, call.ctx, image_id)
        call.authorize("download_image", image)
        if image.status == "deactivated" and not call.ctx.is_admin:
            raise exception.Forbidden(
                "The requested image has been deactivated. Image data download is forbidden."
            )
        status, checksum = image.status, image.checksum
    store = call.backend.data.store
    if status not in ("active", "deactivated") or not store.exists(image_id):
        return Response(status=204)
    size = store.size(image_id)
    window = _range(call, size)
    headers: dict[str, Any] = {"Content-Type": "application/octet-stream"}
    if window is None:
        start, stop, code = 0, size, 200
        if checksum:
            headers["Content-MD5"] = checksum
    else:
        (start, stop), code = window, 206
        headers["Content-Range"] = f"bytes {start}-{stop - 1}/{size}"
    headers["Content-Length"] = str(stop - start)
    chunks = store.read(image_id, start, stop - start)
    return Response(chunks, status=code, headers=headers, direct_passthrough=True)


def routes() -> list[Any]:
    return [
        route("/v2/images/<image_id>/file", ["PUT"], _upload),
        route("/v2/images/<image_id>/file", ["GET"], _download),
        route("/v2/images/<image_id>/stage", ["PUT"], _stage),
        route("/v2/images/<image_id>/import", ["POST"], _import),
        route("/v2/info/import", ["GET"], _info_import),
    ]
