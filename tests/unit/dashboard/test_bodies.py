"""A request body over its limit is one plain 413 page, before the CSRF check and any
view: an upload's limit is [dashboard] upload_size_cap, every other form's 1 MiB; a
request without a session is not read at all."""

from __future__ import annotations

from collections.abc import Iterator
from io import BytesIO
from typing import TYPE_CHECKING

import pytest

from saphira import conf as saphira_conf
from saphira.dashboard.app import Dashboard
from saphira.dashboard.bodies import FIELDS_ROOM, FORM_LIMIT
from saphira.dashboard.views import VIEWS
from tests.unit.dashboard.fakes import FakeKeystone, log_in
from tests.wsgi import Client

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

CAP = 100_000


@pytest.fixture
def client() -> Iterator[Client]:
    conf = saphira_conf.load([])
    conf.set_override("upload_size_cap", CAP, "dashboard")
    app = Dashboard(conf, VIEWS)
    app.keystone = FakeKeystone()
    client = Client(app)
    log_in(client)
    yield client
    app.close()


def test_an_upload_over_the_cap_is_refused_before_any_view(client: Client) -> None:
    data = {"csrf_token": "not even checked", "file": (BytesIO(bytes(CAP + FIELDS_ROOM)), "f")}
    answer = client.post("/project/images/create", data=data)
    assert answer.status_code == 413
    assert "more than the dashboard accepts (at most 97.7 KiB)" in answer.text


def test_an_upload_under_the_cap_reaches_the_csrf_check(client: Client) -> None:
    data = {"csrf_token": "forged", "file": (BytesIO(bytes(CAP)), "f")}
    assert client.post("/project/images/create", data=data).status_code == 403  # the token's


def test_any_other_form_is_held_to_a_mebibyte(client: Client) -> None:
    answer = client.post("/project/key_pairs/import", data={"public_key": "x" * FORM_LIMIT})
    assert answer.status_code == 413 and "at most 1.0 MiB" in answer.text


class Watched(BytesIO):
    """A request body that notes whether anything read it."""

    touched = False

    def read(self, size: int | None = -1) -> bytes:
        self.touched = True
        return super().read(size)

    def readinto(self, buffer: WriteableBuffer) -> int:
        self.touched = True
        return super().readinto(buffer)


def test_without_a_session_an_upload_is_refused_unread(client: Client) -> None:
    client.delete_cookie("saphira_session")
    body = Watched(b"--x\r\n" + bytes(CAP))
    answer = client.post("/project/images/create", input_stream=body, content_length=CAP,
                         content_type="multipart/form-data; boundary=x")  # fmt: skip
    assert answer.status_code == 403 and not body.touched
