"""noVNC to a real guest: `saphira up` on libvirt boots the tiny image under TCG,
and the URL `openstack console url show --novnc` prints takes a websocket
through the proxy to QEMU's own VNC server (its RFB handshake), while a wrong
token and a foreign Origin are refused."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import pytest

from tests import rfb_client
from tests.functional.cloud import Cloud
from tests.functional.guest_cloud import libvirt_cloud
from tests.ws_client import Refused, WsClient

pytestmark = [pytest.mark.functional, pytest.mark.xdist_group("libvirt")]


@pytest.fixture(scope="module")
def cloud(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cloud]:
    where, cloud_dir = tmp_path_factory.mktemp("conf"), tmp_path_factory.mktemp("cloud")
    with libvirt_cloud("novnc", where, cloud_dir) as running:
        yield running


def test_novnc_reaches_a_real_guests_vnc_server(cloud: Cloud) -> None:
    server = cloud.openstack(
        "server", "create", "--image", "saphira-tiny", "--flavor", "saphira.tiny",
        "--no-network", "--wait", "vnc-guest", "-f", "json",
    )  # fmt: skip
    shown = cloud.openstack("console", "url", "show", "--novnc", "vnc-guest", "-f", "json")
    url = urlsplit(shown["url"])
    assert url.hostname and url.port and url.path == "/vnc_auto.html", shown
    host, port = url.hostname, url.port
    path = "/" + parse_qs(url.query)["path"][0]  # "/?token=..."
    with WsClient.open(host, port, path, origin=f"http://{host}:{port}") as client:
        assert client.recv(12) == rfb_client.VERSION  # QEMU speaks RFB 3.8
        client.send(rfb_client.VERSION)
        (count,) = client.recv(1)
        assert count > 0 and 1 in client.recv(count)  # security type None among them
        name = rfb_client.server_name(client.recv, client.send)
        assert server["id"] in name, name  # "QEMU (instance-<uuid>)": this very guest
    for bad_path, origin in ((path + "x", None), (path, "http://evil.example")):
        with pytest.raises(Refused) as caught:
            WsClient.open(host, port, bad_path, origin=origin)
        assert caught.value.status == 403
    cloud.openstack("server", "delete", "--wait", "vnc-guest")
