"""The serial and SPICE consoles end to end on `saphira up` (fake driver,
[serial_console] and [spice] enabled): the ws:// URL `openstack console url
show --serial` prints reaches the fake guest's TCP serial port through the
all-in-one's serial proxy, in binary frames both ways; the --spice URL's page
is Debian's spice_auto.html and its token reaches the fake guest's SPICE
server; a wrong token, a foreign Origin and another type's proxy are refused."""

from __future__ import annotations

import socket
import struct
import urllib.error
import urllib.request
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.functional.cloud import Cloud, start_cloud
from tests.ws_client import Refused, WsClient

pytestmark = pytest.mark.functional
BINARY = 0x2


@pytest.fixture(scope="module")
def cloud(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cloud]:
    conf = tmp_path_factory.mktemp("conf") / "serial.conf"
    conf.write_text("[serial_console]\nenabled = true\n[spice]\nenabled = true\n")
    running = start_cloud(str(tmp_path_factory.mktemp("cloud")), ["--config-file", str(conf)])
    yield running
    if running.proc is not None and running.proc.poll() is None:
        assert running.stop() == 0, running.log()


@pytest.fixture(scope="module")
def server(cloud: Cloud, tmp_path_factory: pytest.TempPathFactory) -> str:
    disk = tmp_path_factory.mktemp("image") / "disk.raw"
    disk.write_bytes(b"\0" * 4096)
    cloud.openstack(
        "image", "create", "--disk-format", "raw", "--container-format", "bare",
        "--file", str(disk), "tty-image",
    )  # fmt: skip
    cloud.openstack("flavor", "create", "--vcpus", "1", "--ram", "64", "--disk", "1", "tty")
    cloud.openstack(
        "server", "create", "--image", "tty-image", "--flavor", "tty", "--no-network",
        "--wait", "tty1",
    )  # fmt: skip
    return "tty1"


def _serial_url(cloud: Cloud, server: str) -> tuple[str, int, str]:
    shown = cloud.openstack("console", "url", "show", "--serial", server, "-f", "json")
    assert shown["type"] == "serial", shown
    url = urlsplit(shown["url"])
    assert url.scheme == "ws" and url.path == "/" and url.hostname and url.port, shown
    assert url.query.startswith("token="), shown
    return url.hostname, url.port, f"{url.path}?{url.query}"


def read_until(client: WsClient, end: bytes) -> bytes:
    """The relayed bytes until ``end`` is seen."""
    seen = b""
    while end not in seen:
        seen += client.frame()
    return seen


def next_opcode(client: WsClient) -> int:
    """The next frame's opcode, left unread (Nova's serial proxy sends binary ones)."""
    head = client.buffered or client.sock.recv(1, socket.MSG_PEEK)
    return head[0] & 0x0F


def test_the_serial_url_shows_the_guests_marker_and_prompt(cloud: Cloud, server: str) -> None:
    host, port, path = _serial_url(cloud, server)
    with WsClient.open(host, port, path) as client:
        assert next_opcode(client) == BINARY
        seen = read_until(client, b"login: ")
        assert b"SAPHIRA-GUEST: serial console of instance-" in seen, seen
        client.send(b"\r")  # Enter: a new prompt, as a getty answers
        assert read_until(client, b"login: ").endswith(b"login: ")
    with WsClient.open(host, port, path, origin=f"http://{host}:{port}") as client:
        assert b"SAPHIRA-GUEST:" in read_until(client, b"login: ")


def test_a_wrong_token_and_a_foreign_origin_are_refused(cloud: Cloud, server: str) -> None:
    host, port, path = _serial_url(cloud, server)
    for bad_path, origin in ((path.replace("token=", "token=bad"), None),
                             (path, "http://evil.example")):  # fmt: skip
        with pytest.raises(Refused) as caught:
            WsClient.open(host, port, bad_path, origin=origin)
        assert caught.value.status == 403
    with pytest.raises(urllib.error.HTTPError) as missing:  # no client files: only the socket
        urllib.request.urlopen(f"http://{host}:{port}/", timeout=30)
    assert missing.value.code == 404
    missing.value.close()
    with pytest.raises(Refused) as novnc:  # the noVNC proxy takes no serial token
        vnc_port = port - 3
        WsClient.open(host, vnc_port, f"/?{path.split('?', 1)[1]}")
    assert novnc.value.status == 403


def test_the_spice_url_serves_spice_html5_and_reaches_the_guest(cloud: Cloud, server: str) -> None:
    shown = cloud.openstack("console", "url", "show", "--spice", server, "-f", "json")
    assert shown["type"] == "spice-html5", shown
    url = urlsplit(shown["url"])
    assert url.path == "/spice_auto.html" and url.hostname and url.port, shown
    host, port = url.hostname, url.port
    with urllib.request.urlopen(f"http://{host}:{port}/spice_auto.html", timeout=30) as page:
        assert b"spice_query_var" in page.read()  # Debian's spice-html5
    token = parse_qs(url.query)["token"][0]
    link = struct.pack("<IBBIII", 0, 1, 0, 0, 0, 18)
    cookie_path = "/websockify"  # spice_auto.html's socket (a browser sends the token as a cookie)
    with WsClient.open(host, port, f"{cookie_path}?token={token}",
                       origin=f"http://{host}:{port}") as client:  # fmt: skip
        client.send(b"REDQ" + struct.pack("<III", 2, 2, len(link)) + link)
        assert client.recv(4) == b"REDQ"
    _, serial_port, serial_path = _serial_url(cloud, server)
    for bad_port, bad_path, origin in (
        (port, f"{cookie_path}?token=x{token}", None),
        (port, f"{cookie_path}?token={token}", "http://evil.example"),
        (port, serial_path, None),  # a serial token at the SPICE proxy
        (serial_port, f"/?token={token}", None),  # a SPICE token at the serial proxy
    ):
        with pytest.raises(Refused) as caught:
            WsClient.open(host, bad_port, bad_path, origin=origin)
        assert caught.value.status == 403
