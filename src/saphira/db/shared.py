"""One engine per database URL per process.

``saphira up`` runs every service in one process; each used to make its own
engine (and pool) for the same file: the identity database once per API that
checks tokens, the cell database once for the conductor, once for the
scheduler and once for its heartbeat. ``engine(url)`` hands every caller in
a process the same engine while any of them still holds it (a weak registry:
an engine nobody holds is collected with its pool, as before).

A caller that disposes a shared engine only drains its pool: SQLAlchemy opens
new connections on the next checkout, so one service stopping does not break
another that still runs. Since one pool now serves what several did, it may
open up to ``OVERFLOW`` connections past its five under a burst, as the
separate pools together could (those past five are closed when returned, so
an idle process keeps five). In-memory SQLite (``sqlite://``) is never shared:
each such engine is its own database. One-shot commands (``saphira-manage``,
the first start's schema sync) keep their own engine from
``connect.engine_for``, which disposes it when they are done.
"""

from __future__ import annotations

import threading
import weakref

from sqlalchemy import exc
from sqlalchemy.engine import Engine, make_url

from saphira.db.engine import make_engine

# Connections past the pool's five: about what the API's, the conductor's and the
# scheduler's own engines (ten each) allowed together on the same database.
OVERFLOW = 40
_lock = threading.Lock()
_engines: weakref.WeakValueDictionary[str, Engine] = weakref.WeakValueDictionary()


def _shareable(url: str) -> bool:
    try:
        parsed = make_url(url)
    except exc.ArgumentError:
        return False  # make_engine says what is wrong with it
    return parsed.get_backend_name() != "sqlite" or parsed.database not in (None, "", ":memory:")


def engine(url: str, *, connect_timeout: int = 10) -> Engine:
    """This process's engine for ``url``, made on first use (``connect_timeout`` then)."""
    if not _shareable(url):
        return make_engine(url, connect_timeout=connect_timeout)
    with _lock:
        found = _engines.get(url)
        if found is None:
            found = make_engine(url, connect_timeout=connect_timeout, max_overflow=OVERFLOW)
            _engines[url] = found
        return found


def urls() -> list[str]:
    """The URLs with a live shared engine (for bench/memory.py and the tests)."""
    with _lock:
        return sorted(_engines.keys())
