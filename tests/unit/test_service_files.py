"""State directory, saphira.conf, clouds.yaml and openrc: private, loadable, kept."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest
import yaml

from saphira import conf as saphira_conf
from saphira.service import clientconf, statedir


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_default_state_dir_for_a_user_follows_xdg(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    monkeypatch.setenv("XDG_DATA_HOME", "/x/data")
    assert statedir.default_state_dir() == "/x/data/saphira"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", "/home/u")
    assert statedir.default_state_dir() == "/home/u/.local/share/saphira"
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    assert statedir.default_state_dir() == "/var/lib/saphira"


def test_initial_conf_is_private_loadable_and_written_once(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / "left-by-an-older-start.sqlite").write_text("x")
    (state / "left-by-an-older-start.sqlite").chmod(0o644)
    statedir.ensure_dir(str(state))
    assert _mode(state) == 0o711
    assert _mode(state / "left-by-an-older-start.sqlite") == 0o600
    initial = statedir.InitialConf(str(state), "http://127.0.0.1:5000/", "RegionOne")
    path = statedir.write_initial_conf(initial)
    assert path == str(state / "saphira.conf")
    assert _mode(state / "saphira.conf") == 0o600
    first = (state / "saphira.conf").read_text()
    assert statedir.write_initial_conf(initial) is None  # never overwritten
    assert (state / "saphira.conf").read_text() == first
    conf = saphira_conf.load(["--config-file", path])
    assert conf.state_path == str(state)
    assert conf.keystone_authtoken.username == "nova"
    passwords = {conf.keystone_authtoken.password, conf.placement.password, conf.neutron.password}
    assert len(passwords) == 3 and all(len(p) >= 20 for p in passwords)
    # neutron.conf's [nova] is the compute service user itself
    assert (conf.nova.username, conf.nova.password) == ("nova", conf.keystone_authtoken.password)
    assert conf.placement.auth_url == "http://127.0.0.1:5000/"


def test_clouds_yaml_round_trips_passwords_and_is_private(tmp_path: Path) -> None:
    clouds = [
        clientconf.Cloud("admin", "admin", "s3cret-A", "admin"),
        clientconf.Cloud("demo", "demo", "s3cret-D", "demo"),
    ]
    clientconf.write_client_files(str(tmp_path), clouds, "http://127.0.0.1:5000/v3", "RegionOne")
    path = tmp_path / "clouds.yaml"
    assert _mode(path) == 0o600
    data = yaml.safe_load(path.read_text())["clouds"]
    assert data["admin"]["auth"]["project_name"] == "admin"
    assert data["demo"]["identity_api_version"] == 3
    assert data["demo"]["region_name"] == "RegionOne"
    assert clientconf.read_passwords(str(path)) == {"admin": "s3cret-A", "demo": "s3cret-D"}
    assert clientconf.read_passwords(str(tmp_path / "absent.yaml")) == {}


def test_openrc_exports_what_the_cli_reads(tmp_path: Path) -> None:
    cloud = clientconf.Cloud("admin", "admin", "it's $pecial", "admin")
    clientconf.write_client_files(str(tmp_path), [cloud], "http://127.0.0.1:5000/v3", "R1")
    rc = tmp_path / "admin-openrc"
    assert _mode(rc) == 0o600
    shown = subprocess.run(
        [
            "sh",
            "-c",
            f'. "{rc}" && printf "%s|%s|%s" "$OS_PASSWORD" "$OS_AUTH_URL" "$OS_REGION_NAME"',
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert shown == "it's $pecial|http://127.0.0.1:5000/v3|R1"
