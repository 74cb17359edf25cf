"""The RPC servers' worker pool: a shutdown finishes the queued work, then wakes
the idle workers instead of leaving them to notice it at their next poll."""

from __future__ import annotations

import threading

import pytest
from futurist import _thread

from saphira.rpc.server import PromptPool

HANG = 30.0  # seconds: only detects a hang


def test_shutdown_finishes_queued_work_and_wakes_idle_workers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # An idle worker would look for the stop only after an hour: only the wake ends it.
    monkeypatch.setattr(_thread.ThreadWorker, "MAX_IDLE_FOR", 3600)
    pool = PromptPool(max_workers=4)
    release = threading.Event()
    started = [threading.Event() for _ in range(3)]

    def job(index: int) -> int:
        started[index].set()
        assert release.wait(HANG)
        return index

    running = [pool.submit(job, i) for i in range(3)]
    for event in started:
        assert event.wait(HANG)
    queued = pool.submit(lambda: "queued")
    release.set()
    stopper = threading.Thread(target=pool.shutdown, daemon=True)
    stopper.start()
    stopper.join(HANG)
    assert not stopper.is_alive()
    assert [f.result(0) for f in running] == [0, 1, 2]
    assert queued.result(0) == "queued"
    assert all(not worker.is_alive() for worker in pool._workers)
