"""The API calls behind the pages, with openstacksdk and the user's own connection.

Each function is one call (or one call per item of a short list); the views
make a page's calls in parallel (``parallel.Calls``). Results are the
dashboard's own typed values, never raw dicts.
"""

from __future__ import annotations

import base64
import threading
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from openstack import connection
from openstack import exceptions as sdk
from openstack.compute.v2.server_action import ServerAction

from saphira.dashboard.rows import ServerRow, image_of, row

Conn = connection.Connection
# The compute API version the rows are read at: 2.47 gives the flavor's name in the server,
# 2.9 its lock; the newer fields of later versions (tags, host status...) are not shown.
SERVER_VERSION = "2.90"


@dataclass(frozen=True)
class Choice:
    id: str
    name: str
    detail: str = ""


@dataclass(frozen=True)
class ActionEvent:
    name: str
    started: str
    finished: str
    result: str


@dataclass(frozen=True)
class ActionRecord:
    action: str
    request_id: str
    started: str
    message: str
    events: tuple[ActionEvent, ...]


@dataclass(frozen=True)
class LaunchRequest:
    name: str
    image_id: str
    flavor_id: str
    network_id: str
    security_groups: tuple[str, ...]
    key_name: str
    user_data: str


class ImageNames:
    """Image names by id, learnt from listings and single look-ups; shared by a feed."""

    def __init__(self) -> None:
        self._names: dict[str, str] = {}
        self._lock = threading.Lock()

    def learn(self, images: list[Choice]) -> dict[str, str]:
        with self._lock:
            self._names.update({image.id: image.name for image in images})
            return dict(self._names)

    def resolve(self, conn: Conn, ids: set[str]) -> dict[str, str]:
        with self._lock:
            unknown = {i for i in ids if i and i not in self._names}
        for image_id in unknown:
            name = _image_name(conn, image_id)
            with self._lock:
                self._names[image_id] = name
        with self._lock:
            return dict(self._names)


def _image_name(conn: Conn, image_id: str) -> str:
    """One image's name; its id when it is gone or not this project's to see."""
    try:
        return str(conn.image.get_image(image_id).name or image_id)
    except sdk.NotFoundException:
        return image_id


def servers(conn: Conn, since: str | None = None) -> list[ServerRow]:
    """Every server of the project (with ``since``: those changed at or after it,
    deleted ones included), image names left as ids for ``named`` to fill. Page by page
    as the API hands them out (its ``next`` link's marker), read as JSON (``rows``)."""
    query: dict[str, str] = {"changes-since": since} if since else {}
    found: list[ServerRow] = []
    while True:
        body = _json(conn.compute.get("/servers/detail", params=query,
                                      microversion=SERVER_VERSION))  # fmt: skip
        found.extend(row(server, {}) for server in body.get("servers", ()))
        marker = _next_marker(body.get("servers_links", ()))
        if marker is None or not body.get("servers"):
            return found
        query = {**query, "marker": marker}


def _json(response: Any) -> dict[str, Any]:
    """The body of an API answer; an error status raised as openstacksdk raises it."""
    sdk.raise_from_response(response)
    return dict(response.json())


def _next_marker(links: Any) -> str | None:
    for link in links or ():
        if link.get("rel") == "next":
            values = parse_qs(urlsplit(str(link.get("href", ""))).query).get("marker")
            return values[0] if values else None
    return None


def named(rows: list[ServerRow], names: dict[str, str]) -> list[ServerRow]:
    return [replace(r, image_name=names.get(r.image_id, r.image_name)) for r in rows]


def server(conn: Conn, server_id: str, names: ImageNames) -> ServerRow:
    body = _json(conn.compute.get(f"/servers/{quote(server_id, safe='')}",
                                  microversion=SERVER_VERSION))["server"]  # fmt: skip
    return row(body, names.resolve(conn, {image_of(body)}))


#: A kernel or ramdisk image boots nothing on its own (Horizon leaves them out of
#: Launch too); a disk image that names them is launched instead.
BOOT_PART_FORMATS = ("aki", "ari")


def bootable(images: list[Choice]) -> list[Choice]:
    return [image for image in images if image.detail not in BOOT_PART_FORMATS]


def images(conn: Conn) -> list[Choice]:
    return sorted(
        (Choice(str(i.id), str(i.name or i.id), str(i.disk_format or ""))
         for i in conn.image.images() if i.status == "active"),
        key=lambda c: c.name,
    )  # fmt: skip


def flavors(conn: Conn) -> list[Choice]:
    found = conn.compute.flavors(details=True)
    return [
        Choice(str(f.id), str(f.name), f"{f.vcpus} VCPU, {f.ram} MiB RAM, {f.disk} GiB disk")
        for f in sorted(found, key=lambda f: (f.ram or 0, f.name or ""))
    ]


def networks(conn: Conn) -> list[Choice]:
    return sorted((Choice(str(n.id), str(n.name or n.id)) for n in conn.network.networks()),
                  key=lambda c: c.name)  # fmt: skip


def security_groups(conn: Conn, project_id: str) -> list[Choice]:
    found = conn.network.security_groups(project_id=project_id)
    return sorted((Choice(str(g.id), str(g.name)) for g in found), key=lambda c: c.name)


def keypairs(conn: Conn) -> list[Choice]:
    return sorted((Choice(str(k.name), str(k.name)) for k in conn.compute.keypairs()),
                  key=lambda c: c.name)  # fmt: skip


def launch(conn: Conn, request: LaunchRequest) -> str:
    attrs: dict[str, object] = {
        "name": request.name,
        "image_id": request.image_id,
        "flavor_id": request.flavor_id,
        "networks": [{"uuid": request.network_id}] if request.network_id else "none",
        "security_groups": [{"name": name} for name in request.security_groups],
    }
    if request.key_name:
        attrs["key_name"] = request.key_name
    if request.user_data:
        attrs["user_data"] = base64.b64encode(request.user_data.encode()).decode()
    return str(conn.compute.create_server(**attrs).id)


def console_log(conn: Conn, server_id: str, lines: int = 200) -> str:
    output = conn.compute.get_server_console_output(server_id, length=lines)
    return str(output.get("output", ""))


def history(conn: Conn, server_id: str, most: int = 10) -> list[ActionRecord]:
    """The latest actions of the server with their events (one call per action)."""
    listed = list(conn.compute.server_actions(server_id))[:most]
    full = [conn.compute.get_server_action(a.request_id, server_id) for a in listed]
    return [record(a) for a in full if a is not None]


def record(action: ServerAction) -> ActionRecord:
    events = tuple(
        ActionEvent(str(e.event), str(e.start_time or ""), str(e.finish_time or ""),
                    str(e.result or ""))
        for e in action.events or ()
    )  # fmt: skip
    return ActionRecord(
        str(action.action), str(action.request_id), str(action.start_time or ""),
        str(action.message or ""), events,
    )  # fmt: skip


def act(conn: Conn, server_id: str, name: str, image_id: str = "") -> None:
    """One lifecycle action by its offer name (see ``actions.OFFERS``)."""
    compute = conn.compute
    if name == "stop":
        compute.stop_server(server_id)
    elif name == "start":
        compute.start_server(server_id)
    elif name == "reboot":
        compute.reboot_server(server_id, "SOFT")
    elif name == "rebuild":
        compute.rebuild_server(server_id, image=image_id)
    elif name == "delete":
        compute.delete_server(server_id)
    else:
        raise ValueError(name)
