"""A cloud whose every API speaks only HTTPS, with a certificate made here.

openstacksdk and the real CLI reach it with the cacert that clouds.yaml
carries; plain HTTP and an unverified certificate are refused.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openstack
import pytest
import requests
import yaml

from saphira.service import registry
from tests.functional.certs import self_signed
from tests.functional.cloud import Cloud, start_cloud
from tests.unprivileged import account

pytestmark = pytest.mark.functional
TIMEOUT = 30


@pytest.fixture(scope="module")
def tls_cloud(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Cloud, Path]]:
    work = tmp_path_factory.mktemp("tls")
    cert, key = self_signed(work)
    if os.geteuid() == 0:  # saphira up drops to the saphira user, which must read the key
        user = account()
        os.chown(key, user.uid, user.gid)
    conf = work / "tls.conf"
    conf.write_text(f"[ssl]\ncert_file = {cert}\nkey_file = {key}\n")
    running = start_cloud(str(work), ["--config-file", str(conf)])
    yield running, cert
    if running.proc is not None and running.proc.poll() is None:
        assert running.stop() == 0, running.log()


def _port(cloud: Cloud, kind: str) -> int:
    return registry.by_type(kind).default_port + cloud.port_offset


def _admin(cloud: Cloud) -> dict[str, Any]:
    entry: dict[str, Any] = yaml.safe_load(cloud.clouds_yaml.read_text())["clouds"]["admin"]
    return entry


def test_clouds_yaml_names_https_and_carries_the_cacert(tls_cloud: tuple[Cloud, Path]) -> None:
    cloud, cert = tls_cloud
    entry = _admin(cloud)
    assert entry["auth"]["auth_url"] == f"https://127.0.0.1:{_port(cloud, 'identity')}/v3"
    assert entry["cacert"] == str(cert)
    openrc = (cloud.state_dir / "admin-openrc").read_text()
    assert f"OS_CACERT={cert}" in openrc and "OS_AUTH_URL=https://" in openrc


def test_openstacksdk_issues_a_token_and_lists_servers(tls_cloud: tuple[Cloud, Path]) -> None:
    cloud, _ = tls_cloud
    entry = _admin(cloud)
    auth = entry["auth"]
    conn = openstack.connect(
        auth_url=auth["auth_url"],
        username=auth["username"],
        password=auth["password"],
        project_name=auth["project_name"],
        user_domain_name="Default",
        project_domain_name="Default",
        region_name="RegionOne",
        cacert=entry["cacert"],
        load_yaml_config=False,
        load_envvars=False,
    )
    assert conn.auth_token
    assert list(conn.compute.servers()) == []
    assert list(conn.image.images()) == []  # --no-test-image
    assert [n.name for n in conn.network.networks()] == []  # --no-provider-network
    catalog = conn.config.get_service_catalog()
    assert catalog is not None
    for service in catalog.catalog:
        for endpoint in service["endpoints"]:
            assert endpoint["url"].startswith("https://"), endpoint


def test_the_cli_works_from_clouds_yaml(tls_cloud: tuple[Cloud, Path]) -> None:
    cloud, _ = tls_cloud
    token = cloud.openstack("token", "issue", "-f", "json")
    assert token["id"]
    assert cloud.openstack("server", "list", "-f", "json") == []


def test_plain_http_and_unverified_tls_are_refused(tls_cloud: tuple[Cloud, Path]) -> None:
    cloud, cert = tls_cloud
    for kind in ("identity", "compute", "image", "network", "placement"):
        port = _port(cloud, kind)
        with pytest.raises(requests.ConnectionError):
            requests.get(f"http://127.0.0.1:{port}/", timeout=TIMEOUT)
        with pytest.raises(requests.exceptions.SSLError):
            requests.get(f"https://127.0.0.1:{port}/", timeout=TIMEOUT, verify=True)
        answer = requests.get(f"https://127.0.0.1:{port}/", timeout=TIMEOUT, verify=str(cert))
        assert answer.status_code in (200, 300), (kind, answer.status_code)


def test_the_dashboard_over_tls_sets_a_secure_session_cookie(tls_cloud: tuple[Cloud, Path]) -> None:
    """Logged in over HTTPS, the session cookie is Secure, HttpOnly and SameSite=Lax."""
    cloud, cert = tls_cloud
    base = f"https://127.0.0.1:{_port(cloud, 'dashboard')}"
    with pytest.raises(requests.ConnectionError):
        requests.get(f"http://127.0.0.1:{_port(cloud, 'dashboard')}/auth/login", timeout=TIMEOUT)
    browser = requests.Session()
    form = browser.get(f"{base}/auth/login", timeout=TIMEOUT, verify=str(cert))
    token = form.text.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
    done = browser.post(f"{base}/auth/login", timeout=TIMEOUT, verify=str(cert),
                        allow_redirects=False, data={
        "csrf_token": token, "username": "admin",
        "password": _admin(cloud)["auth"]["password"]})  # fmt: skip
    assert done.status_code == 303, done.text
    (session,) = [c for c in done.headers["Set-Cookie"].split(", ") if "HttpOnly" in c]
    attributes = {part.strip().split("=", 1)[0].lower() for part in session.split(";")}
    assert {"secure", "httponly", "samesite"} <= attributes, session
    assert "SameSite=Lax" in session
    page = browser.get(f"{base}/project/instances", timeout=TIMEOUT, verify=str(cert))
    assert "/auth/logout" in page.text  # the Secure cookie goes back over HTTPS
