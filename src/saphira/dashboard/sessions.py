"""Server-side sessions: a bounded in-memory table; the cookie holds only a random id.

A session is made at login (a fresh id each time, so a planted cookie never
becomes a logged-in one) and ends at logout, after ``[dashboard]
session_timeout`` seconds unused, when its token expires, or when the table
is full and it is the least recently used. Each holds its own CSRF token.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from saphira.dashboard.cloud import ImageNames
from saphira.dashboard.keystone import Login

COOKIE = "saphira_session"


@dataclass
class Session:
    id: str
    csrf: str
    login: Login
    touched: float
    names: ImageNames = field(default_factory=ImageNames)  # image names this user may see

    @property
    def key(self) -> str:
        """Its feed's key: this session in its current project."""
        return f"{self.id}/{self.login.project.id}"


@dataclass
class SessionStore:
    """Thread-safe; ``clock`` is monotonic seconds (tests pass their own)."""

    timeout: float
    limit: int
    clock: Callable[[], float] = time.monotonic
    wall: Callable[[], float] = time.time
    _table: OrderedDict[str, Session] = field(default_factory=OrderedDict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    on_end: Callable[[Session], None] = lambda session: None

    def create(self, login: Login) -> Session:
        session = Session(secrets.token_urlsafe(32), secrets.token_urlsafe(32), login, self.clock())
        with self._lock:
            self._table[session.id] = session
            evicted = self._evict()
        for old in evicted:
            self.on_end(old)
        return session

    def get(self, session_id: str | None) -> Session | None:
        """The live session of this id, touched; None if unknown or expired."""
        if not session_id:
            return None
        with self._lock:
            session = self._table.get(session_id)
            if session is None:
                return None
            if self._expired(session):
                del self._table[session_id]
                expired: Session | None = session
            else:
                session.touched = self.clock()
                self._table.move_to_end(session_id)
                return session
        if expired is not None:
            self.on_end(expired)
        return None

    def replace(self, session: Session, login: Login) -> None:
        """The session carries on with another token (a project switch)."""
        with self._lock:
            session.login = login

    def drop(self, session_id: str) -> Session | None:
        with self._lock:
            session = self._table.pop(session_id, None)
        if session is not None:
            self.on_end(session)
        return session

    def __len__(self) -> int:
        return len(self._table)

    def _expired(self, session: Session) -> bool:
        idle = self.clock() - session.touched > self.timeout
        return idle or session.login.expires_at <= self.wall()

    def _evict(self) -> list[Session]:
        evicted = []
        while len(self._table) > self.limit:
            _, oldest = self._table.popitem(last=False)
            evicted.append(oldest)
        return evicted
