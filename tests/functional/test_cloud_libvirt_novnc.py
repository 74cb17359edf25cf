"""noVNC to a real guest: `saphira up` on libvirt boots the tiny image under TCG,
and the URL `openstack console url show --novnc` prints takes a websocket
through the proxy to QEMU's own VNC server (its RFB handshake), while a wrong
token and a foreign Origin are refused."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from saphira.devtools.leftovers import remove_guests_under
from tests import rfb_client
from tests.functional.cloud import Cloud, start_cloud
from tests.integration.libvirt.guests import qemu_reachable_dir
from tests.ws_client import Refused, WsClient

pytestmark = [pytest.mark.functional, pytest.mark.xdist_group("libvirt")]


@pytest.fixture(scope="module")
def cloud(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cloud]:
    with qemu_reachable_dir("novnc") as root:
        instances = root / "instances"
        conf: Path = tmp_path_factory.mktemp("conf") / "libvirt.conf"
        conf.write_text(f"[DEFAULT]\ninstances_path = {instances}\n")
        running = start_cloud(
            str(tmp_path_factory.mktemp("cloud")),
            ["--compute-driver", "libvirt.LibvirtDriver", "--test-image",
             "--config-file", str(conf)],
        )  # fmt: skip
        try:
            yield running
            if running.proc is not None and running.proc.poll() is None:
                assert running.stop() == 0, running.log()
        finally:
            running.kill()
            remove_guests_under(instances)


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
