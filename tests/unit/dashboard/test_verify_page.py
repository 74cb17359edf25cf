"""The instance's Verify page: the same walk as `saphira verify server`, with the user's
token; the failed layer with its fix, and no host probe (the CLI's alone)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from saphira import conf as saphira_conf
from saphira.dashboard.app import Dashboard
from saphira.dashboard.views import VIEWS
from saphira.dashboard.views import verify as verify_view
from saphira.verify.facts import Server
from saphira.verify.fixes import FIXES
from saphira.verify.model import Layer
from tests.unit.dashboard.fakes import FakeKeystone, log_in
from tests.unit.verify.facts import L2, SERVER, with_
from tests.unit.verify.test_run import FakeCloud
from tests.wsgi import Client

PAGE = f"/project/instances/{SERVER.id}/verify"


class _Source(FakeCloud):
    def server(self, name_or_id: str) -> Server:
        assert name_or_id == SERVER.id
        return SERVER


@pytest.fixture
def client(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Client, dict[str, Any]]]:
    made = Dashboard(saphira_conf.load([]), VIEWS)
    made.keystone = FakeKeystone()
    cloud: dict[str, Any] = {"facts": _Source()}
    monkeypatch.setattr(verify_view, "Source", lambda conn: cloud["facts"])
    browser = Client(made)
    log_in(browser)
    yield browser, cloud
    made.close()


def test_every_layer_passes_and_the_probe_is_the_clis(client: tuple[Client, Any]) -> None:
    browser, _ = client
    page = browser.get(PAGE)
    assert page.status_code == 200, page.text
    assert page.text.count('class="layer-passed"') == len(Layer) - 1
    assert 'class="layer-not-checked" data-layer="service"' in page.text
    assert "Every layer checked passed." in page.text


def test_the_failed_layer_and_its_fix(client: tuple[Client, Any]) -> None:
    browser, cloud = client
    cloud["facts"] = _Source(agent_list=[with_(L2, alive=False)])
    page = browser.get(f"{PAGE}?port=80/tcp")
    assert page.status_code == 200, page.text
    assert 'class="layer-failed" data-layer="agents"' in page.text
    assert 'data-layer="state"' not in page.text  # stopped at the failed layer
    assert "not alive" in page.text and FIXES[Layer.AGENTS].split(":")[0] in page.text


def test_a_bad_port_is_a_clear_400(client: tuple[Client, Any]) -> None:
    browser, _ = client
    page = browser.get(f"{PAGE}?port=22/sctp")
    assert page.status_code == 400 and "the protocol must be tcp or udp" in page.text
