"""What a console websocket request must pass before any byte is relayed.

Pure functions of the request's path and headers, as Nova's proxy checks
them: the token from the ``token`` query (noVNC 1.x asks for ``/?token=``)
or cookie; the browser's ``Origin`` against the request's own ``Host`` and
``[console] allowed_origins``; no path starting with ``//``.
"""

from __future__ import annotations

import threading
from http.cookies import CookieError, SimpleCookie
from urllib.parse import parse_qs, urlsplit

from saphira.objects import ConsoleType

# The Origin schemes a browser page of each console type may use.
_SCHEMES = {ConsoleType.NOVNC: ("http", "https"), ConsoleType.SPICE_HTML5: ("http", "https"),
            ConsoleType.SERIAL: ("http", "https", "ws", "wss")}  # fmt: skip


def bad_path(path: str) -> bool:
    """``//host/...`` would make a redirect leave this host (Nova refuses it too)."""
    return path.startswith("//")


def token_of(path: str, cookie: str | None) -> str | None:
    """The ``token`` query parameter, else the ``token`` cookie; None without one."""
    query = parse_qs(urlsplit(path).query)
    if query.get("token"):
        return query["token"][0]
    if not cookie:
        return None
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(cookie)
    except CookieError:
        return None
    found = jar.get("token")
    return found.value if found is not None else None


def _hostname(host_header: str | None) -> str | None:
    if not host_header:
        return None
    return urlsplit(f"//{host_header}").hostname


def origin_allowed(
    origin: str | None, host_header: str | None, allowed: list[str], console_type: ConsoleType
) -> bool:
    """No Origin (not a browser) passes; else its host must be the request's Host, or
    one of ``allowed`` (a host name, or host:port), with a web scheme."""
    if origin is None:
        return True
    parsed = urlsplit(origin)
    if not parsed.hostname or parsed.scheme not in _SCHEMES[console_type]:
        return False
    if parsed.hostname == _hostname(host_header):
        return True
    return parsed.hostname in allowed or parsed.netloc in allowed


class ConnectionCounter:
    """Open connections per token (its hash), refused past ``limit``."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._open: dict[str, int] = {}
        self._lock = threading.Lock()

    def acquire(self, key: str) -> bool:
        with self._lock:
            if self._open.get(key, 0) >= self.limit:
                return False
            self._open[key] = self._open.get(key, 0) + 1
            return True

    def release(self, key: str) -> None:
        with self._lock:
            left = self._open.get(key, 0) - 1
            if left > 0:
                self._open[key] = left
            else:
                self._open.pop(key, None)
