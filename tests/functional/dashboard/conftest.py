"""The dashboard's functional and browser tests: each module on a `saphira up` of its own
(fake driver, 2 s steps: ``world.dashboard_cloud``) prepared with what a walk needs
(``world.prepare``), and demo logged in through the form. A module that needs more of its
cloud (serial consoles) or of its visitor defines its own fixture of the same name."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.functional.cloud import Cloud
from tests.functional.dashboard.world import Visitor, World, dashboard_cloud, prepare


@pytest.fixture(scope="module")
def cloud(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Cloud]:
    with dashboard_cloud(
        tmp_path_factory.mktemp(request.module.__name__.rsplit(".", 1)[1])
    ) as running:
        yield running


@pytest.fixture(scope="module")
def world(cloud: Cloud) -> World:
    return prepare(cloud)


@pytest.fixture
def demo(world: World) -> Visitor:
    visitor = Visitor(world.base)
    assert visitor.login("demo", world.demo_password).status_code == 303
    return visitor
