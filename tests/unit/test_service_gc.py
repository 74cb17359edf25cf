"""The long-running processes tune the garbage collector once their services have started."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest
from oslo_config import cfg

from saphira.exception import ServiceError
from saphira.service import memory, process


@pytest.fixture
def collector() -> Iterator[None]:
    """The collector as it was, whatever the test did to it."""
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


def test_tune_gc_freezes_what_exists_and_raises_the_thresholds(collector: None) -> None:
    gc.unfreeze()
    gc.set_threshold(700, 10, 10)
    memory.tune_gc()
    assert gc.get_threshold() == memory.GC_THRESHOLDS
    assert memory.GC_THRESHOLDS[0] > 700
    assert gc.get_freeze_count() > 0


class _Seen:
    """A service that records the collector's state at its first health check, then dies."""

    def __init__(self) -> None:
        self.started: tuple[tuple[int, int, int], int] | None = None
        self.checked: tuple[tuple[int, int, int], int] | None = None

    def start(self, conf: cfg.ConfigOpts) -> _Seen:
        self.started = (gc.get_threshold(), gc.get_freeze_count())
        return self

    def check(self) -> None:
        self.checked = (gc.get_threshold(), gc.get_freeze_count())
        raise ServiceError("done")

    def stop(self) -> None:
        """Nothing to stop."""


def test_a_service_main_tunes_the_collector_after_its_services_start(
    collector: None, tmp_path: Path
) -> None:
    gc.unfreeze()
    gc.set_threshold(700, 10, 10)
    conf_file = tmp_path / "saphira.conf"
    conf_file.write_text(f"[DEFAULT]\nstate_path = {tmp_path}\n")
    seen = _Seen()
    assert process.run("saphira-test", seen.start, ["--config-file", str(conf_file)]) == 1
    assert seen.started == ((700, 10, 10), 0)
    assert seen.checked is not None
    assert seen.checked[0] == memory.GC_THRESHOLDS and seen.checked[1] > 0
