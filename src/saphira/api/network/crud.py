"""The five operations every collection shares, in Neutron's shapes.

``POST`` takes ``{"network": {...}}`` or, in bulk, ``{"networks": [...]}``
(all or nothing, one transaction); creates answer 201, deletes 204. Shows
and lists honour ``fields``; lists also filters, sorting and paging.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy.orm import Session
from werkzeug.wrappers import Response

from saphira.api.network import listing
from saphira.api.network.app import Call
from saphira.api.network.attributes import Attr, parse, parse_item
from saphira.api.wsgi import json_response
from saphira.exception import BadRequest

View = dict[str, Any]
Make = Callable[[Session, dict[str, Any]], View]


def listed(
    call: Call,
    collection: listing.Collection,
    views: list[View],
    shown: Callable[[View], View],
    missing: Callable[[str], Exception],
    extra_filters: tuple[str, ...] = (),
) -> Response:
    query = listing.parse(call.request.args, collection, extra_filters)
    page, links = listing.paged(call, views, query, missing)
    body: dict[str, Any] = {
        collection.plural: [listing.select(shown(view), query.fields) for view in page]
    }
    if links:
        body[f"{collection.plural}_links"] = links
    return json_response(body)


def one(call: Call, key: str, view: View) -> Response:
    return json_response({key: listing.select(view, call.request.args.getlist("fields"))})


def created(call: Call, key: str, plural: str, spec: dict[str, Attr], make: Make) -> Response:
    body = call.body()
    if isinstance(body, dict) and plural in body and key not in body:
        items = body[plural]
        if not isinstance(items, list) or not items or not all(isinstance(i, dict) for i in items):
            raise BadRequest("Resources required")
        wanted = [parse_item(item, spec, update=False) for item in items]
        with call.writer() as session:
            views = [make(session, attrs) for attrs in wanted]
        return json_response({plural: views}, status=201)
    attrs = parse(body, key, spec)
    with call.writer() as session:
        view = make(session, attrs)
    return json_response({key: view}, status=201)


def updated(call: Call, key: str, spec: dict[str, Attr], change: Make) -> Response:
    attrs = parse(call.body(), key, spec, update=True)
    with call.writer() as session:
        view = change(session, attrs)
    return json_response({key: view})


def deleted(call: Call, remove: Callable[[Session], None]) -> Response:
    with call.writer() as session:
        remove(session)
    return Response(status=204)
