"""The first start writes a random metadata proxy secret, so the metadata API answers."""

from __future__ import annotations

from pathlib import Path

from saphira import conf as saphira_conf
from saphira.service import statedir


def _secret(tmp_path: Path, name: str) -> str:
    (tmp_path / name).mkdir()
    written = statedir.write_initial_conf(
        statedir.InitialConf(str(tmp_path / name), "http://127.0.0.1:5000", "RegionOne")
    )
    assert written is not None
    conf = saphira_conf.load(["--config-file", written])
    return str(conf.neutron.metadata_proxy_shared_secret)


def test_each_cloud_gets_its_own_secret(tmp_path: Path) -> None:
    first, second = _secret(tmp_path, "a"), _secret(tmp_path, "b")
    assert len(first) >= 20 and first != second
