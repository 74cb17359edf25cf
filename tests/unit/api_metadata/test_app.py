"""The metadata API in process: who may ask (signed headers only), what it answers."""

from __future__ import annotations

import dataclasses
import json

import pytest

from saphira.api.metadata.app import MetadataApp, MetadataState
from saphira.api.metadata.cache import TTLCache
from saphira.api.metadata.signature import sign
from saphira.exception import Conflict, InstanceNotFound
from saphira.metadata import InstanceMetadata, Settings
from saphira.metadata.content import password_chunks
from saphira.objects import Instance
from tests.unit.metadata.samples import KEY, PROJECT, USER_DATA, UUID, instance
from tests.wsgi import Client

SECRET = "proxy-secret"
OTHER = "7a7a7a7a-0000-4000-8000-000000000002"


class FakeInstances:
    """Instances by uuid; counts reads so the cache can be seen working."""

    def __init__(self, *found: Instance) -> None:
        self.found = {i.uuid: i for i in found}
        self.reads = 0

    def instance(self, uuid: str) -> Instance:
        self.reads += 1
        if uuid not in self.found:
            raise InstanceNotFound(instance_id=uuid)
        return self.found[uuid]

    def set_password(self, uuid: str, password: str) -> None:
        current = self.found[uuid]
        if any(current.system_metadata.get(f"password_{i}") for i in range(4)):
            raise Conflict("Password already set.")
        sysmeta = {**current.system_metadata, **password_chunks(password)}
        self.found[uuid] = dataclasses.replace(current, system_metadata=sysmeta)


def _client(fake: FakeInstances, secret: str = SECRET) -> Client:
    cache: TTLCache[InstanceMetadata] = TTLCache(15, 100)
    return Client(MetadataApp(MetadataState(fake, secret, Settings(), cache)))


def _signed(uuid: str = UUID, project: str = PROJECT, secret: str = SECRET) -> dict[str, str]:
    return {
        "X-Instance-ID": uuid,
        "X-Tenant-ID": project,
        "X-Instance-ID-Signature": sign(secret, uuid),
        "X-Forwarded-For": "10.0.0.5",
    }


def test_a_signed_request_reads_its_instance() -> None:
    client = _client(FakeInstances(instance()))
    answer = client.get("/openstack/latest/meta_data.json", headers=_signed())
    assert answer.status_code == 200, answer.text
    data = json.loads(answer.data)
    assert data["uuid"] == UUID and data["public_keys"] == {"mykey": KEY}
    assert client.get("/openstack/latest/user_data", headers=_signed()).data == USER_DATA
    ec2 = client.get("/2009-04-04/meta-data/public-keys/0/openssh-key", headers=_signed())
    assert ec2.data == KEY.encode() and ec2.mimetype == "text/plain"


def test_the_root_listings_need_no_instance() -> None:
    client = _client(FakeInstances())
    assert client.get("/").text.splitlines()[-1] == "latest"
    assert client.get("/openstack").text.splitlines()[0] == "2012-08-10"


def test_user_data_absent_is_404() -> None:
    client = _client(FakeInstances(instance(user_data=None)))
    assert client.get("/openstack/latest/user_data", headers=_signed()).status_code == 404
    assert client.get("/latest/user-data", headers=_signed()).status_code == 404


@pytest.mark.parametrize(
    "headers",
    [
        {},  # nothing vouches for anyone: a guest that reached the API directly
        {"X-Forwarded-For": "10.0.0.5"},
        {"X-Instance-ID": UUID, "X-Tenant-ID": PROJECT},
        {**_signed(), "X-Instance-ID-Signature": sign(SECRET, OTHER)},
        {**_signed(), "X-Instance-ID-Signature": "0" * 64},
        {**_signed(), "X-Instance-ID-Signature": sign("guessed", UUID)},
        {**_signed(OTHER), "X-Instance-ID": UUID},
    ],
    ids=["none", "forwarded-for", "unsigned", "other-id-signed", "zeros", "other-key", "forged-id"],
)
def test_missing_or_forged_identity_is_refused(headers: dict[str, str]) -> None:
    fake = FakeInstances(instance(), dataclasses.replace(instance(), uuid=OTHER))
    answer = _client(fake).get("/openstack/latest/meta_data.json", headers=headers)
    assert answer.status_code in (400, 403), answer.text
    if "X-Instance-ID" in headers:
        assert answer.status_code == 403
    assert fake.reads == 0


def test_repeated_identity_headers_are_400() -> None:
    headers = [*_signed().items(), ("X-Instance-ID", OTHER)]
    answer = _client(FakeInstances(instance())).get("/openstack/latest", headers=headers)
    assert answer.status_code == 400 and "Multiple X-Instance-ID" in answer.text


def test_another_projects_instance_is_403() -> None:
    client = _client(FakeInstances(instance()))
    answer = client.get("/openstack/latest/meta_data.json", headers=_signed(project="other"))
    assert answer.status_code == 403
    assert UUID not in answer.text


def test_an_unknown_instance_is_404() -> None:
    answer = _client(FakeInstances()).get("/openstack/latest/meta_data.json", headers=_signed())
    assert answer.status_code == 404


def test_no_secret_refuses_even_a_request_signed_with_the_empty_key() -> None:
    client = _client(FakeInstances(instance()), secret="")
    answer = client.get("/openstack/latest/meta_data.json", headers=_signed(secret=""))
    assert answer.status_code == 403


def test_answers_are_cached_per_instance() -> None:
    fake = FakeInstances(instance())
    client = _client(fake)
    for path in ("/openstack/latest/meta_data.json", "/latest/meta-data/", "/openstack/latest"):
        assert client.get(path, headers=_signed()).status_code == 200
    assert fake.reads == 1


def test_the_password_is_posted_once_and_read_back() -> None:
    fake = FakeInstances(instance())
    client = _client(fake)
    path = "/openstack/latest/password"
    assert client.get(path, headers=_signed()).data == b""
    assert client.post(path, data=b"encrypted", headers=_signed()).status_code == 200
    assert client.get(path, headers=_signed()).data == b"encrypted"
    again = client.post(path, data=b"other", headers=_signed())
    assert again.status_code == 409
    assert client.get(path, headers=_signed()).data == b"encrypted"


def test_a_password_too_large_or_posted_elsewhere_changes_nothing() -> None:
    fake = FakeInstances(instance())
    client = _client(fake)
    big = client.post("/openstack/latest/password", data=b"x" * 1021, headers=_signed())
    assert big.status_code == 400
    assert (
        client.post("/openstack/latest/user_data", data=b"x", headers=_signed()).status_code == 405
    )
    old = client.post("/openstack/2012-08-10/password", data=b"x", headers=_signed())
    assert old.status_code == 405
    assert "password_0" not in fake.found[UUID].system_metadata
