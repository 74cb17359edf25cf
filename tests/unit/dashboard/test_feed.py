"""The change feed: one read per interval while listened to, only changed rows pushed."""

from __future__ import annotations

import dataclasses
import queue
import threading

from keystoneauth1 import exceptions as ks

from saphira.dashboard.feed import END, Event, Feed, Snapshot
from saphira.dashboard.feeds import Feeds
from saphira.dashboard.rows import ServerRow


def server(sid: str, status: str = "BUILD", updated: str = "2026-01-01T00:00:01Z") -> ServerRow:
    return ServerRow(
        id=sid, name=sid, image_id="i", image_name="img", flavor="tiny", addresses=(),
        status=status, vm_state=status.lower(), task_state=None, power_state="pending",
        fault="", updated=updated, offers=(),
    )  # fmt: skip


class Source:
    """A fake API: what each read returns, and the cursors it was asked with."""

    def __init__(self, *answers: list[ServerRow] | Exception) -> None:
        self.answers = list(answers)
        self.asked: list[str | None] = []
        self.read = threading.Event()

    def __call__(self, since: str | None) -> list[ServerRow]:
        self.asked.append(since)
        self.read.set()
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, Exception):
            raise answer
        return answer


def test_a_snapshot_reports_new_changed_and_deleted_rows_once() -> None:
    snap = Snapshot()
    a, b = server("a"), server("b")
    assert snap.apply([a, b]) == [a, b]
    assert snap.cursor == "2026-01-01T00:00:01Z"
    assert snap.apply([a]) == []  # the same second read again: nothing new
    active = dataclasses.replace(a, status="ACTIVE", updated="2026-01-01T00:00:03Z")
    gone = dataclasses.replace(b, status="DELETED", updated="2026-01-01T00:00:02Z")
    assert snap.apply([active, gone]) == [active, gone]
    assert snap.cursor == "2026-01-01T00:00:03Z"
    assert gone.deleted
    assert snap.since("2026-01-01T00:00:01Z") == [gone, active]


def test_each_read_asks_for_the_changes_since_the_last_and_pushes_only_changes() -> None:
    a = server("a")
    active = dataclasses.replace(a, status="ACTIVE", updated="2026-01-01T00:00:05Z")
    source = Source([a], [a], [active])
    feed = Feed(source, interval=3600)  # the test reads by hand
    feed.poll_once()
    listener = _listener(feed)
    feed.poll_once()  # a again: nothing to say
    feed.poll_once()
    assert source.asked == [None, "2026-01-01T00:00:01Z", "2026-01-01T00:00:01Z"]
    assert _drain(listener) == [Event("row", active)]


def test_a_new_listener_first_gets_what_changed_after_its_page_was_drawn() -> None:
    old, new = (
        server("old", updated="2026-01-01T00:00:01Z"),
        server("new", updated="2026-01-01T00:00:09Z"),
    )
    feed = Feed(Source([old, new]), interval=3600)
    feed.poll_once()
    listener = feed.listen("2026-01-01T00:00:05Z")
    try:
        assert _drain(listener) == [Event("row", new)]
    finally:
        feed.stop()


def test_a_new_listener_gets_what_changed_within_its_pages_own_second() -> None:
    """The page drew the server BUILD at 00:00:05; it went ACTIVE in that second, before
    the page's stream opened (the bench's Launch saw its row stay BUILD for a minute)."""
    drawn = server("new", updated="2026-01-01T00:00:05Z")
    active = dataclasses.replace(drawn, status="ACTIVE")
    feed = Feed(Source([active]), interval=3600)
    feed.poll_once()
    listener = feed.listen(drawn.updated)
    try:
        assert _drain(listener) == [Event("row", active)]
    finally:
        feed.stop()


def test_an_expired_token_ends_the_feed_and_its_streams() -> None:
    feed = Feed(Source(ks.Unauthorized("expired")), interval=3600)
    listener = _listener(feed)
    feed.poll_once()
    assert _drain(listener) == [END]
    assert feed.ended


def test_other_failures_are_said_in_plain_words_and_the_feed_goes_on() -> None:
    a = server("a")
    feed = Feed(Source(ks.ConnectFailure("refused"), [a]), interval=3600)
    listener = _listener(feed)
    feed.poll_once()
    feed.poll_once()
    first, second = _drain(listener)
    assert first.kind == "problem" and "did not answer" in first.message
    assert second == Event("row", a) and not feed.ended


def test_the_reading_thread_runs_only_while_someone_listens() -> None:
    source = Source([server("a")])
    feed = Feed(source, interval=1.0, linger=1.0)
    listener = feed.listen("")
    assert source.read.wait(10)
    feed.leave(listener)
    thread = feed._thread
    assert thread is not None
    thread.join(10)
    assert not thread.is_alive()  # ended by itself once nobody listened
    reads = len(source.asked)
    source.read.clear()
    again = feed.listen("")  # a new page: a new thread
    assert source.read.wait(10) and len(source.asked) > reads
    feed.stop()
    assert _drain(again)[-1] == END


def _listener(feed: Feed) -> queue.SimpleQueue[Event]:
    """A listener added without starting the reading thread (the test reads by hand)."""
    listener: queue.SimpleQueue[Event] = queue.SimpleQueue()
    feed._listeners.append(listener)
    return listener


def _drain(listener: queue.SimpleQueue[Event]) -> list[Event]:
    found = []
    while True:
        try:
            found.append(listener.get_nowait())
        except queue.Empty:
            return found


def test_a_stopping_process_ends_every_stream_and_opens_no_new_feed() -> None:
    feeds = Feeds(interval=3600)
    feed = feeds.get("session/p1", lambda: Source([server("a")]))
    assert feed is not None
    listener = feed.listen("")
    feeds.close()
    assert _drain(listener)[-1] == END
    assert feeds.get("session/p1", lambda: Source([])) is None


def test_a_session_ending_stops_its_feeds_only() -> None:
    feeds = Feeds(interval=3600)
    mine, other = (feeds.get(k, lambda: Source([])) for k in ("one/p1", "two/p1"))
    assert mine is not None and other is not None
    feeds.drop("one/")
    assert mine.ended and not other.ended
    feeds.close()
