"""``saphira up`` builds the dashboard on its first request, not at start-up."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import pytest
from oslo_config import cfg
from werkzeug.test import Client

import saphira.dashboard as dashboard

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIEnvironment


class Made:
    """Stands in for the dashboard ``_make`` would build."""

    def __init__(self) -> None:
        self.calls = 0
        self.closed = 0

    def __call__(self, environ: WSGIEnvironment, start: StartResponse) -> Iterable[bytes]:
        self.calls += 1
        start("200 OK", [("Content-Type", "text/plain")])
        return [b"page"]

    def close(self) -> None:
        self.closed += 1


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> list[Made]:
    built: list[Made] = []

    def make(conf: cfg.ConfigOpts) -> Made:
        built.append(Made())
        return built[-1]

    monkeypatch.setattr(dashboard, "_make", make)
    return built


def test_the_dashboard_is_made_on_the_first_request_once(made: list[Made]) -> None:
    app = dashboard.build_app(cfg.ConfigOpts())
    assert made == []
    for _ in range(3):
        assert Client(app).get("/").data == b"page"
    assert len(made) == 1 and made[0].calls == 3
    app.close()
    assert made[0].closed == 1


def test_closing_one_never_made_makes_nothing(made: list[Made]) -> None:
    dashboard.build_app(cfg.ConfigOpts()).close()
    assert made == []
