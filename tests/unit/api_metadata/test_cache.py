"""The metadata cache: expiry, its bound, one build per instance in flight."""

from __future__ import annotations

import threading

import pytest

from saphira.api.metadata.cache import TTLCache
from saphira.exception import NotFound


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_an_entry_is_served_until_it_expires() -> None:
    clock = Clock()
    cache: TTLCache[str] = TTLCache(15, 10, clock)
    builds: list[int] = []

    def build() -> str:
        builds.append(1)
        return f"v{len(builds)}"

    assert cache.get("a", build) == "v1"
    clock.now += 14.9
    assert cache.get("a", build) == "v1"
    clock.now += 0.2
    assert cache.get("a", build) == "v2"


def test_the_least_recently_used_goes_first_past_the_bound() -> None:
    cache: TTLCache[str] = TTLCache(15, 2, Clock())
    cache.get("a", lambda: "a")
    cache.get("b", lambda: "b")
    cache.get("a", lambda: "rebuilt")  # a is now the most recent
    cache.get("c", lambda: "c")
    assert len(cache) == 2
    assert cache.get("a", lambda: "rebuilt") == "a"
    assert cache.get("b", lambda: "rebuilt") == "rebuilt"


def test_errors_are_not_cached_and_zero_ttl_caches_nothing() -> None:
    cache: TTLCache[str] = TTLCache(15, 2, Clock())

    def missing() -> str:
        raise NotFound()

    with pytest.raises(NotFound):
        cache.get("a", missing)
    assert cache.get("a", lambda: "found") == "found"
    off: TTLCache[str] = TTLCache(0, 2, Clock())
    off.get("a", lambda: "one")
    assert off.get("a", lambda: "two") == "two" and len(off) == 0


def test_a_slow_build_holds_up_only_its_own_instance() -> None:
    cache: TTLCache[str] = TTLCache(15, 10, Clock())
    started, release = threading.Event(), threading.Event()
    builds: list[str] = []

    def slow() -> str:
        builds.append("slow")
        started.set()
        assert release.wait(30)
        return "slow"

    results: list[str] = []
    leader = threading.Thread(target=lambda: results.append(cache.get("a", slow)))
    follower = threading.Thread(target=lambda: results.append(cache.get("a", slow)))
    leader.start()
    assert started.wait(30)
    follower.start()
    assert cache.get("b", lambda: "fast") == "fast"  # answered while "a" is still building
    release.set()
    leader.join(30)
    follower.join(30)
    assert results == ["slow", "slow"] and builds == ["slow"]
