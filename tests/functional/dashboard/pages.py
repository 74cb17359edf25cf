"""The dashboard in Debian's headless Chromium, as its browser tests drive it.

``Pages`` is one browser on one dashboard, the one way every dashboard browser
test drives a page: log in and out as a person does, wait for what a click
loads (a click returns before the next page is there), follow a navigation
link, read an element's text in one step, and keep a numbered screenshot of
each page under the test's own directory (the artefacts a failing walk is read
from).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement

from tests.browser import NoVncPage
from tests.polling import wait_for

TIMEOUT = 30.0
# Each shown page's form controls and buttons that have no accessible name (a field with no
# <label> and no aria-label(ledby), a button or link with no text and no aria-label), and
# its ids given twice (a label then names the first one only).
_UNNAMED = """
const named = (e) => (e.labels && e.labels.length) || e.getAttribute('aria-label')
  || e.getAttribute('aria-labelledby') || (e.title || '').trim();
const fields = document.querySelectorAll(
  'input:not([type=hidden]):not([type=submit]):not([type=button]), select, textarea');
const acts = document.querySelectorAll('button, a[href], input[type=submit]');
const ids = Array.from(document.querySelectorAll('[id]'), (e) => e.id);
return [...Array.from(fields).filter((e) => !named(e)),
        ...Array.from(acts).filter((e) => !(e.innerText || e.value || '').trim() && !named(e))]
  .map((e) => e.outerHTML.slice(0, 120))
  .concat(ids.filter((id, i) => ids.indexOf(id) !== i).map((id) => `id ${id} twice`));"""
# An element's text read in one step; "" when the page has no such element.
_TEXT = "const e = document.getElementById(arguments[0]); return e ? e.innerText.trim() : '';"


@dataclass
class Pages:
    browser: NoVncPage
    base: str
    shots: Path
    taken: int = 0

    @property
    def driver(self) -> WebDriver:
        return self.browser.driver

    def open(self, path: str, element_id: str) -> WebElement:
        """``path`` loaded, once its ``element_id`` is there."""
        self.driver.get(self.base + path)
        return self.shown(element_id)

    def find(self, by: str, value: str, timeout: float = TIMEOUT) -> WebElement:
        """The element once the page that has it is loaded."""
        found = self.until(f"{by} {value!r} on the page",
                           lambda: self.driver.find_elements(by, value), timeout)  # fmt: skip
        return found[0]  # type: ignore[no-any-return]

    def shown(self, element_id: str, timeout: float = TIMEOUT) -> WebElement:
        return self.find(By.ID, element_id, timeout)

    def until(self, what: str, check: Callable[[], Any], timeout: float = TIMEOUT) -> Any:
        """What ``check`` returns once it is truthy (``tests.polling.wait_for``, polled often:
        a page changes quickly)."""
        return wait_for(what, check, timeout=timeout, interval=0.1)

    def text(self, element_id: str) -> str:
        """The element's text, read in one step: a live page replaces its elements, so one
        found first may be gone by the time its text is asked for."""
        return str(self.driver.execute_script(_TEXT, element_id))

    def follow(self, nav: str, link: str, element_id: str) -> WebElement:
        """The ``nav`` navigation's ``link`` clicked, until the page's ``element_id`` is there."""
        menu = self.driver.find_element(By.CSS_SELECTOR, f"nav[aria-label='{nav}']")
        menu.find_element(By.LINK_TEXT, link).click()
        return self.shown(element_id)

    def click(self, css: str, by: str = By.CSS_SELECTOR) -> None:
        """Clicks the element ``css`` (or what ``by`` finds by that value) selects, once it is
        there; a live page may redraw it between the find and the click, so a stale one is
        found again."""

        def clicked() -> bool:
            try:
                self.driver.find_element(by, css).click()
            except (StaleElementReferenceException, NoSuchElementException):
                return False
            return True

        self.until(f"a click on {css}", clicked)

    def log_in(
        self, user: str, password: str, path: str = "/auth/login", landing: str = "instances"
    ) -> None:
        """Logs in on the form ``path`` leads to (the login page, or a page that asks for a
        login first and comes back to it), until the ``landing`` element is there."""
        self.open(path, "username").send_keys(user)
        self.driver.find_element(By.ID, "password").send_keys(password)
        self.driver.find_element(By.ID, "login").click()
        self.shown(landing)

    def log_out(self) -> None:
        self.driver.find_element(By.CSS_SELECTOR, "form.logout button").click()
        self.shown("username")

    def shot(self, what: str, at: str | None = None) -> Path:
        """The page as the next numbered PNG; ``at``: the id of an element scrolled into
        view first (the page as it is scrolled otherwise)."""
        if at is not None:
            self.driver.execute_script("arguments[0].scrollIntoView();", self.shown(at))
        self.taken += 1
        path = self.shots / f"{self.taken:02d}-{what}.png"
        self.browser.screenshot(path)
        unnamed = self.driver.execute_script(_UNNAMED)
        assert not unnamed, f"{what}: unnamed controls or repeated ids: {unnamed}"
        return path
