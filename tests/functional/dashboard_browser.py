"""The dashboard in Debian's headless Chromium, as its browser tests drive it.

``Pages`` is one browser on one dashboard: log in and out as a person does,
wait for what a click loads (a click returns before the next page is there),
follow a navigation link, and keep a numbered screenshot of each page under
the test's own directory (the artefacts a failing walk is read from).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement

from tests.browser import NoVncPage
from tests.polling import wait_for

TIMEOUT = 30.0


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

    def until(self, what: str, check: Any, timeout: float = TIMEOUT) -> Any:
        return wait_for(what, check, timeout=timeout, interval=0.1)

    def follow(self, nav: str, link: str, element_id: str) -> WebElement:
        """The ``nav`` navigation's ``link`` clicked, until the page's ``element_id`` is there."""
        menu = self.driver.find_element(By.CSS_SELECTOR, f"nav[aria-label='{nav}']")
        menu.find_element(By.LINK_TEXT, link).click()
        return self.shown(element_id)

    def click(self, css: str) -> None:
        """Clicks the element ``css`` selects; a live page may redraw it between the find and
        the click, so a stale one is found again."""

        def clicked() -> bool:
            try:
                self.driver.find_element(By.CSS_SELECTOR, css).click()
            except StaleElementReferenceException:
                return False
            return True

        self.until(f"a click on {css}", clicked)

    def log_in(self, user: str, password: str) -> None:
        self.open("/auth/login", "username").send_keys(user)
        self.driver.find_element(By.ID, "password").send_keys(password)
        self.driver.find_element(By.ID, "login").click()
        self.shown("instances")

    def log_out(self) -> None:
        self.driver.find_element(By.CSS_SELECTOR, "form.logout button").click()
        self.shown("username")

    def shot(self, what: str) -> Path:
        self.taken += 1
        path = self.shots / f"{self.taken:02d}-{what}.png"
        self.browser.screenshot(path)
        return path
