"""Fixtures for the functional tier: a real `saphira up` per test module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.functional.cloud import Cloud, start_cloud


@pytest.fixture(scope="module")
def cloud(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cloud]:
    """One cloud shared by a module's tests; stopped with SIGTERM, which must exit 0."""
    running = start_cloud(str(tmp_path_factory.mktemp("cloud")))
    yield running
    if running.proc is not None and running.proc.poll() is None:
        assert running.stop() == 0, running.log()
