"""The one way tests wait for something that happens in another process or thread."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def wait_for(
    what: str, check: Callable[[], Any], timeout: float = 30, interval: float = 0.2
) -> Any:
    """Poll ``check`` until it returns something truthy, and return that.

    Fails naming ``what``, because "timed out" alone does not say which of a
    test's many waits was the one that never came true.
    """
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout} s")
        time.sleep(interval)
