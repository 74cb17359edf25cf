"""The service registry: catalog URLs and listening ports come from one table."""

from __future__ import annotations

from saphira import conf as saphira_conf
from saphira.service import registry


def test_catalog_urls_use_my_ip_the_offset_and_the_usual_paths() -> None:
    conf = saphira_conf.load([], overrides={"DEFAULT": {"my_ip": "10.0.0.11", "port_offset": 3}})
    urls = {spec.catalog_type: registry.public_url(conf, spec) for spec in registry.catalog()}
    assert urls == {
        "identity": "http://10.0.0.11:5003/v3",
        "compute": "http://10.0.0.11:8777/v2.1",
        "image": "http://10.0.0.11:9295",
        "network": "http://10.0.0.11:9699",
        "placement": "http://10.0.0.11:8781",
        "dashboard": "http://10.0.0.11:8083/",
    }


def test_identity_port_follows_its_option_and_ipv6_is_bracketed() -> None:
    conf = saphira_conf.load(
        [], overrides={"DEFAULT": {"my_ip": "fd00::11"}, "identity": {"port": 5050}}
    )
    identity = next(s for s in registry.served() if s.catalog_type == "identity")
    assert registry.listen_port(conf, identity) == 5050
    assert registry.public_url(conf, identity) == "http://[fd00::11]:5050/v3"


def test_the_spice_and_serial_proxies_run_only_when_their_console_type_is_on() -> None:
    conf = saphira_conf.load([], overrides={"DEFAULT": {"port_offset": 2}})
    assert [s.catalog_type for s in registry.proxies(conf=conf)] == ["novnc"]
    assert len(registry.proxies()) == 3  # without conf: every proxy there is
    conf.set_override("enabled", True, group="spice")
    conf.set_override("enabled", True, group="serial_console")
    ports = {s.catalog_type: registry.listen_port(conf, s) for s in registry.proxies(conf=conf)}
    assert ports == {"novnc": 6082, "spice-html5": 6084, "serial": 6085}


def test_the_dashboard_is_served_by_saphira_up_and_its_own_main_not_by_saphira_api() -> None:
    conf = saphira_conf.load([], overrides={"dashboard": {"port": 8090}})
    dashboard = registry.by_type("dashboard")
    assert dashboard.served and registry.listen_port(conf, dashboard) == 8090
    assert dashboard.catalog_type in registry.OWN_MAIN
    assert "dashboard" in {s.catalog_type for s in registry.enabled(conf, registry.served())}


def test_the_dashboard_sizes_its_pool_for_its_event_streams() -> None:
    conf = saphira_conf.load([], overrides={"dashboard": {"threads": 40}})
    dashboard = registry.by_type("dashboard")
    assert dashboard.threads is not None and dashboard.threads(conf) == 40
    assert registry.by_type("compute").threads is None  # the runner's 16
