"""Lists: filters on any attribute (repeated keys OR), fields, sorting and paging links."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from tests.functional.network.conftest import Neutron


def _names(body: Any, key: str = "networks") -> list[str]:
    return [item["name"] for item in body[key]]


def test_filters_and_fields(neutron: Neutron) -> None:
    for name, shared in (("a", False), ("b", True), ("c", False)):
        neutron.network(name=name, shared=shared)
    assert sorted(_names(neutron.ok("GET", "/v2.0/networks?name=a&name=c"))) == ["a", "c"]
    assert _names(neutron.ok("GET", "/v2.0/networks?shared=true")) == ["b"]
    assert sorted(_names(neutron.ok("GET", "/v2.0/networks?shared=False&status=ACTIVE"))) == [
        "a",
        "c",
    ]
    assert neutron.ok("GET", "/v2.0/networks?name=zzz")["networks"] == []
    only = neutron.ok("GET", "/v2.0/networks?fields=id&fields=name&name=a")["networks"]
    assert [set(n) for n in only] == [{"id", "name"}]
    one = neutron.ok("GET", f"/v2.0/networks/{only[0]['id']}?fields=mtu")["network"]
    assert one == {"mtu": 1500}
    assert neutron.fault("GET", "/v2.0/networks?color=red", 400) == "HTTPBadRequest"
    project = neutron.projects["admin"]
    assert len(neutron.ok("GET", f"/v2.0/networks?tenant_id={project}")["networks"]) == 3


def test_sorting(neutron: Neutron) -> None:
    for name in ("m", "z", "a"):
        neutron.network(name=name)
    asc = neutron.ok("GET", "/v2.0/networks?sort_key=name&sort_dir=asc")
    assert _names(asc) == ["a", "m", "z"]
    desc = neutron.ok("GET", "/v2.0/networks?sort_key=name&sort_dir=desc")
    assert _names(desc) == ["z", "m", "a"]
    assert neutron.fault("GET", "/v2.0/networks?sort_key=name", 400) == "HTTPBadRequest"
    assert neutron.fault("GET", "/v2.0/networks?sort_key=x&sort_dir=asc", 400) == "HTTPBadRequest"
    assert neutron.fault("GET", "/v2.0/networks?sort_key=name&sort_dir=up", 400) == (
        "HTTPBadRequest"
    )


def _follow(neutron: Neutron, href: str) -> Any:
    parts = urlsplit(href)
    return neutron.ok("GET", f"{parts.path}?{parts.query}")


def test_paging_links_walk_forward_and_back(neutron: Neutron) -> None:
    for i in range(5):
        neutron.network(name=f"p{i}")
    page = neutron.ok("GET", "/v2.0/networks?limit=2&sort_key=name&sort_dir=asc")
    seen = _names(page)
    while True:
        links = {link["rel"]: link["href"] for link in page.get("networks_links", [])}
        if "next" not in links:
            break
        page = _follow(neutron, links["next"])
        seen += _names(page)
    assert seen == [f"p{i}" for i in range(5)]
    middle = neutron.ok("GET", "/v2.0/networks?limit=2&sort_key=name&sort_dir=asc")
    nxt = {link["rel"]: link["href"] for link in middle["networks_links"]}["next"]
    second = _follow(neutron, nxt)
    assert _names(second) == ["p2", "p3"]
    back = {link["rel"]: link["href"] for link in second["networks_links"]}["previous"]
    assert "page_reverse=True" in back
    assert _names(_follow(neutron, back)) == ["p0", "p1"]
    assert neutron.fault("GET", "/v2.0/networks?limit=-1", 400) == "BadRequest"
    missing = "/v2.0/networks?limit=2&marker=00000000-0000-0000-0000-000000000000"
    assert neutron.fault("GET", missing, 404) == "NetworkNotFound"
