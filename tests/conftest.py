"""Hooks for the whole suite: skips must be expected (tests/skips.py); the
databases a test opened are let go when it ends (tests/engines.py); a root
session's temporary directories are its own (tests/basetemp.py), and its
`saphira up --test-image` clouds share one build of the tiny image
(tests/image_cache.py); the modules sharing a fixture are one unit of
xdist's work, sent longest tiers first (tests/schedule.py); the long tier's tests
share one time budget (tests/budget.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests import basetemp, budget, engines, image_cache, schedule, skips


def pytest_configure(config: pytest.Config) -> None:
    skips.register(config)
    basetemp.choose(config)
    image_cache.choose(config)


@pytest.hookimpl(tryfirst=True)  # before xdist's worker reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    schedule.arrange(items)
    budget.count(config, items)


@pytest.fixture
def long_budget(request: pytest.FixtureRequest) -> budget.Budget:
    """This long test's share of the tier's time budget (tests/budget.py)."""
    assert request.node.get_closest_marker(budget.MARK), "long_budget is for tests marked long"
    return budget.share(request.config)


@pytest.fixture(autouse=True)
def _databases_let_go() -> Iterator[None]:
    with engines.disposed_after():
        yield
