"""Remote consoles through the compute API: Nova's shapes (tempest's schemas),
its refusals, and the token's connection info for admins."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from tempest.lib.api_schema.response.compute.v2_1 import servers as v21
from tempest.lib.api_schema.response.compute.v2_6 import servers as v26
from tempest.lib.api_schema.response.compute.v2_99 import servers as v299

from tests.functional.compute.servers_harness import IMAGE, Harness, check, make
from tests.wsgi import Client, JsonResponse

NOVNC = {"remote_console": {"protocol": "vnc", "type": "novnc"}}


def _v(version: str) -> dict[str, str]:
    return {"OpenStack-API-Version": f"compute {version}"}


@pytest.fixture
def harness(tmp_path: Path) -> Harness:
    return make(tmp_path)


def _server(harness: Harness, *, place: bool = True) -> str:
    body = {"server": {"name": "vm", "imageRef": IMAGE, "flavorRef": "1"}}
    server_id = str(harness.client().post("/v2.1/servers", json=body).json["server"]["id"])
    if place:
        harness.place(server_id)
    return server_id


def _console(client: Client, server_id: str, version: str = "2.6", **body: object) -> JsonResponse:
    data = body or NOVNC
    return client.post(f"/v2.1/servers/{server_id}/remote-consoles", json=data, headers=_v(version))


def _token(url: str) -> str:
    (path,) = parse_qs(urlparse(url).query)["path"]
    assert path.startswith("?token=")
    return path.removeprefix("?token=")


def test_remote_console_url_in_novas_shape(harness: Harness) -> None:
    server_id = _server(harness)
    for version, schema in (("2.6", v26.get_remote_consoles), ("2.99", v299.get_remote_consoles)):
        body = check(schema, _console(harness.client(), server_id, version))
        url = body["remote_console"]["url"]
        assert url.startswith("http://") and "/vnc_auto.html?path=%3Ftoken%3D" in url
    assert harness.recorder.casts[-1][:2] == ("host1", "get_console_endpoint")


def test_admins_read_a_tokens_connection_info_from_2_31(harness: Harness) -> None:
    server_id = _server(harness)
    token = _token(_console(harness.client(), server_id).json["remote_console"]["url"])
    admin = harness.client(admin=True)
    shown = admin.get(f"/v2.1/os-console-auth-tokens/{token}", headers=_v("2.31"))
    assert shown.status_code == 200
    assert shown.json["console"] == {"instance_uuid": server_id, "host": "127.0.0.1",
                                     "port": 5900, "internal_access_path": None}  # fmt: skip
    latest = check(v299.console_auth_tokens, admin.get(
        f"/v2.1/os-console-auth-tokens/{token}", headers=_v("2.99")))  # fmt: skip
    assert latest["console"]["tls_port"] is None
    older = admin.get(f"/v2.1/os-console-auth-tokens/{token}", headers=_v("2.30"))
    assert older.status_code == 401  # only RDP tokens before 2.31, as Nova
    assert admin.get("/v2.1/os-console-auth-tokens/bad" + token).status_code == 404
    member = harness.client().get(f"/v2.1/os-console-auth-tokens/{token}")
    assert member.status_code == 403


def test_the_vnc_action_below_2_6(harness: Harness) -> None:
    server_id = _server(harness)
    url = f"/v2.1/servers/{server_id}/action"
    body = check(v21.get_vnc_console, harness.client().post(
        url, json={"os-getVNCConsole": {"type": "novnc"}}, headers=_v("2.5")))  # fmt: skip
    assert body["console"]["type"] == "novnc" and _token(body["console"]["url"])
    xvp = harness.client().post(url, json={"os-getVNCConsole": {"type": "xvpvnc"}})
    assert xvp.status_code == 400 and "Unavailable console type" in xvp.text
    assert harness.client().post(url, json={"os-getVNCConsole": {}}).status_code == 400
    newer = harness.client().post(
        url, json={"os-getVNCConsole": {"type": "novnc"}}, headers=_v("2.6"))  # fmt: skip
    assert newer.status_code == 404


@pytest.mark.parametrize(
    "console",
    [{"protocol": "spice", "type": "spice-html5"}, {"protocol": "serial", "type": "serial"},
     {"protocol": "vnc", "type": "spice-html5"}],
)  # fmt: skip
def test_console_types_not_served_are_400(harness: Harness, console: dict[str, str]) -> None:
    response = _console(harness.client(), _server(harness), remote_console=console)
    assert response.status_code == 400 and "Unavailable console type" in response.text


@pytest.mark.parametrize(
    "body",
    [{}, {"remote_console": {"protocol": "vnc"}}, {"remote_console": {"type": "novnc"}},
     {"remote_console": {"protocol": "ftp", "type": "novnc"}},
     {"remote_console": {"protocol": "vnc", "type": "novnc", "extra": 1}}],
)  # fmt: skip
def test_bad_bodies_are_400_and_make_no_token(harness: Harness, body: dict[str, object]) -> None:
    server_id = _server(harness)
    response = harness.client().post(f"/v2.1/servers/{server_id}/remote-consoles", json=body,
                                     headers=_v("2.6"))  # fmt: skip
    assert response.status_code == 400
    assert not [cast for cast in harness.recorder.casts if cast[1] == "get_console_endpoint"]


def test_another_projects_server_is_404_and_an_unplaced_one_409(harness: Harness) -> None:
    server_id = _server(harness)
    assert _console(harness.client(project="p2"), server_id).status_code == 404
    assert _console(harness.client(), _server(harness, place=False)).status_code == 409
    assert harness.client().post(f"/v2.1/servers/{server_id}/remote-consoles",
                                 json=NOVNC, headers=_v("2.5")).status_code == 404  # fmt: skip


def _enable_spice_and_serial(harness: Harness) -> None:
    harness.conf.set_override("enabled", True, group="spice")
    harness.conf.set_override("enabled", True, group="serial_console")


@pytest.mark.parametrize(
    ("console", "start"),
    [({"protocol": "spice", "type": "spice-html5"}, "http://"),
     ({"protocol": "serial", "type": "serial"}, "ws://")],
)  # fmt: skip
def test_spice_and_serial_urls_when_enabled(
    harness: Harness, console: dict[str, str], start: str
) -> None:
    _enable_spice_and_serial(harness)
    server_id = _server(harness)
    for version, schema in (("2.6", v26.get_remote_consoles), ("2.99", v299.get_remote_consoles)):
        body = check(schema, _console(harness.client(), server_id, version, remote_console=console))
        assert body["remote_console"] == {**console, "url": body["remote_console"]["url"]}
        url = urlparse(body["remote_console"]["url"])
        assert f"{url.scheme}://" == start and parse_qs(url.query)["token"][0]
    cast = harness.recorder.casts[-1]
    assert cast[:2] == ("host1", "get_console_endpoint")
    assert cast[2]["console_type"] == console["type"]


@pytest.mark.parametrize(
    ("action", "kind", "path"),
    [("os-getSPICEConsole", "spice-html5", "/spice_auto.html"),
     ("os-getSerialConsole", "serial", "/")],
)  # fmt: skip
def test_the_spice_and_serial_actions_below_2_6(
    harness: Harness, action: str, kind: str, path: str
) -> None:
    server_id = _server(harness)
    url = f"/v2.1/servers/{server_id}/action"
    off = harness.client().post(url, json={action: {"type": kind}}, headers=_v("2.5"))
    assert off.status_code == 400 and "Unavailable console type" in off.text  # not enabled
    _enable_spice_and_serial(harness)
    body = check(v21.get_vnc_console, harness.client().post(
        url, json={action: {"type": kind}}, headers=_v("2.5")))  # fmt: skip
    assert body["console"]["type"] == kind
    assert urlparse(body["console"]["url"]).path == path
    for wrong in ({"type": "novnc"}, {}):
        assert harness.client().post(url, json={action: wrong}).status_code == 400
    newer = harness.client().post(url, json={action: {"type": kind}}, headers=_v("2.6"))
    assert newer.status_code == 404
