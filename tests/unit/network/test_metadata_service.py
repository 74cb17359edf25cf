"""The DHCP agent's metadata parts as its options build them."""

from __future__ import annotations

import os
from pathlib import Path

from saphira import conf as saphira_conf
from saphira.conf import make_conf
from saphira.network.metadata import service
from saphira.network.metadata.resolver import InstancePort
from saphira.service import statedir


class NoPorts:
    def resolve(self, network_id: str, address: str) -> InstancePort | None:
        return None


def test_nothing_runs_unless_service_metadata_proxy_is_on() -> None:
    conf = make_conf()
    conf([], default_config_files=[])
    assert service.build(conf, NoPorts()) is None


def test_the_proxies_never_run_as_root_and_use_the_agents_socket(tmp_path: Path) -> None:
    conf = make_conf()
    conf([], default_config_files=[])
    conf.set_override("state_path", str(tmp_path))
    conf.set_override("service_metadata_proxy", True, group="neutron")
    conf.set_override("metadata_proxy_shared_secret", "s", group="neutron")
    conf.set_override("nova_metadata_port", 18775, group="metadata_agent")
    built = service.build(conf, NoPorts())
    assert built is not None
    settings = built.proxies.settings
    assert settings.socket == tmp_path / "metadata_proxy" == built.agent.socket_path
    assert settings.uid != 0 and settings.gid != 0
    assert (built.agent.api.port, built.agent.api.secret) == (18775, "s")
    assert built.agent.owner == ((settings.uid, settings.gid) if os.geteuid() == 0 else None)


def test_the_metadata_api_is_this_all_in_ones_own_unless_named() -> None:
    conf = make_conf()
    conf([], default_config_files=[])
    conf.set_override("port_offset", 100)
    assert service.metadata_port(conf) == 8875
    conf.set_override("metadata_listen_port", 9000)
    assert service.metadata_port(conf) == 9100
    conf.set_override("nova_metadata_port", 18775, group="metadata_agent")
    assert service.metadata_port(conf) == 18775


def test_saphira_ups_first_start_turns_the_metadata_proxies_on(tmp_path: Path) -> None:
    """As the install guide writes nova.conf's [neutron]: the proxy on, with a secret."""
    written = statedir.write_initial_conf(
        statedir.InitialConf(str(tmp_path), "http://127.0.0.1:5000", "RegionOne")
    )
    assert written is not None
    conf = saphira_conf.load(["--config-file", written])
    assert conf.neutron.service_metadata_proxy is True
    assert conf.neutron.metadata_proxy_shared_secret
