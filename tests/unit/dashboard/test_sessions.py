"""Sessions: server-side, bounded, expiring; the cookie value is only a random id."""

from __future__ import annotations

from saphira.dashboard.sessions import Session, SessionStore
from tests.unit.dashboard.fakes import login


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _store(limit: int = 3, timeout: float = 60) -> tuple[SessionStore, Clock, list[Session]]:
    clock, ended = Clock(), list[Session]()
    store = SessionStore(timeout, limit, clock=clock)
    store.on_end = ended.append
    return store, clock, ended


def test_a_session_has_random_ids_and_is_found_by_its_id_only() -> None:
    store, _, _ = _store()
    one, two = store.create(login("alice")), store.create(login("alice"))
    assert len({one.id, two.id, one.csrf, two.csrf}) == 4
    assert len(one.id) >= 40  # 32 random bytes, URL-safe
    assert store.get(one.id) is one and store.get(two.id) is two
    assert store.get("alice") is None and store.get("") is None and store.get(None) is None


def test_an_unused_session_ends_after_the_timeout_and_use_keeps_it_alive() -> None:
    store, clock, ended = _store(timeout=60)
    kept, idle = store.create(login("alice")), store.create(login("bob"))
    clock.now += 50
    assert store.get(kept.id) is kept
    clock.now += 50  # kept was used 50 s ago, idle 100 s ago
    assert store.get(kept.id) is kept
    assert store.get(idle.id) is None
    assert ended == [idle]


def test_a_session_ends_with_its_token() -> None:
    store, _, ended = _store()
    session = store.create(login("alice", expires_in=-1))
    assert store.get(session.id) is None
    assert ended == [session]


def test_the_table_is_bounded_the_least_recently_used_goes_first() -> None:
    store, _, ended = _store(limit=2)
    first, second = store.create(login("alice")), store.create(login("bob"))
    store.get(first.id)  # second is now the least recently used
    third = store.create(login("alice"))
    assert len(store) == 2
    assert ended == [second]
    assert store.get(second.id) is None
    assert store.get(first.id) is first and store.get(third.id) is third


def test_drop_ends_a_session_once() -> None:
    store, _, ended = _store()
    session = store.create(login("alice"))
    assert store.drop(session.id) is session
    assert store.drop(session.id) is None
    assert store.get(session.id) is None
    assert ended == [session]


def test_a_project_switch_keeps_the_session_and_changes_its_feed_key() -> None:
    store, _, _ = _store()
    session = store.create(login("alice", "p1"))
    before = session.key
    store.replace(session, login("alice", "p2"))
    assert store.get(session.id) is session
    assert session.login.project.id == "p2" and session.key != before
    assert session.key.startswith(f"{session.id}/")
