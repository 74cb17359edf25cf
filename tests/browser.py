"""A real headless Chromium opening a noVNC console URL, for tests and bench.

Selenium drives Debian's `chromium` through Debian's `chromedriver`, both from
apt: the two come from one source package, so their versions always match and
nothing is downloaded at test time. (Playwright's Python package was the other
choice: it ships its own Node driver and pins a Chromium build of its own, so
pointing it at Debian's Chromium is off its supported path.) A missing browser
is a broken environment: `chrome()` fails the test, it never skips.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

from tests.environment import require_tools

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = (
    "--headless",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1024,768",
)

# The canvas noVNC draws the guest's screen on, measured in the page itself:
# its size, and how many pixels differ from its top-left one (the background).
_CANVAS = """
const c = document.querySelector('#noVNC_container canvas, #screen canvas');
if (!c || !c.width || !c.height) { return null; }
const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
let ink = 0;
for (let i = 0; i < d.length; i += 4) {
  if (d[i] !== d[0] || d[i + 1] !== d[1] || d[i + 2] !== d[2]) { ink++; }
}
return [c.width, c.height, ink];
"""

# noVNC marks its page while it connects and once connected.
_STARTED = """
const c = document.documentElement.classList;
return c.contains('noVNC_connecting') || c.contains('noVNC_connected');
"""


NETWORK_CHANGED = "net::ERR_NETWORK_CHANGED"  # Chromium: the host's network changed mid-load


@dataclass(frozen=True)
class Canvas:
    """What noVNC's canvas holds: its size and its non-background pixels."""

    width: int
    height: int
    ink: int


@dataclass(frozen=True)
class PageState:
    """noVNC's page: connected or not, its status line, and its canvas if any."""

    connected: bool
    status: str
    canvas: Canvas | None


class NoVncPage:
    """One browser tab on a noVNC page (vnc.html, which Debian's vnc_auto.html is)."""

    def __init__(self, driver: webdriver.Chrome) -> None:
        self.driver = driver

    def open(self, url: str) -> None:
        """Loads ``url`` and presses Connect when the page waits for it.

        Debian's vnc_auto.html is noVNC 1.3's full vnc.html, which connects
        by itself only with ``autoconnect=true``; a user presses its button.
        """
        self.driver.get(url)
        deadline = time.monotonic() + 10  # the page's scripts show the button after load
        while time.monotonic() < deadline:
            if self.driver.execute_script(_STARTED):
                return  # a page that connects by itself
            buttons = self.driver.find_elements(By.ID, "noVNC_connect_button")
            if buttons and buttons[0].is_displayed():
                buttons[0].click()
                return
            time.sleep(0.05)

    def state(self) -> PageState:
        connected = bool(
            self.driver.execute_script(
                "return document.documentElement.classList.contains('noVNC_connected');"
            )
        )
        found = self.driver.find_elements(By.ID, "noVNC_status")
        status = str(found[0].get_attribute("textContent") or "") if found else ""
        raw = self.driver.execute_script(_CANVAS)
        canvas = Canvas(int(raw[0]), int(raw[1]), int(raw[2])) if raw else None
        return PageState(connected, status.strip(), canvas)

    def wait(self, done: str, timeout: float) -> PageState:
        """Polls until ``done`` holds ("drawn": connected with ink on the canvas,
        "failed": an error status and not connected); returns the last state."""
        deadline = time.monotonic() + timeout
        while True:
            state = self.state()
            if done == "drawn" and state.connected and state.canvas and state.canvas.ink:
                return state
            if done == "failed" and state.status and not state.connected:
                return state
            if time.monotonic() >= deadline:
                return state
            time.sleep(0.1)

    def drawn(self, timeout: float) -> tuple[PageState, list[str]]:
        """Waits for the guest's screen; the last state and, if it was not drawn, what the
        page logged. Chromium drops a page's loads with ERR_NETWORK_CHANGED when the host's
        interfaces change (the suite's other tests make and remove bridges and taps): a
        person reloads such a page, and so does this, once."""
        state = self.wait("drawn", timeout)
        logged = [] if state.connected else self.console_log()
        if not state.connected and any(NETWORK_CHANGED in line for line in logged):
            self.driver.execute_script("location.reload();")
            state = self.wait("drawn", timeout)
            logged += [] if state.connected else self.console_log()
        return state, logged

    def console_log(self) -> list[str]:
        """What the page's scripts logged (errors first among them), for a failure's message."""
        entries: list[dict[str, object]] = self.driver.get_log("browser")  # type: ignore[no-untyped-call]
        return [str(entry.get("message", "")) for entry in entries]

    def screenshot(self, path: Path) -> None:
        """The page as a PNG, kept beside a failing test's output."""
        self.driver.save_screenshot(str(path))


@contextmanager
def chrome() -> Iterator[NoVncPage]:
    """A fresh headless Chromium (its own profile directory), quit on exit."""
    require_tools(CHROMIUM, CHROMEDRIVER)
    with tempfile.TemporaryDirectory(prefix="saphira-chromium-") as profile:
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in FLAGS:
            options.add_argument(flag)
        if os.geteuid() == 0:
            options.add_argument("--no-sandbox")  # Chromium's sandbox refuses root
        options.add_argument(f"--user-data-dir={profile}")
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # for console_log
        driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
        try:
            yield NoVncPage(driver)
        finally:
            driver.quit()
