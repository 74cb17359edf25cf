"""Configuration: every guide key is accepted, and a bad value names file, section and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from saphira import conf
from saphira.clients.endpoints import image_url, service_url
from saphira.exception import ConfigError

GUIDE_CONF = """
[DEFAULT]
enabled_apis = osapi_compute,metadata
transport_url = rabbit://openstack:RABBIT_PASS@controller:5672/
my_ip = 10.0.0.11
state_path = /srv/saphira
[api_database]
connection = mysql+pymysql://nova:NOVA_DBPASS@controller/nova_api
[database]
connection = mysql+pymysql://nova:NOVA_DBPASS@controller/nova
[api]
auth_strategy = keystone
[keystone_authtoken]
www_authenticate_uri = http://controller:5000/
auth_url = http://controller:5000/
memcached_servers = controller:11211
auth_type = password
project_domain_name = Default
user_domain_name = Default
project_name = service
username = nova
password = NOVA_PASS
[vnc]
enabled = true
server_listen = $my_ip
server_proxyclient_address = $my_ip
novncproxy_base_url = http://controller:6080/vnc_auto.html
[glance]
api_servers = http://controller:9292
[oslo_concurrency]
lock_path = /var/lib/nova/tmp
[placement]
region_name = RegionOne
project_domain_name = Default
project_name = service
auth_type = password
user_domain_name = Default
auth_url = http://controller:5000/v3
username = placement
password = PLACEMENT_PASS
[libvirt]
virt_type = qemu
[scheduler]
discover_hosts_in_cells_interval = 300
[neutron]
auth_url = http://controller:5000
auth_type = password
project_domain_name = default
user_domain_name = default
region_name = RegionOne
project_name = service
username = neutron
password = NEUTRON_PASS
"""


def _write(tmp_path: Path, text: str, name: str = "nova.conf") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_every_install_guide_key_is_honoured(tmp_path: Path) -> None:
    c = conf.load(["--config-file", _write(tmp_path, GUIDE_CONF)])
    assert c.transport_url == "rabbit://openstack:RABBIT_PASS@controller:5672/"
    assert c.my_ip == "10.0.0.11"
    assert c.enabled_apis == ["osapi_compute", "metadata"]
    assert c.state_path == "/srv/saphira"
    assert c.api_database.connection.endswith("/nova_api")
    assert c.database.connection.endswith("/nova")
    assert c.keystone_authtoken.username == "nova"
    assert c.keystone_authtoken.memcached_servers == ["controller:11211"]
    assert c.vnc.server_listen == "10.0.0.11"  # $my_ip interpolation
    assert c.glance.api_servers == ["http://controller:9292"]
    assert c.oslo_concurrency.lock_path == "/var/lib/nova/tmp"
    assert c.placement.username == "placement"
    assert c.libvirt.virt_type == "qemu"
    assert c.scheduler.discover_hosts_in_cells_interval == 300
    assert c.neutron.password == "NEUTRON_PASS"


def test_defaults_derive_from_state_path(tmp_path: Path) -> None:
    c = conf.load(["--config-file", _write(tmp_path, "[DEFAULT]\nstate_path = /x\n")])
    assert c.identity.key_repository == "/x/fernet-keys"
    assert c.oslo_concurrency.lock_path == "/x/tmp"


@pytest.mark.parametrize(
    ("text", "section", "key"),
    [
        ("[DEFAULT]\nport_offset = abc\n", "DEFAULT", "port_offset"),
        ("[libvirt]\nvirt_type = xen\n", "libvirt", "virt_type"),
        (
            "[scheduler]\ndiscover_hosts_in_cells_interval = -5\n",
            "scheduler",
            "discover_hosts_in_cells_interval",
        ),
        ("[DEFAULT]\nmy_ip = not an address!\n", "DEFAULT", "my_ip"),
        ("[identity]\nport = 70000\n", "identity", "port"),
    ],
)
def test_bad_value_names_file_section_and_key(
    tmp_path: Path, text: str, section: str, key: str
) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        conf.load(["--config-file", path])
    message = str(info.value)
    assert message.startswith(f"{path}: [{section}] {key}: ")
    assert "\n" not in message


def test_later_file_overrides_earlier(tmp_path: Path) -> None:
    first = _write(tmp_path, "[libvirt]\nvirt_type = kvm\n", "a.conf")
    second = _write(tmp_path, "[libvirt]\nvirt_type = qemu\n", "b.conf")
    assert conf.load(["--config-file", first, "--config-file", second]).libvirt.virt_type == "qemu"


def test_broken_file_and_missing_file_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"Invalid section"):
        conf.load(["--config-file", _write(tmp_path, "[libvirt\nvirt_type = kvm\n")])
    with pytest.raises(ConfigError, match="not found"):
        conf.load(["--config-file", str(tmp_path / "absent.conf")])


def test_sample_file_is_current() -> None:
    from saphira.conf import sample

    path = Path(__file__).resolve().parents[2] / "etc" / "saphira.conf.sample"
    assert path.read_text() == sample.render()


def test_service_urls_are_local_unless_overridden(tmp_path: Path) -> None:
    text = "[neutron]\nendpoint_override = http://controller:9696/\n"
    c = conf.load(["--config-file", _write(tmp_path, text)])
    assert service_url(c, "neutron", "network") == "http://controller:9696"
    assert service_url(c, "placement", "placement") == "http://127.0.0.1:8778"


def test_own_services_are_reached_at_bind_host_when_it_is_one_address(tmp_path: Path) -> None:
    """A controller bound to its management address (the test bed's) listens on nothing
    else: its compute API reached the image service at 127.0.0.1 and every boot was a 503."""
    c = conf.load(["--config-file", _write(tmp_path, "[DEFAULT]\nbind_host = 10.1.0.1\n")])
    assert service_url(c, "placement", "placement") == "http://10.1.0.1:8778"
    assert image_url(c) == "http://10.1.0.1:9292"
    c = conf.load(["--config-file", _write(tmp_path, "[DEFAULT]\nbind_host = fd00::1\n")])
    assert image_url(c) == "http://[fd00::1]:9292"


def test_the_sample_writer_takes_an_option_for_a_question_not_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from saphira.conf import sample

    monkeypatch.chdir(tmp_path)
    assert sample.main(["--help"]) == 2
    assert list(tmp_path.iterdir()) == []  # no file named --help
    assert "write the sample" in capsys.readouterr().err
