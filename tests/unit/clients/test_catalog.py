"""Service URLs from the identity catalog: keystoneauth's choice of interface and
region, one read per token, a second read when the service moved, and an
override that always wins."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from oslo_config import cfg

from saphira import conf as saphira_conf
from saphira.clients import endpoints
from saphira.clients.base import FixedURL
from saphira.clients.catalog import CatalogURL, EndpointNotFound, Wanted
from saphira.clients.fake import FakeTransport
from saphira.clients.identity import PasswordToken
from saphira.clients.placement import PlacementClient
from saphira.clients.transport import Reply, Request, TransportError
from saphira.exception import SaphiraError, ServiceUnavailable

CATALOG_PATH = "/v3/auth/catalog"


def _endpoint(interface: str, url: str, region: str = "RegionOne") -> dict[str, str]:
    return {"interface": interface, "url": url, "region": region, "region_id": region}


def _catalog(*endpoints_: dict[str, str], kind: str = "placement") -> dict[str, Any]:
    return {"catalog": [
        {"type": "identity", "endpoints": [_endpoint("public", "http://id.test/v3")]},
        {"type": kind, "endpoints": list(endpoints_)},
    ]}  # fmt: skip


def test_the_first_valid_interface_the_service_has_wins() -> None:
    both = _catalog(
        _endpoint("public", "http://pub.test"), _endpoint("internal", "http://in.test/")
    )
    wanted = Wanted("placement", ("internal", "public"))
    assert wanted.pick(both["catalog"]) == "http://in.test"
    assert Wanted("placement", ("public",)).pick(both["catalog"]) == "http://pub.test"
    public_only = _catalog(_endpoint("public", "http://pub.test"))
    assert wanted.pick(public_only["catalog"]) == "http://pub.test"


def test_an_endpoint_of_another_region_never_wins() -> None:
    listed = _catalog(_endpoint("internal", "http://two.test", "RegionTwo"),
                      _endpoint("public", "http://one.test"))["catalog"]  # fmt: skip
    assert Wanted("placement", ("internal", "public"), "RegionOne").pick(listed) == (
        "http://one.test"
    )
    assert Wanted("placement", ("internal",), None).pick(listed) == "http://two.test"
    with pytest.raises(EndpointNotFound) as caught:
        Wanted("placement", ("internal",), "RegionOne").pick(listed)
    assert caught.value.message == (
        "the identity catalog has no internal endpoint of type placement in region RegionOne"
    )
    with pytest.raises(EndpointNotFound):
        Wanted("image").pick(listed)


class _Tokens:
    """A service user's token; ``renew`` stands for its renewal."""

    def __init__(self) -> None:
        self.value = "t1"

    def __call__(self) -> str:
        return self.value


def _located(wire: FakeTransport, tokens: _Tokens) -> CatalogURL:
    return CatalogURL("http://id.test:5000", tokens, Wanted("placement"), transport=wire)


def test_the_catalog_is_read_once_per_token() -> None:
    wire, tokens = FakeTransport(), _Tokens()
    wire.reply("GET", CATALOG_PATH, json=_catalog(_endpoint("public", "http://p.test:8778")))
    wire.reply("GET", "/resource_providers", json={"resource_providers": []})
    client = PlacementClient(_located(wire, tokens), tokens, transport=wire)
    for _ in range(3):
        client.call("GET", "/resource_providers")
    assert wire.paths().count(f"GET {CATALOG_PATH}") == 1
    assert wire.sent[0].headers["X-Auth-Token"] == "t1"
    assert wire.sent[-1].url == "http://p.test:8778/resource_providers"
    tokens.value = "t2"  # renewed: its catalog may differ
    client.call("GET", "/resource_providers")
    assert wire.paths().count(f"GET {CATALOG_PATH}") == 2


def _moving(wire: FakeTransport, *urls: str) -> None:
    """The catalog lists each of ``urls`` in turn, one per read (the last stays)."""
    for url in urls:
        wire.reply("GET", CATALOG_PATH, json=_catalog(_endpoint("internal", url)))


def test_a_service_that_moved_is_found_again_after_a_failed_connection() -> None:
    wire, tokens = FakeTransport(), _Tokens()
    _moving(wire, "http://old.test", "http://new.test")

    def answer(request: Request) -> Reply:
        if request.url.startswith("http://old.test"):
            raise TransportError("Connection refused (fake)")
        return Reply(200, {}, b'{"resource_providers": []}')

    wire.handle("GET", "/resource_providers", answer)
    client = PlacementClient(_located(wire, tokens), tokens, transport=wire, timeout=1)
    client.sleep = lambda seconds: None
    assert client.call("GET", "/resource_providers") == {"resource_providers": []}
    assert wire.sent[-1].url == "http://new.test/resource_providers"
    assert wire.paths().count(f"GET {CATALOG_PATH}") == 2


def test_a_404_reads_the_catalog_again_and_resends_only_if_the_service_moved() -> None:
    wire, tokens = FakeTransport(), _Tokens()
    _moving(wire, "http://old.test", "http://new.test", "http://new.test")

    def answer(request: Request) -> Reply:
        status = 404 if request.url.startswith("http://old.test") else 200
        return Reply(status, {}, b'{"uuid": "rp"}')

    wire.handle("GET", "/resource_providers/rp", answer)
    client = PlacementClient(_located(wire, tokens), tokens, transport=wire)
    assert client.call("GET", "/resource_providers/rp") == {"uuid": "rp"}
    assert [r.url for r in wire.sent if "resource_providers" in r.url] == [
        "http://old.test/resource_providers/rp", "http://new.test/resource_providers/rp",
    ]  # fmt: skip
    wire.reply("GET", "/resource_providers/gone", status=404, json={"errors": []})
    with pytest.raises(SaphiraError) as caught:
        client.call("GET", "/resource_providers/gone")
    assert caught.value.code == 404
    assert [urlpath for urlpath in wire.paths() if "gone" in urlpath] == [
        "GET /resource_providers/gone"
    ]  # the same URL again: not resent


def test_a_fixed_url_is_not_looked_up_again() -> None:
    wire = FakeTransport()
    wire.refuse_connection("GET", "/resource_providers", times=3)
    client = PlacementClient(FixedURL("http://p.test/"), lambda: "t", transport=wire)
    client.sleep = lambda seconds: None
    with pytest.raises(ServiceUnavailable):
        client.call("GET", "/resource_providers")
    assert wire.paths() == ["GET /resource_providers"] * 3  # retries, no catalog read


@pytest.fixture
def catalog_on() -> Iterator[cfg.ConfigOpts]:
    conf = saphira_conf.load([])
    conf.set_override("auth_url", "http://controller.test:5000", group="placement")
    conf.set_override("auth_url", "http://controller.test:5000", group="keystone_authtoken")
    endpoints.use_catalog()
    try:
        yield conf
    finally:
        endpoints.use_catalog(False)


def test_without_an_override_a_per_service_process_reads_the_catalog(
    catalog_on: cfg.ConfigOpts,
) -> None:
    conf = catalog_on
    conf.set_override("valid_interfaces", ["public"], group="placement")
    conf.set_override("region_name", "RegionTwo", group="placement")
    token = PasswordToken(conf.placement)
    found = endpoints.service_locator(conf, "placement", "placement", token)
    assert isinstance(found, CatalogURL)
    assert found.wanted == Wanted("placement", ("public",), "RegionTwo")
    assert found.identity.base_url == "http://controller.test:5000/v3"
    image = endpoints.image_locator(conf, PasswordToken(conf.keystone_authtoken))
    assert isinstance(image, CatalogURL)
    assert image.wanted == Wanted("image", ("internal", "public"), "RegionOne")


def test_an_override_wins_over_the_catalog(catalog_on: cfg.ConfigOpts) -> None:
    conf = catalog_on
    conf.set_override("endpoint_override", "http://placement.test:8778/", group="placement")
    conf.set_override("api_servers", ["http://glance.test:9292"], group="glance")
    token = PasswordToken(conf.placement)
    found = endpoints.service_locator(conf, "placement", "placement", token)
    assert isinstance(found, FixedURL)
    assert found() == "http://placement.test:8778"
    image = endpoints.image_locator(conf, token)
    assert isinstance(image, FixedURL) and image() == "http://glance.test:9292"


def test_where_the_catalog_is_its_own_the_local_listener_is_used() -> None:
    conf = saphira_conf.load([])
    conf.set_override("port_offset", 100)
    found = endpoints.service_locator(conf, "neutron", "network", PasswordToken(conf.neutron))
    assert isinstance(found, FixedURL)
    assert found() == "http://127.0.0.1:9796"
