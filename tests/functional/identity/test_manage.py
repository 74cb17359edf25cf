"""saphira-manage bootstrap, fernet_setup, fernet_rotate, identity_db (on SQLite)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import saphira.conf
from saphira.api.identity import build_app
from saphira.manage.main import main
from tests.functional.identity.conftest import password_auth
from tests.wsgi import Client


def _run(config: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["--config-file", str(config), *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "saphira.conf"
    path.write_text(
        f"[DEFAULT]\nstate_path = {tmp_path / 'state'}\nmy_ip = 192.0.2.10\nport_offset = 7\n"
        "[identity]\npassword_hash_cost = 4\n"
    )
    return path


def _login(config: Path, password: str) -> tuple[int, dict[str, object]]:
    conf = saphira.conf.load([f"--config-file={config}"])
    client = Client(build_app(conf))
    response = client.post("/v3/auth/tokens", json=password_auth("admin", password, "admin"))
    return response.status_code, response.json


def test_bootstrap_from_nothing_and_again(config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _err = _run(config, capsys, "bootstrap", "--bootstrap-password", "pw1")
    assert code == 0 and "admin" in out
    status, body = _login(config, "pw1")
    assert status == 201
    token = body["token"]
    assert isinstance(token, dict)
    urls = {s["type"]: {e["interface"]: e["url"] for e in s["endpoints"]} for s in token["catalog"]}
    assert urls["identity"]["public"] == "http://192.0.2.10:5007/v3"
    assert urls["compute"]["internal"] == "http://192.0.2.10:8781/v2.1"
    assert urls["placement"]["admin"] == "http://192.0.2.10:8785"
    # Again, with a new password and identity URL: updated, nothing duplicated.
    code, _out, _err = _run(
        config,
        capsys,
        "bootstrap",
        "--bootstrap-password",
        "pw2",
        "--bootstrap-public-url",
        "https://keystone.example/v3",
    )
    assert code == 0
    assert _login(config, "pw1")[0] == 401
    status, body = _login(config, "pw2")
    token = body["token"]
    assert isinstance(token, dict)
    identity = [s for s in token["catalog"] if s["type"] == "identity"]
    assert len(identity) == 1 and len(identity[0]["endpoints"]) == 3
    assert {e["url"] for e in identity[0]["endpoints"]} == {"https://keystone.example/v3"}


def test_bootstrap_requires_a_password(
    config: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OS_BOOTSTRAP_PASSWORD", raising=False)
    code, _out, err = _run(config, capsys, "bootstrap")
    assert code == 1 and "bootstrap-password" in err and err[-1] == "\n" and err.count("\n") == 1


def test_fernet_setup_rotate_and_db_commands(
    config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _out, err = _run(config, capsys, "fernet_rotate")
    assert code == 1 and "fernet_setup" in err
    assert _run(config, capsys, "fernet_setup")[0] == 0
    assert "Kept existing" in _run(config, capsys, "fernet_setup")[1]
    keys = tmp_path / "state" / "fernet-keys"
    assert sorted(os.listdir(keys)) == ["0", "1"]
    assert _run(config, capsys, "identity_db", "version")[1].strip() == "None"
    assert _run(config, capsys, "identity_db", "sync")[0] == 0
    assert _run(config, capsys, "identity_db", "sync")[0] == 0
    assert _run(config, capsys, "identity_db", "version")[1].strip() == "identity_0002"
    assert _run(config, capsys, "bootstrap", "--bootstrap-password", "pw")[0] == 0
    client = Client(build_app(saphira.conf.load([f"--config-file={config}"])))
    issued = client.post("/v3/auth/tokens", json=password_auth("admin", "pw", "admin"))
    token = issued.headers["X-Subject-Token"]
    check = {"X-Auth-Token": token, "X-Subject-Token": token}
    assert _run(config, capsys, "fernet_rotate")[0] == 0
    # Issued with the previous primary: still valid; the app re-reads the keys.
    assert client.get("/v3/auth/tokens", headers=check).status_code == 200
    assert _run(config, capsys, "fernet_rotate")[0] == 0
    assert sorted(os.listdir(keys)) == ["0", "2", "3"]  # max_active_keys = 3
    assert client.get("/v3/auth/tokens", headers=check).status_code == 401


def test_bad_database_url_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.conf"
    path.write_text(
        "[identity_database]\nconnection = postgresql+psycopg://u:secret@127.0.0.1:1/k\n"
    )
    code, _out, err = _run(path, capsys, "identity_db", "sync")
    assert code == 1
    assert err.count("\n") == 1 and "secret" not in err and "****" in err
