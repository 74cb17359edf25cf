"""Every file database a test connected is let go when the test ends.

The services a test builds (APIs, conductor, scheduler, placement...) each
open SQLAlchemy engines on the test's SQLite files and keep their pooled
connections until the engine is disposed; a test process that runs a few
hundred clouds in a row otherwise holds thousands of descriptors open. A
disposed engine still works (it connects again), so an engine shared by a
module's tests is only reopened, never broken. In-memory databases live in
their pool and are left alone.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from contextlib import contextmanager

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine


@contextmanager
def disposed_after() -> Iterator[None]:
    seen: weakref.WeakSet[Engine] = weakref.WeakSet()

    def remember(connection: Connection) -> None:
        seen.add(connection.engine)

    sa.event.listen(Engine, "engine_connect", remember)
    try:
        yield
    finally:
        sa.event.remove(Engine, "engine_connect", remember)
        for engine in list(seen):
            database = engine.url.database or ":memory:"
            in_memory = database == ":memory:" or "mode=memory" in str(engine.url)
            if engine.url.get_backend_name() != "sqlite" or not in_memory:
                engine.dispose()
