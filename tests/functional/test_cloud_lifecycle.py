"""`saphira up` as a process: first start, files, restart keeps everything, stops, errors."""

from __future__ import annotations

import hashlib
import os
import signal
import socket
import stat
import subprocess
import uuid
from pathlib import Path

import pytest

from tests.functional.clients import sdk, sdk_password, validate
from tests.functional.cloud import Cloud, start_cloud
from tests.functional.process import clean_env

pytestmark = pytest.mark.functional


def _digest(*paths: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in paths}


def _kept_files(state: Path) -> list[Path]:
    return [
        state / "saphira.conf",
        state / "clouds.yaml",
        *sorted((state / "fernet-keys").iterdir()),
    ]


def test_first_start_writes_private_files_and_says_how_to_use_them(cloud: Cloud) -> None:
    state = cloud.state_dir
    assert stat.S_IMODE(os.stat(state).st_mode) == 0o711  # QEMU passes through, nobody lists
    files = [entry for entry in state.iterdir() if entry.is_file()]
    assert {"saphira.conf", "clouds.yaml", "admin-openrc", "nova_api.sqlite"} <= {
        entry.name for entry in files
    }
    for entry in files:
        assert stat.S_IMODE(entry.stat().st_mode) & 0o077 == 0, entry
    printed = "\n".join(cloud.stdout_lines)
    assert f"first start: wrote {state / 'saphira.conf'}" in printed
    assert (
        f"OS_CLIENT_CONFIG_FILE={state / 'clouds.yaml'} openstack --os-cloud admin token issue"
        in printed
    )


def test_openrc_works_with_the_cli(cloud: Cloud) -> None:
    command = (
        f'. "{cloud.state_dir / "demo-openrc"}" && "$OPENSTACK" token issue -f value -c project_id'
    )
    result = subprocess.run(
        ["sh", "-c", command],
        capture_output=True,
        text=True,
        env=clean_env(OPENSTACK=str(Path(cloud.command()[0]).parent / "openstack")),
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == sdk(cloud.clouds_yaml, "demo").current_project_id


def test_saphira_manage_reads_the_generated_conf(cloud: Cloud) -> None:
    manage = Path(cloud.command()[0]).parent / "saphira-manage"
    result = subprocess.run(
        [str(manage), "--config-file", str(cloud.state_dir / "saphira.conf"), "cell_v2",
         "list_cells"],
        capture_output=True, text=True, env=clean_env(), timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert " cell0 " in result.stdout and " cell1 " in result.stdout
    assert str(cloud.state_dir / "nova.sqlite") in result.stdout


def test_busy_port_is_one_line_naming_service_and_port(cloud: Cloud, tmp_path: Path) -> None:
    rival = Cloud(tmp_path / "rival", cloud.port_offset)
    result = subprocess.run(rival.command(), capture_output=True, text=True, env=clean_env(),
                            timeout=120)  # fmt: skip
    assert result.returncode == 1
    errors = [line for line in result.stderr.splitlines() if "error" in line.lower()]
    port = 5000 + cloud.port_offset
    assert errors == [
        f"saphira up: error: identity (keystone) on 127.0.0.1:{port}: cannot listen: "
        "address already in use"
    ]
    assert not (tmp_path / "rival" / "keystone.sqlite").exists()  # failed before any state


def test_restart_keeps_users_projects_tokens_and_secrets(cloud: Cloud) -> None:
    admin = sdk(cloud.clouds_yaml, "admin")
    name, password = f"keep-{uuid.uuid4().hex[:8]}", uuid.uuid4().hex
    project = admin.identity.create_project(name=name, domain_id="default")
    user = admin.identity.create_user(name=name, password=password, domain_id="default")
    admin.identity.assign_project_role_to_user(
        project, user, admin.identity.find_role("member", ignore_missing=False)
    )
    user_token = sdk_password(cloud.url("identity"), name, password, name).auth_token
    admin_token = admin.auth_token
    before = _digest(*_kept_files(cloud.state_dir))

    assert cloud.stop(signal.SIGINT) == 0  # Ctrl-C
    cloud.start()

    assert "first start" not in "\n".join(cloud.stdout_lines)
    assert _digest(*_kept_files(cloud.state_dir)) == before
    assert validate(cloud.url("identity"), admin_token, user_token).status_code == 200
    again = sdk_password(cloud.url("identity"), name, password, name)
    assert again.current_project_id == project.id
    assert sdk(cloud.clouds_yaml, "admin").identity.get_project(project.id).name == name


def test_sigterm_stops_every_service_with_exit_0(tmp_path: Path) -> None:
    own = start_cloud(str(tmp_path))  # its own cloud: tests may run in any order, or apart
    try:
        assert own.stop() == 0
    finally:
        own.kill()
    assert "all services stopped" in own.log()
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", 5000 + own.port_offset), timeout=5).close()
