"""``saphira-api-metadata`` serves the metadata API alone, on its own port."""

from __future__ import annotations

from pathlib import Path

import pytest
import requests

from saphira import conf as saphira_conf
from saphira.cmd import api_metadata
from saphira.service.process import ApiService
from tests.sockets import free_port


def test_only_the_metadata_api_listens(tmp_path: Path) -> None:
    port = free_port()
    own = {"bind_host": "127.0.0.1", "metadata_listen_port": port, "state_path": str(tmp_path)}
    conf = saphira_conf.load([], overrides={"DEFAULT": own})
    service = ApiService(conf, only=("metadata",))
    try:
        assert [(spec.catalog_type, p) for spec, _, p in service.runner.urls()] == [
            ("metadata", port)
        ]
        answer = requests.get(f"http://127.0.0.1:{port}/", timeout=30)
        assert answer.status_code == 200 and answer.text.splitlines()[-1] == "latest"
        headers = {"X-Instance-ID": "x", "X-Tenant-ID": "y"}
        url = f"http://127.0.0.1:{port}/openstack/latest/meta_data.json"
        unsigned = requests.get(url, headers=headers, timeout=30)
        assert unsigned.status_code == 403
    finally:
        service.stop()


def test_a_bad_value_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "nova.conf"
    bad.write_text("[api]\nmetadata_cache_expiration = soon\n", encoding="utf-8")
    assert api_metadata.main(["--config-file", str(bad)]) == 2
    assert "metadata_cache_expiration" in capsys.readouterr().err
