"""Lists as Neutron serves them: filters, sorting, paging links and field selection.

Filters name any attribute (``?name=a&name=b`` matches either value) and are
applied to the full views, before attributes the caller may not read are
stripped; an attribute that is not filterable is a 400, as Neutron's filter
validation answers. Pages follow Neutron's marker rules, with
``<collection>_links`` carrying ``next`` and ``previous``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from werkzeug.datastructures import MultiDict

from saphira.api.network.app import Call
from saphira.exception import BadRequest
from saphira.netsvc import errors

PAGING = ("limit", "marker", "page_reverse", "sort_key", "sort_dir", "fields")
View = dict[str, Any]


@dataclass(frozen=True)
class Collection:
    """What a list may filter and sort on, and how a row becomes a (full) view."""

    plural: str
    scalars: tuple[str, ...]  # sortable and filterable
    lists: tuple[str, ...] = ()  # filterable: a row matches if any element does
    aliases: dict[str, str] = field(default_factory=lambda: {"tenant_id": "project_id"})


@dataclass
class Query:
    filters: dict[str, list[str]]
    fields: list[str]
    sorts: list[tuple[str, bool]]
    limit: int | None
    marker: str | None
    reverse: bool


def parse(args: MultiDict[str, str], collection: Collection, handled: Iterable[str] = ()) -> Query:
    """``handled`` filters are the caller's own (applied in SQL); they are accepted, not matched."""
    filters: dict[str, list[str]] = {}
    allowed = set(collection.scalars) | set(collection.lists)
    for key in args:
        if key in PAGING or key in handled:
            continue
        name = collection.aliases.get(key, key)
        if name not in allowed:
            raise BadRequest(f"['{key}'] is invalid attribute for filtering")
        values = [v for v in args.getlist(key) if v]
        if values:
            filters.setdefault(name, []).extend(values)
    return Query(filters, args.getlist("fields"), _sorts(args, collection), *_page(args))


def _sorts(args: MultiDict[str, str], collection: Collection) -> list[tuple[str, bool]]:
    keys, dirs = args.getlist("sort_key"), args.getlist("sort_dir")
    if len(keys) != len(dirs):
        raise BadRequest("The number of sort_keys and sort_dirs must be same")
    bad = [k for k in keys if collection.aliases.get(k, k) not in collection.scalars]
    if bad:
        raise BadRequest(f"{bad} is invalid attribute for sort_keys")
    wrong = [d for d in dirs if d not in ("asc", "desc")]
    if wrong:
        raise BadRequest(f"{wrong} is invalid value for sort_dirs, valid value is 'asc' and 'desc'")
    return [(collection.aliases.get(k, k), d == "asc") for k, d in zip(keys, dirs, strict=True)]


def _page(args: MultiDict[str, str]) -> tuple[int | None, str | None, bool]:
    raw = args.get("limit", "0")
    if not raw.isdigit():
        raise errors.BadRequest(
            f"Bad limit request: Limit must be an integer 0 or greater and not '{raw}'."
        )
    reverse = args.get("page_reverse", "False").lower() == "true"
    return int(raw) or None, args.get("marker"), reverse


def _equal(value: Any, wanted: str) -> bool:
    if isinstance(value, bool):
        return wanted.lower() in (("true", "1") if value else ("false", "0"))
    if isinstance(value, list):
        return any(_equal(v, wanted) for v in value)
    return value is not None and str(value) == wanted


def matches(view: View, filters: dict[str, list[str]]) -> bool:
    return all(any(_equal(view.get(k), w) for w in wanted) for k, wanted in filters.items())


def _sort_key(key: str) -> Callable[[View], tuple[bool, Any]]:
    """None first (as Neutron's emulated sorting); values of one attribute share a type."""
    return lambda v: (v.get(key) is not None, "" if v.get(key) is None else v.get(key))


def _sorted(views: list[View], sorts: list[tuple[str, bool]]) -> list[View]:
    ordered = sorted(views, key=lambda v: str(v.get("id")))
    for key, ascending in reversed(sorts):
        ordered.sort(key=_sort_key(key), reverse=not ascending)
    return ordered


def _links(call: Call, page: list[View], query: Query) -> list[dict[str, str]]:
    if not query.limit:
        return []
    base, args = call.request.base_url, call.request.args
    links = []

    def link(rel: str, marker: str | None, reverse: bool) -> dict[str, str]:
        params = [(k, v) for k, v in args.items(multi=True) if k not in ("marker", "page_reverse")]
        params += [("marker", marker)] if marker else []
        params += [("page_reverse", "True")] if reverse else []
        return {"rel": rel, "href": f"{base}?{urlencode(params)}"}

    if not (len(page) < query.limit and not query.reverse):
        links.append(link("next", page[-1]["id"] if page else query.marker, False))
    if not (len(page) < query.limit and query.reverse):
        links.append(link("previous", page[0]["id"] if page else query.marker, True))
    return links


def paged(
    call: Call, views: list[View], query: Query, missing: Callable[[str], Exception]
) -> tuple[list[View], list[dict[str, str]]]:
    ordered = _sorted([v for v in views if matches(v, query.filters)], query.sorts)
    if query.limit is None:
        return ordered, []
    ids = [v["id"] for v in ordered]
    if query.marker and query.marker not in ids:
        raise missing(query.marker)
    if query.reverse:  # the page before the marker (or the last page)
        end = ids.index(query.marker) if query.marker else len(ids)
        page = ordered[max(end - query.limit, 0) : end]
    else:
        start = ids.index(query.marker) + 1 if query.marker else 0
        page = ordered[start : start + query.limit]
    return page, _links(call, page, query)


def select(view: View, fields: list[str]) -> View:
    return {k: v for k, v in view.items() if k in fields} if fields else view
