"""Join tokens end to end in process: ``saphira-manage compute-token create`` on the
controller's configuration, ``POST /compute-join`` on the compute API (no Keystone
token), the node's ``saphira.join.token.redeem``; single use, expiry and forgery."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from saphira import conf as saphira_conf
from saphira.api.compute import build_app
from saphira.clients.transport import Reply, Request
from saphira.db import cells
from saphira.db.api import connect, join_tokens
from saphira.db.api.models import ComputeJoinToken
from saphira.domain.join_token import JoinToken, decode, encode
from saphira.exception import ComputeTokenInvalid, JoinRefused
from saphira.join import token
from saphira.manage.main import main as manage
from tests.wsgi import Client

CONF = """[DEFAULT]
state_path = {state}
my_ip = 10.0.0.2
transport_url = rabbit://openstack:rpw@10.0.0.2:5672/
[keystone_authtoken]
www_authenticate_uri = http://10.0.0.2:5000/v3
auth_url = http://10.0.0.2:5000/v3
username = nova
password = npw
[placement]
username = placement
password = ppw
[neutron]
username = neutron
password = qpw
metadata_proxy_shared_secret = msecret
"""


class AppTransport:
    """The node's HTTP requests sent to the in-process compute app."""

    def __init__(self, client: Client) -> None:
        self.client = client

    def send(self, request: Request) -> Reply:
        reply = self.client.post(request.url.split(":8774", 1)[1], json=request.json,
                                 base_url="http://10.0.0.2:8774")  # fmt: skip
        return Reply(reply.status_code, dict(reply.headers), reply.data)


@pytest.fixture
def controller(tmp_path: Path) -> tuple[Path, Client]:
    path = tmp_path / "saphira.conf"
    path.write_text(CONF.format(state=tmp_path / "state"))
    conf = saphira_conf.load([f"--config-file={path}"], default_config_files=[])
    (tmp_path / "state").mkdir()
    cells.api_db_sync(conf)
    return path, Client(build_app(conf))


def _create(path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    assert manage(["--config-file", str(path), "compute-token", "create", *extra]) == 0
    return capsys.readouterr().out.strip()


def _rows(path: Path) -> list[ComputeJoinToken]:
    conf = saphira_conf.load([f"--config-file={path}"], default_config_files=[])
    with connect.engine_for(connect.api_url(conf)) as engine, Session(engine) as session:
        return list(session.scalars(select(ComputeJoinToken)))


def test_a_token_is_redeemed_once_for_the_nodes_answers(
    controller: tuple[Path, Client], capsys: pytest.CaptureFixture[str]
) -> None:
    path, client = controller
    text = _create(path, capsys)
    parsed = decode(text)
    assert parsed.addresses == ("10.0.0.2:8774",)
    (row,) = _rows(path)
    assert row.secret_hash != parsed.secret and parsed.secret not in row.secret_hash
    answers = token.redeem(AppTransport(client), text)
    assert answers == {
        "controller": "10.0.0.2", "transport_url": "rabbit://openstack:rpw@10.0.0.2:5672/",
        "identity_url": "http://10.0.0.2:5000/v3", "region": "RegionOne",
        "nova_password": "npw", "placement_password": "ppw", "neutron_password": "qpw",
        "metadata_secret": "msecret", "glance_url": "http://10.0.0.2:9292",
        "placement_url": "http://10.0.0.2:8778", "network_url": "http://10.0.0.2:9696",
        "novncproxy_base_url": "http://10.0.0.2:6080/vnc_auto.html",
    }  # fmt: skip
    with pytest.raises(JoinRefused, match="refused the join token: 401"):
        token.redeem(AppTransport(client), text)


def test_expired_and_forged_tokens_are_refused(
    controller: tuple[Path, Client], capsys: pytest.CaptureFixture[str]
) -> None:
    path, client = controller
    good = decode(_create(path, capsys, "--ttl", "1"))
    forged = encode(JoinToken(good.addresses, good.token_id, good.secret[:-1] + "x"))
    refused = client.post("/compute-join", json={"token_id": good.token_id,
                                                 "secret": decode(forged).secret})  # fmt: skip
    assert refused.status_code == 401
    assert refused.json == {"unauthorized": {
        "code": 401, "message": "The join token is invalid, expired or already used."}}  # fmt: skip
    conf = saphira_conf.load([f"--config-file={path}"], default_config_files=[])
    later = dt.datetime.now(dt.UTC).replace(tzinfo=None) + dt.timedelta(seconds=5)
    with (
        connect.session_for("api", connect.api_url(conf), conf) as session,
        pytest.raises(ComputeTokenInvalid),
    ):
        join_tokens.redeem(session, good.token_id, good.secret, "x", now=later)
    assert all(row.used_at is None for row in _rows(path))  # a refusal uses nothing


@pytest.mark.parametrize(
    "body", [{}, {"token_id": "x"}, {"token_id": "x", "secret": "y", "more": 1}, []]
)
def test_bad_bodies_are_400s(controller: tuple[Path, Client], body: Any) -> None:
    assert controller[1].post("/compute-join", json=body).status_code == 400


def test_ttl_is_bounded(
    controller: tuple[Path, Client], capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = controller
    assert manage(["--config-file", str(path), "compute-token", "create", "--ttl", "0"]) == 1
    assert "--ttl must be 1 to 86400 seconds" in capsys.readouterr().err
    assert _rows(path) == []


def test_a_token_that_does_not_decode_is_refused_before_any_request() -> None:
    with pytest.raises(ComputeTokenInvalid):
        decode("not-a-token")


def test_a_controller_without_a_message_bus_refuses_and_keeps_the_token(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "saphira.conf"
    path.write_text(CONF.format(state=tmp_path / "state").replace(
        "rabbit://openstack:rpw@10.0.0.2:5672/", "inproc://"))  # fmt: skip
    conf = saphira_conf.load([f"--config-file={path}"], default_config_files=[])
    (tmp_path / "state").mkdir()
    cells.api_db_sync(conf)
    parsed = decode(_create(path, capsys))
    reply = Client(build_app(conf)).post(
        "/compute-join", json={"token_id": parsed.token_id, "secret": parsed.secret}
    )
    assert reply.status_code == 409 and "message bus" in reply.json["conflictingRequest"]["message"]
    assert [row.used_at for row in _rows(path)] == [None]
