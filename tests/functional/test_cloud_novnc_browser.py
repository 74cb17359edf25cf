"""noVNC in a real browser: headless Chromium opens the URL that `openstack
console url show --novnc` prints for a tiny-image guest booted under TCG by
`saphira up` on libvirt, connects, and draws the guest's VGA console (its
BIOS, bootloader and kernel text) on noVNC's canvas; a wrong token, an expired
one and a page from another origin get a failure and an empty canvas.

(A member of another project gets a 404 for the console URL itself:
tests/functional/compute/test_consoles_api.py.)"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, quote, urlsplit

import pytest

from saphira.guest_image import BOOTED
from tests.browser import NoVncPage, PageState, chrome
from tests.functional.cloud import Cloud, start_cloud
from tests.functional.guest_cloud import libvirt_cloud
from tests.functional.test_cloud_libvirt import wait_console

pytestmark = [pytest.mark.functional, pytest.mark.xdist_group("libvirt")]
TOKEN_TTL = 20  # seconds: long enough to open a fresh URL, short enough to wait out
# Fewer would be a speck, not text: one 8x16 glyph alone has about 40 lit pixels.
MIN_INK = 400


@pytest.fixture(scope="module")
def cloud(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cloud]:
    where, cloud_dir = tmp_path_factory.mktemp("conf"), tmp_path_factory.mktemp("cloud")
    with libvirt_cloud(
        "novnc-browser", where, cloud_dir, f"[consoleauth]\ntoken_ttl = {TOKEN_TTL}\n"
    ) as running:
        yield running


@pytest.fixture(scope="module")
def guest(cloud: Cloud) -> Iterator[str]:
    """A booted guest's name: its console log shows the init's BOOTED line."""
    cloud.openstack(
        "server", "create", "--image", "saphira-tiny", "--flavor", "saphira.tiny",
        "--no-network", "--wait", "browser-guest", "-f", "json",
    )  # fmt: skip
    wait_console(cloud, "browser-guest", BOOTED, 1)
    yield "browser-guest"
    cloud.openstack("server", "delete", "--wait", "browser-guest")


@pytest.fixture
def page(tmp_path: Path) -> Iterator[NoVncPage]:
    with chrome() as opened:
        try:
            yield opened
        finally:
            opened.screenshot(tmp_path / "page.png")


def console_url(cloud: Cloud, server: str) -> str:
    shown = cloud.openstack("console", "url", "show", "--novnc", server, "-f", "json")
    return str(shown["url"])


def assert_refused(state: PageState) -> None:
    assert not state.connected and "Failed to connect" in state.status, state
    assert state.canvas is None or state.canvas.ink == 0, state


def test_the_browser_draws_the_guests_console(cloud: Cloud, guest: str, page: NoVncPage) -> None:
    page.open(console_url(cloud, guest))
    state, logged = page.drawn(60)
    assert state.connected, (state, logged)
    assert state.canvas and state.canvas.width >= 640 and state.canvas.height >= 400, state
    assert state.canvas.ink >= MIN_INK, state  # text, not a blank screen


def test_a_wrong_token_draws_nothing(cloud: Cloud, guest: str, page: NoVncPage) -> None:
    page.open(console_url(cloud, guest) + "0")  # the URL ends with its token
    assert_refused(page.wait("failed", 30))


def test_an_expired_token_draws_nothing(cloud: Cloud, guest: str, page: NoVncPage) -> None:
    url = console_url(cloud, guest)
    time.sleep(TOKEN_TTL + 1)
    page.open(url)
    assert_refused(page.wait("failed", 30))


def test_a_page_from_another_origin_draws_nothing(
    cloud: Cloud, guest: str, page: NoVncPage
) -> None:
    """The page comes from localhost, its websocket goes to 127.0.0.1: the
    browser's Origin (localhost) is not the Host it talks to, so the proxy
    refuses it."""
    url = urlsplit(console_url(cloud, guest))
    assert url.hostname == "127.0.0.1" and url.port, url
    path = parse_qs(url.query)["path"][0]
    page.open(
        f"http://localhost:{url.port}{url.path}?host=127.0.0.1&port={url.port}"
        f"&path={quote(path, safe='')}"
    )
    assert_refused(page.wait("failed", 30))


@pytest.fixture(scope="module")
def fake_cloud(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cloud]:
    running = start_cloud(str(tmp_path_factory.mktemp("fake-cloud")), ["--test-image"])
    try:
        yield running
        if running.proc is not None and running.proc.poll() is None:
            assert running.stop() == 0, running.log()
    finally:
        running.kill()


def test_a_guest_that_draws_nothing_leaves_the_canvas_blank(
    fake_cloud: Cloud, page: NoVncPage
) -> None:
    """The fake driver's guest speaks RFB but draws nothing: the browser
    connects, and the measure the drawn-console test relies on reads no ink."""
    fake_cloud.openstack(
        "server", "create", "--image", "saphira-tiny", "--flavor", "saphira.tiny",
        "--no-network", "--wait", "blank-guest", "-f", "json",
    )  # fmt: skip
    page.open(console_url(fake_cloud, "blank-guest"))
    state = page.wait("drawn", 5)  # never drawn: it times out with the last state
    assert state.connected, state
    assert state.canvas is not None and state.canvas.ink == 0, state
