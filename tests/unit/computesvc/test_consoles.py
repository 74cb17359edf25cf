"""saphira.computesvc.consoles: console tokens, kept only as a SHA-256, expiring."""

from __future__ import annotations

import hashlib
import json
from urllib.parse import parse_qs, urlparse

import pytest
import sqlalchemy as sa

from saphira.computesvc import consoles, lookup
from saphira.conductor.databases import Databases
from saphira.conductor.records import Records
from saphira.conf import make_conf
from saphira.context import RequestContext
from saphira.db.cell import console_tokens, models
from saphira.db.cell.models import ConsoleAuthToken
from saphira.domain.table import Action
from saphira.exception import ConsoleTokenInvalid, ConsoleTypeUnavailable
from saphira.objects import ConsoleEndpoint, ConsoleType
from tests.unit.computesvc.conftest import Cloud

BASE = "http://proxy.example:6080/vnc_auto.html"
VNC = ConsoleEndpoint("192.0.2.7", 5901)


def _token(cloud: Cloud, ttl: int = 600, project: str = "p1") -> tuple[str, str]:
    instance = cloud.placed(project=project)
    with cloud.directory.api() as session:
        caller = cloud.caller(session, project)
        found = lookup.locate(caller, instance.uuid)
        token = consoles.authorize(caller, found, ConsoleType.NOVNC, VNC, BASE, ttl)
    return token, instance.uuid


def _hashes(cloud: Cloud) -> list[str]:
    with cloud.directory.cell(cloud.cell_url) as session:
        return list(session.scalars(sa.select(ConsoleAuthToken.token_hash)))


def test_only_the_tokens_sha256_is_stored(cloud: Cloud) -> None:
    token, _ = _token(cloud)
    assert len(token) >= 22  # 128 random bits, URL-safe base64
    assert _hashes(cloud) == [hashlib.sha256(token.encode()).hexdigest()]
    with cloud.directory.cell(cloud.cell_url) as session:
        row = session.scalars(sa.select(ConsoleAuthToken)).one()
        assert token not in {str(value) for value in row.__dict__.values()}


def test_a_valid_token_names_the_guests_console(cloud: Cloud) -> None:
    token, uuid = _token(cloud)
    found = consoles.validate(cloud.directory, token)
    assert (found.host, found.port, found.instance_uuid) == ("192.0.2.7", 5901, uuid)
    assert (found.console_type, found.access_url_base) == ("novnc", BASE)


def test_an_unknown_or_altered_token_is_invalid(cloud: Cloud) -> None:
    token, _ = _token(cloud)
    for wrong in ("", "bad" + token, token[:-1], token.upper()):
        with pytest.raises(ConsoleTokenInvalid):
            consoles.validate(cloud.directory, wrong)


def test_an_expired_token_is_invalid_and_purged(cloud: Cloud) -> None:
    token, _ = _token(cloud, ttl=30)
    live = consoles.validate(cloud.directory, token)
    with pytest.raises(ConsoleTokenInvalid):
        consoles.validate(cloud.directory, token, at=live.expires)
    kept, _ = _token(cloud, ttl=3600)
    assert consoles.purge_expired(cloud.directory, at=live.expires) == 1
    assert _hashes(cloud) == [console_tokens.token_hash(kept)]


def test_deleting_an_instances_tokens_leaves_the_others(cloud: Cloud) -> None:
    first, uuid = _token(cloud)
    second, _ = _token(cloud)
    with cloud.directory.cell(cloud.cell_url) as session:
        assert console_tokens.delete_for_instance(session, uuid) == 1
    with pytest.raises(ConsoleTokenInvalid):
        consoles.validate(cloud.directory, first)
    assert consoles.validate(cloud.directory, second).port == 5901


def test_the_novnc_url_carries_the_token_in_path_as_nova_builds_it() -> None:
    url = consoles.access_url(BASE, "abc-_1", ConsoleType.NOVNC)
    assert url == f"{BASE}?path=%3Ftoken%3Dabc-_1"
    assert parse_qs(urlparse(url).query) == {"path": ["?token=abc-_1"]}
    assert consoles.access_url(BASE, "t", ConsoleType.SERIAL) == f"{BASE}?token=t"


def test_the_base_url_is_the_option_or_the_proxy_at_my_ip() -> None:
    conf = make_conf()
    conf.set_override("my_ip", "192.0.2.10")
    conf.set_override("port_offset", 7)
    assert consoles.base_url(conf, ConsoleType.NOVNC) == "http://192.0.2.10:6087/vnc_auto.html"
    conf.set_override("novncproxy_base_url", BASE, group="vnc")
    assert consoles.base_url(conf, ConsoleType.NOVNC) == BASE
    with pytest.raises(ConsoleTypeUnavailable):
        consoles.base_url(conf, ConsoleType.SERIAL)


def test_spice_and_serial_urls_exist_only_when_enabled_serial_one_is_ws() -> None:
    conf = make_conf()
    conf.set_override("my_ip", "192.0.2.10")
    conf.set_override("port_offset", 7)
    for kind in (ConsoleType.SPICE_HTML5, ConsoleType.SERIAL):
        with pytest.raises(ConsoleTypeUnavailable):
            consoles.base_url(conf, kind)
    conf.set_override("enabled", True, group="spice")
    conf.set_override("enabled", True, group="serial_console")
    spice = consoles.base_url(conf, ConsoleType.SPICE_HTML5)
    assert spice == "http://192.0.2.10:6089/spice_auto.html"
    assert consoles.base_url(conf, ConsoleType.SERIAL) == "ws://192.0.2.10:6090/"
    conf.set_override("base_url", "wss://console.example/", group="serial_console")
    assert consoles.base_url(conf, ConsoleType.SERIAL) == "wss://console.example/"


class _Conductor(Records):
    """The conductor's agent-facing writes, on the test's databases."""

    def __init__(self, cloud: Cloud) -> None:
        conf = make_conf()
        conf([])
        conf.set_override("connection", str(cloud.directory.api_engine.url), "api_database")
        self.dbs = Databases.from_conf(conf)


def test_the_conductor_drops_a_servers_tokens_when_it_is_deleted(cloud: Cloud) -> None:
    token, uuid = _token(cloud)
    kept, _ = _token(cloud)
    conductor = _Conductor(cloud)
    try:
        conductor.instance_destroy(RequestContext(), uuid)
    finally:
        conductor.dbs.dispose()
    with pytest.raises(ConsoleTokenInvalid):
        consoles.validate(cloud.directory, token)
    assert consoles.validate(cloud.directory, kept).port == 5901


def test_the_conductor_drops_a_servers_tokens_when_a_resize_is_confirmed(cloud: Cloud) -> None:
    token, uuid = _token(cloud)
    with cloud.directory.cell(cloud.cell_url) as session:
        table = models.Instance  # straight to RESIZED: the resize itself is not the point
        session.execute(
            sa.update(table)
            .where(table.uuid == uuid)
            .values(
                vm_state="resized",
                task_state="resize_confirming",
                system_metadata=json.dumps({"old_vm_state": "active"}),
            )
        )
    conductor = _Conductor(cloud)
    try:
        conductor.instance_finish(RequestContext(), uuid, Action.CONFIRM_RESIZE)
    finally:
        conductor.dbs.dispose()
    assert cloud.row(uuid).vm_state == "active"
    with pytest.raises(ConsoleTokenInvalid):
        consoles.validate(cloud.directory, token)
