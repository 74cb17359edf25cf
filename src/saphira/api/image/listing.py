"""The query string of GET /v2/images: filters, sorting and paging, as Glance reads it."""

from __future__ import annotations

from urllib.parse import urlencode

from werkzeug.datastructures import MultiDict

from saphira.api.image.app import Settings
from saphira.exception import BadRequest
from saphira.image.records import SORT_KEYS, ListQuery

COLUMN_FILTERS = (
    "name", "status", "owner", "disk_format", "container_format", "protected", "os_hidden",
)  # fmt: skip
INT_COLUMN_FILTERS = ("size", "virtual_size", "min_ram", "min_disk")  # exact, as Glance's
NOT_PROPERTIES = frozenset(
    {"limit", "marker", "sort_key", "sort_dir", "sort", "visibility", "id", "tag",
     "member_status", "size_min", "size_max", "created_at", "updated_at", *COLUMN_FILTERS,
     *INT_COLUMN_FILTERS}
)  # fmt: skip
VISIBILITIES = ("public", "private", "shared", "community", "all")
MEMBER_STATUSES = ("pending", "accepted", "rejected", "all")


def _int(args: MultiDict[str, str], name: str, minimum: int = 0) -> int | None:
    value = args.get(name)
    if value is None:
        return None
    try:
        number = int(value)
    except ValueError:
        raise BadRequest(f"{name} param must be an integer") from None
    if number < minimum:
        raise BadRequest(f"{name} param must be positive")
    return number


def _sort(args: MultiDict[str, str]) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    if "sort" in args:
        if "sort_key" in args or "sort_dir" in args:
            raise BadRequest("The 'sort' parameter cannot be combined with sort_key/sort_dir.")
        for item in args["sort"].split(","):
            key, _, direction = item.strip().partition(":")
            pairs.append((key, direction or "desc"))
    else:
        keys, dirs = args.getlist("sort_key"), args.getlist("sort_dir")
        if len(dirs) > 1 and len(dirs) != len(keys):
            raise BadRequest("Number of sort dirs does not match the number of sort keys")
        for index, key in enumerate(keys or ["created_at"]):
            direction = dirs[index] if len(dirs) > 1 else (dirs[0] if dirs else "desc")
            pairs.append((key, direction))
    for key, direction in pairs:
        if key not in SORT_KEYS:
            raise BadRequest(f"Invalid sort key: {key}. It should be one of {', '.join(SORT_KEYS)}")
        if direction not in ("asc", "desc"):
            raise BadRequest(f"Invalid sort direction: {direction}")
    return pairs


def parse(args: MultiDict[str, str], settings: Settings) -> ListQuery:
    limit = _int(args, "limit")
    query = ListQuery(
        limit=min(limit if limit is not None else settings.limit_default, settings.limit_max),
        marker=args.get("marker"),
        sort=_sort(args),
        tags=args.getlist("tag"),
        size_min=_int(args, "size_min"),
        size_max=_int(args, "size_max"),
    )
    visibility = args.get("visibility")
    if visibility is not None and visibility not in VISIBILITIES:
        raise BadRequest(f"Invalid visibility value: {visibility}")
    query.visibility = visibility
    member_status = args.get("member_status", "accepted")
    if member_status not in MEMBER_STATUSES:
        raise BadRequest(f"Invalid status value: {member_status}")
    query.member_status = member_status
    for name in COLUMN_FILTERS:
        if name in args:
            query.filters[name] = args[name]
    for name in INT_COLUMN_FILTERS:
        number = _int(args, name)
        if number is not None:
            query.filters[name] = number
    if "id" in args:
        value = args["id"]
        query.ids = value[3:].split(",") if value.startswith("in:") else [value]
    if "name" in args and args["name"].startswith("in:"):
        del query.filters["name"]
        query.names = args["name"][3:].split(",")
    query.properties = {k: v for k, v in args.items() if k not in NOT_PROPERTIES}
    return query


def next_link(args: MultiDict[str, str], marker: str) -> str:
    params = [(k, v) for k, v in args.items(multi=True) if k != "marker"]
    params.append(("marker", marker))
    return f"/v2/images?{urlencode(params)}"
