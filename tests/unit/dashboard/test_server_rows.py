"""The Instances rows from the compute API's JSON: the fields a row shows, and every page
of a long list followed by its ``next`` link's marker."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, cast

import pytest
import requests
from openstack import exceptions as sdk

from saphira.dashboard import cloud
from saphira.dashboard.rows import row


def body(number: int, **extra: Any) -> dict[str, Any]:
    return {
        "id": f"s{number}", "name": f"vm{number}", "status": "ACTIVE",
        "image": {"id": "img"}, "flavor": {"original_name": "m1.tiny", "vcpus": 1},
        "addresses": {"net": [{"addr": "10.0.0.5", "OS-EXT-IPS:type": "fixed"}]},
        "OS-EXT-STS:vm_state": "active", "OS-EXT-STS:task_state": None,
        "OS-EXT-STS:power_state": 1, "OS-SRV-USG:launched_at": "2026-12-01T00:00:00.000000",
        "locked": False, "updated": "2026-12-01T00:00:01Z", **extra,
    }  # fmt: skip


def test_a_row_reads_what_the_page_shows() -> None:
    shown = row(body(1), {"img": "tiny"})
    assert (shown.id, shown.name, shown.image_name, shown.flavor) == (
        "s1",
        "vm1",
        "tiny",
        "m1.tiny",
    )
    assert [(a.network, a.ip, a.kind) for a in shown.addresses] == [("net", "10.0.0.5", "fixed")]
    assert (shown.vm_state, shown.task_state, shown.power_state) == ("active", None, "running")
    assert "stop" in [o.name for o in shown.offers] and "start" not in [
        o.name for o in shown.offers
    ]


def test_a_row_of_a_volume_backed_locked_faulty_server() -> None:
    shown = row(body(2, image="", locked=True, status="ERROR", fault={"message": "No valid\n host"},
                     **{"OS-EXT-STS:vm_state": "error"}), {})  # fmt: skip
    assert shown.image_id == "" and shown.image_name == "(none: booted from a volume)"
    assert shown.fault == "No valid host"
    assert "lock" not in [o.name for o in shown.offers]  # locked: Unlock instead


def answer(status: int, payload: dict[str, Any]) -> requests.Response:
    """An HTTP answer as the compute proxy hands it back."""
    made = requests.Response()
    made.status_code, made._content = status, json.dumps(payload).encode()
    made.headers["Content-Type"] = "application/json"
    return made


@dataclass
class Compute:
    """The compute proxy's ``get``: pages of 2, as the API would cut them with its limit."""

    servers: list[dict[str, Any]]
    asked: list[dict[str, str]] = field(default_factory=list)

    def get(self, path: str, params: dict[str, str] | None = None, **_: Any) -> requests.Response:
        query = dict(params or {})
        self.asked.append(query)
        ids = [s["id"] for s in self.servers]
        start = ids.index(query["marker"]) + 1 if "marker" in query else 0
        page = self.servers[start : start + 2]
        links = ([{"rel": "next", "href": f"http://c/v2.1/servers/detail?limit=2&marker="
                   f"{page[-1]['id']}"}] if start + 2 < len(self.servers) else [])  # fmt: skip
        return answer(200, {"servers": page, "servers_links": links})


@dataclass
class Conn:
    compute: Compute


def test_every_page_is_read_by_its_next_marker() -> None:
    compute = Compute([body(n) for n in range(5)])
    rows = cloud.servers(cast(cloud.Conn, Conn(compute)), "2026-12-01T00:00:00Z")
    assert [r.id for r in rows] == ["s0", "s1", "s2", "s3", "s4"]
    assert [q.get("marker") for q in compute.asked] == [None, "s1", "s3"]
    assert all(q["changes-since"] == "2026-12-01T00:00:00Z" for q in compute.asked)


class Missing(Compute):
    def get(self, path: str, params: dict[str, str] | None = None, **_: Any) -> requests.Response:
        return answer(404, {"itemNotFound": {"code": 404, "message": "Instance x not found."}})


def test_an_error_answer_is_raised_as_openstacksdk_raises_it() -> None:
    conn = cast(cloud.Conn, Conn(Missing([])))
    with pytest.raises(sdk.NotFoundException):
        cloud.server(conn, "x", cloud.ImageNames())
