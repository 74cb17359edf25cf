"""[DEFAULT] enabled_apis decides whether the metadata (and compute) API is served."""

from __future__ import annotations

from saphira import conf as saphira_conf
from saphira.service import registry


def _served(*apis: str) -> list[str]:
    conf = saphira_conf.load([])
    conf.set_override("enabled_apis", list(apis))
    return [spec.catalog_type for spec in registry.enabled(conf, registry.served())]


def test_the_default_serves_the_metadata_api() -> None:
    conf = saphira_conf.load([])
    served = [spec.catalog_type for spec in registry.enabled(conf, registry.served())]
    assert "metadata" in served and "compute" in served
    assert registry.by_type("metadata").default_port == 8775
    assert "metadata" not in [spec.catalog_type for spec in registry.catalog()]


def test_left_out_apis_are_not_served_and_the_others_are() -> None:
    assert "metadata" not in _served("osapi_compute")
    assert "compute" in _served("osapi_compute")
    only_metadata = _served("metadata")
    assert "compute" not in only_metadata
    assert {"metadata", "identity", "image", "network", "placement"} <= set(only_metadata)
