"""``saphira-dashboard`` serves the dashboard alone; ``saphira-api`` leaves it out."""

from __future__ import annotations

from pathlib import Path

import requests

from saphira import conf as saphira_conf
from saphira.service.process import ApiService, api_specs
from tests.sockets import free_port


def test_only_the_dashboard_listens_and_it_asks_for_a_login(tmp_path: Path) -> None:
    port = free_port()
    conf = saphira_conf.load(
        [],
        overrides={
            "DEFAULT": {"bind_host": "127.0.0.1", "state_path": str(tmp_path)},
            "dashboard": {"port": port},
        },
    )
    service = ApiService(conf, only=("dashboard",))
    try:
        assert [(s.catalog_type, p) for s, _, p in service.runner.urls()] == [("dashboard", port)]
        answer = requests.get(f"http://127.0.0.1:{port}/", timeout=30, allow_redirects=False)
        assert answer.status_code == 303 and answer.headers["Location"] == "/auth/login?next=/"
        form = requests.get(f"http://127.0.0.1:{port}/auth/login", timeout=30)
        assert form.status_code == 200 and 'name="password"' in form.text
    finally:
        service.stop()


def test_saphira_api_serves_every_enabled_api_but_the_dashboard() -> None:
    conf = saphira_conf.load([])
    served = {s.catalog_type for s in api_specs(conf)}
    assert "dashboard" not in served and {"identity", "compute", "metadata"} <= served
    assert [s.catalog_type for s in api_specs(conf, ("dashboard",))] == ["dashboard"]
