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


def stays_false(
    what: str,
    check: Callable[[], Any],
    control: Callable[[], Any] | None = None,
    *,
    timeout: float = 20,
    probes: int = 3,
    spacing: float = 1.0,
) -> None:
    """``check`` turns falsy within ``timeout`` and stays so for ``probes`` more looks.

    One lost probe proves nothing (a packet can be lost, a guest slow): what is
    refused must still be refused ``spacing`` seconds later, and again after
    that. ``control``, when given, must then be truthy: something the same path
    still carries (another port, another protocol), so that "refused" is the
    filter's doing and not a dead guest or a broken probe.
    """
    wait_for(f"{what} (first refusal)", lambda: not check(), timeout=timeout, interval=0.5)
    for look in range(1, probes + 1):
        time.sleep(spacing)
        assert not check(), f"{what}: refused once, then let through again at look {look}"
    if control is not None:
        assert control(), f"{what}: the control probe failed too, so the refusal proves nothing"
