"""The serial and SPICE consoles of a real guest: `saphira up` on libvirt with
[serial_console] and [spice] enabled boots the tiny image under TCG with a TCP
serial port and SPICE graphics beside VNC. The URL `openstack console url show
--serial` prints takes a websocket through the serial proxy to the guest's
shell, which answers what is typed there, while virtlogd still writes the same
console to console.log (os-console-output); the --spice URL's token takes a
websocket through saphira-spicehtml5proxy to QEMU's SPICE server, which
answers the link message with its own REDQ header."""

from __future__ import annotations

import struct
import time
import urllib.request
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.functional.cloud import Cloud
from tests.functional.guest_cloud import libvirt_cloud
from tests.ws_client import Refused, WsClient

pytestmark = [pytest.mark.functional, pytest.mark.xdist_group("libvirt")]
BOOT_TIMEOUT = 300.0  # a hang guard: a TCG boot on a busy host takes a minute or two
COMMAND = b"echo SAPHIRA-GUEST: serial-$((6*7))\r"  # the shell's answer differs from the echo
ANSWER = b"SAPHIRA-GUEST: serial-42"


@pytest.fixture(scope="module")
def cloud(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cloud]:
    where, cloud_dir = tmp_path_factory.mktemp("conf"), tmp_path_factory.mktemp("cloud")
    with libvirt_cloud(
        "serial", where, cloud_dir, "[serial_console]\nenabled = true\n[spice]\nenabled = true\n"
    ) as running:
        yield running


def _answer(client: WsClient) -> bytes:
    """Type the command until the guest's shell prints its answer (while it boots,
    nothing reads the port)."""
    client.sock.settimeout(5)
    seen, deadline = b"", time.monotonic() + BOOT_TIMEOUT
    while ANSWER not in seen:
        assert time.monotonic() < deadline, seen[-2000:]
        client.send(COMMAND)
        try:
            while ANSWER not in seen:
                seen += client.frame()
        except TimeoutError:
            continue
    return seen


def test_the_serial_websocket_reaches_a_real_guests_shell(cloud: Cloud) -> None:
    cloud.openstack(
        "server", "create", "--image", "saphira-tiny", "--flavor", "saphira.tiny",
        "--no-network", "--wait", "tty-guest",
    )  # fmt: skip
    shown = cloud.openstack("console", "url", "show", "--serial", "tty-guest", "-f", "json")
    url = urlsplit(shown["url"])
    assert url.scheme == "ws" and url.hostname and url.port, shown
    host, port, path = url.hostname, url.port, f"{url.path}?{url.query}"
    with WsClient.open(host, port, path) as client:
        _answer(client)
    log = cloud.openstack("console", "log", "show", "tty-guest")
    assert "SAPHIRA-GUEST: ready" in log and ANSWER.decode() in log, log[-2000:]
    for bad_path, origin in ((path + "x", None), (path, "http://evil.example")):
        with pytest.raises(Refused) as caught:
            WsClient.open(host, port, bad_path, origin=origin)
        assert caught.value.status == 403
    cloud.openstack("server", "delete", "--wait", "tty-guest")


def _spice_link() -> bytes:
    """SpiceLinkHeader + SpiceLinkMess for the main channel (protocol 2.2, no caps)."""
    message = struct.pack("<IBBIII", 0, 1, 0, 0, 0, 18)
    return b"REDQ" + struct.pack("<III", 2, 2, len(message)) + message


def test_spice_html5_reaches_a_real_guests_spice_server(cloud: Cloud) -> None:
    cloud.openstack(
        "server", "create", "--image", "saphira-tiny", "--flavor", "saphira.tiny",
        "--no-network", "--wait", "spice-guest",
    )  # fmt: skip
    shown = cloud.openstack("console", "url", "show", "--spice", "spice-guest", "-f", "json")
    url = urlsplit(shown["url"])
    assert url.path == "/spice_auto.html" and url.hostname and url.port, shown
    host, port = url.hostname, url.port
    with urllib.request.urlopen(f"http://{host}:{port}/spice_auto.html", timeout=30) as page:
        assert b"spice_query_var" in page.read()  # Debian's spice-html5 client
    token = parse_qs(url.query)["token"][0]
    # spice_auto.html keeps the token in a cookie and opens /websockify
    with WsClient.open(host, port, f"/websockify?token={token}") as client:
        client.send(_spice_link())
        assert client.recv(4) == b"REDQ"
        assert struct.unpack("<II", client.recv(8)) == (2, 2)
    for bad, origin in ((f"/websockify?token=x{token}", None),
                        (f"/websockify?token={token}", "http://evil.example")):  # fmt: skip
        with pytest.raises(Refused) as caught:
            WsClient.open(host, port, bad, origin=origin)
        assert caught.value.status == 403
    cloud.openstack("server", "delete", "--wait", "spice-guest")
