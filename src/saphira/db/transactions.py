"""Reader and writer transactions on one engine, and inserts a unique key may refuse.

Writers on SQLite start with BEGIN IMMEDIATE: a deferred transaction that
read first and writes later fails at once ("database is locked") when
another thread wrote in between, whatever the busy timeout. ``inserted``
lets the database's unique constraints decide races (two ports, one IP)
instead of a read-then-write check that two transactions can both pass.
Server databases run READ COMMITTED (PostgreSQL's default; MariaDB's
REPEATABLE READ would keep showing a loser the snapshot without the winner's
row, so its next try would pick the same taken value again).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import sqlalchemy as sa
from sqlalchemy import exc
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

READ_COMMITTED = "READ COMMITTED"


class Database:
    """Sessions on one engine: ``reader()``, ``writer()`` and ``session()`` transactions.

    This is the one way Saphira opens a session: every service's repositories
    (network, placement, the compute API and its conductor and scheduler,
    through ``saphira.db.directory``) get theirs from a ``Database``.
    """

    def __init__(self, engine: Engine, *, read_committed: bool = True) -> None:
        self.engine = engine
        self.is_sqlite = engine.dialect.name == "sqlite"
        server = not self.is_sqlite and read_committed
        bound = engine.execution_options(isolation_level=READ_COMMITTED) if server else engine
        self._sessions = sessionmaker(bound, expire_on_commit=False)

    @contextmanager
    def reader(self) -> Iterator[Session]:
        with self._sessions() as session:  # closing ends the transaction, objects stay loaded
            yield session

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A unit of work: committed when the block ends, rolled back on any error.

        Unlike ``writer()`` it takes no write lock up front, so a request that
        mostly reads (the compute API's, the conductor's calls) does not queue
        behind every other writer of an SQLite file.
        """
        with self._sessions() as session:
            try:
                yield session
                session.commit()
            except BaseException:
                session.rollback()
                raise

    @contextmanager
    def writer(self) -> Iterator[Session]:
        """``session()`` that takes SQLite's write lock before its first statement."""
        with self.session() as session:
            if self.is_sqlite:
                session.execute(sa.text("BEGIN IMMEDIATE"))
            yield session


def inserted(session: Session, *rows: object) -> bool:
    """Insert ``rows`` in a savepoint; False (and nothing written) if a constraint refused them.

    The rest of the transaction goes on either way, so a caller can try the
    next candidate (another address, another VLAN id) without starting over.
    """
    try:
        with session.begin_nested():
            for row in rows:  # one flush each: rows in the order given, parents first
                session.add(row)
                session.flush()
    except exc.IntegrityError:
        return False
    return True
