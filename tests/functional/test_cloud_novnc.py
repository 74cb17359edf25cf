"""noVNC end to end on `saphira up` (fake driver): the URL `openstack console url
show --novnc` prints is served by the all-in-one's proxy, which relays the fake
guest's VNC handshake, and refuses a wrong token, a foreign Origin, and a
deleted server's token."""

from __future__ import annotations

import urllib.request
import warnings
from collections.abc import Iterator
from types import ModuleType
from urllib.parse import parse_qs, urlsplit

import pytest

from tests import rfb_client
from tests.functional.cloud import Cloud, start_cloud
from tests.ws_client import Refused, WsClient

pytestmark = pytest.mark.functional


@pytest.fixture(scope="module")
def cloud(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cloud]:
    conf = tmp_path_factory.mktemp("conf") / "console.conf"
    conf.write_text("[console]\nallowed_origins = console.example\n")
    running = start_cloud(str(tmp_path_factory.mktemp("cloud")), ["--config-file", str(conf)])
    yield running
    if running.proc is not None and running.proc.poll() is None:
        assert running.stop() == 0, running.log()


def _console_url(cloud: Cloud, server: str) -> tuple[str, int, str]:
    shown = cloud.openstack("console", "url", "show", "--novnc", server, "-f", "json")
    assert shown["type"] == "novnc", shown
    url = urlsplit(shown["url"])
    assert url.path == "/vnc_auto.html" and url.hostname and url.port, shown
    (path,) = parse_qs(url.query)["path"]  # noVNC opens ws://host:port/?token=...
    return url.hostname, url.port, "/" + path


@pytest.fixture(scope="module")
def image(cloud: Cloud, tmp_path_factory: pytest.TempPathFactory) -> str:
    disk = tmp_path_factory.mktemp("image") / "disk.raw"
    disk.write_bytes(b"\0" * 4096)
    cloud.openstack(
        "image", "create", "--disk-format", "raw", "--container-format", "bare",
        "--file", str(disk), "vnc-image",
    )  # fmt: skip
    cloud.openstack("flavor", "create", "--vcpus", "1", "--ram", "64", "--disk", "1", "vnc")
    return "vnc-image"


def _server(cloud: Cloud, image: str, name: str) -> None:
    cloud.openstack(
        "server", "create", "--image", image, "--flavor", "vnc", "--no-network", "--wait", name
    )


def test_the_console_url_reaches_the_guest_through_the_proxy(cloud: Cloud, image: str) -> None:
    _server(cloud, image, "vnc1")
    host, port, path = _console_url(cloud, "vnc1")
    with WsClient.open(host, port, path, origin=f"http://{host}:{port}") as client:
        assert rfb_client.handshake(client.recv, client.send) == [1]
        assert rfb_client.server_name(client.recv, client.send).startswith("instance-")
    with WsClient.open(host, port, path, origin="https://console.example") as client:
        assert rfb_client.handshake(client.recv, client.send) == [1]
    for page in ("vnc_auto.html", "vnc_lite.html"):  # Debian's novnc, as the guide's URL
        with urllib.request.urlopen(f"http://{host}:{port}/{page}", timeout=30) as answer:
            assert b"noVNC" in answer.read()


def test_a_wrong_token_a_foreign_origin_and_a_deleted_servers_token_are_refused(
    cloud: Cloud, image: str
) -> None:
    _server(cloud, image, "vnc2")
    host, port, path = _console_url(cloud, "vnc2")
    refused = [(path.replace("token=", "token=bad"), None), (path, "http://evil.example")]
    for bad_path, origin in refused:
        with pytest.raises(Refused) as caught:
            WsClient.open(host, port, bad_path, origin=origin)
        assert caught.value.status == 403
    with WsClient.open(host, port, path) as client:  # the control: the token itself works
        assert rfb_client.handshake(client.recv, client.send) == [1]
    cloud.openstack("server", "delete", "--wait", "vnc2")
    with pytest.raises(Refused) as caught:
        WsClient.open(host, port, path)
    assert caught.value.status == 403  # the token is gone (a live token to no guest: 502)


def _tempest_compute() -> ModuleType:
    """tempest.common.compute, whose import warns about tempest's own volume v2 clients."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from tempest.common import compute
    module: ModuleType = compute
    return module


def test_tempests_novnc_checks_pass(cloud: Cloud, image: str) -> None:
    compute = _tempest_compute()
    _server(cloud, image, "vnc3")
    shown = cloud.openstack("console", "url", "show", "--novnc", "vnc3", "-f", "json")
    # tempest's own checks (test_novnc's), called one by one on a case that is never run.
    tempest = compute.NoVNCValidateMixin("validate_rfb_negotiation")
    tempest.validate_novnc_html(shown["url"])
    tempest.websocket = compute.create_websocket(shown["url"])
    try:
        tempest.validate_websocket_upgrade()
        tempest.validate_rfb_negotiation()
    finally:
        tempest.websocket.close()
    bad = shown["url"].replace("token%3D", "token%3Dbad")
    websocket = compute.create_websocket(bad)
    try:
        assert not websocket.receive_frame()  # closed without a frame, as test_novnc_bad_token
    finally:
        websocket.close()
