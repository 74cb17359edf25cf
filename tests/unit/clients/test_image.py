"""The image client: streamed downloads, snapshot uploads, the compute API's view."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from saphira import exception
from saphira.clients.fake import FakeTransport
from saphira.clients.image import CallerImages, ImageClient, ImageData
from saphira.clients.transport import Reply, Request, TransportError

IMG = "/v2/images/i1"
ACTIVE = {"id": "i1", "status": "active", "disk_format": "raw", "size": 7,
          "os_hash_algo": "sha512", "os_hash_value": "h", "checksum": "c"}  # fmt: skip


def _client(wire: FakeTransport) -> ImageClient:
    return ImageClient("http://img.test", lambda: "svc", transport=wire)


def test_an_active_image_streams_in_chunks_with_its_hashes() -> None:
    wire = FakeTransport(chunk=3)
    wire.reply("GET", IMG, json=ACTIVE)
    wire.reply("GET", f"{IMG}/file", content=b"abcdefg")
    with _client(wire).open("i1") as stream:
        assert (stream.size, stream.hash_value, stream.checksum) == (7, "h", "c")
        assert list(stream.chunks) == [b"abc", b"def", b"g"]
    assert wire.sent[1].stream and wire.sent[1].headers["X-Auth-Token"] == "svc"


def test_missing_and_unready_images() -> None:
    wire = FakeTransport()
    wire.reply("GET", "/v2/images/gone", status=404, json={})
    wire.reply("GET", IMG, json={**ACTIVE, "status": "queued"})
    with pytest.raises(exception.ImageNotFound):
        _client(wire).open("gone")
    with pytest.raises(exception.ImageUnacceptable, match="its status is queued, not active"):
        _client(wire).open("i1")


def test_a_refused_download_names_the_status_and_body() -> None:
    wire = FakeTransport()
    wire.reply("GET", IMG, json=ACTIVE)
    wire.reply("GET", f"{IMG}/file", status=403, content=b"not yours")
    with pytest.raises(exception.SaphiraError, match="image download of i1 refused: 403 not yours"):
        _client(wire).open("i1")


def test_a_download_that_breaks_off_is_the_services_fault() -> None:
    def broken(request: Request) -> Reply:
        def chunks() -> Iterator[bytes]:
            yield b"ab"
            raise TransportError("reset")

        return Reply(200, chunks=chunks())

    wire = FakeTransport()
    wire.reply("GET", IMG, json=ACTIVE)
    wire.handle("GET", f"{IMG}/file", broken)
    stream = _client(wire).open("i1")
    with pytest.raises(exception.ServiceUnavailable, match="download of image i1 broke off: reset"):
        list(stream.chunks)
    assert wire.closed == 1


def test_an_upload_fixes_the_guessed_formats_then_streams() -> None:
    wire = FakeTransport()
    wire.reply("GET", IMG, json={"id": "i1", "disk_format": "qcow2", "container_format": None})
    wire.reply("PATCH", IMG, json={})
    wire.reply("PUT", f"{IMG}/file", status=204)
    _client(wire).upload("i1", ImageData("raw", "bare", iter([b"ab", b"c"])))
    patch, put = wire.sent[1], wire.sent[2]
    assert patch.headers["Content-Type"] == "application/openstack-images-v2.1-json-patch"
    assert patch.json == [
        {"op": "replace", "path": "/disk_format", "value": "raw"},
        {"op": "add", "path": "/container_format", "value": "bare"},
    ]
    assert put.data == [b"abc"] and put.headers["Content-Type"] == "application/octet-stream"


def test_a_refused_upload_is_an_error() -> None:
    wire = FakeTransport()
    wire.reply("GET", IMG, json={"disk_format": "raw", "container_format": "bare"})
    wire.reply("PUT", f"{IMG}/file", status=413, content=b"quota")
    with pytest.raises(exception.SaphiraError, match="image upload of i1 refused: 413 quota"):
        _client(wire).upload("i1", ImageData("raw", "bare", [b"x"]))
    assert [r.method for r in wire.sent] == ["GET", "PUT"]  # no patch, no retry of a stream


def test_the_compute_api_sees_images_with_the_callers_token() -> None:
    wire = FakeTransport()
    wire.reply("GET", IMG, json=ACTIVE)
    wire.reply("GET", "/v2/images/other", status=404, json={})
    wire.reply("GET", "/v2/images/locked", status=403, content=b"no")
    images = CallerImages("http://img.test/", transport=wire)
    assert images.get("users-token", "i1")["status"] == "active"
    assert wire.sent[0].headers["X-Auth-Token"] == "users-token"
    with pytest.raises(exception.BadRequest, match=r"^Image other could not be found\.$"):
        images.get("users-token", "other")
    with pytest.raises(exception.Forbidden):
        images.get("users-token", "locked")


def test_a_snapshot_the_image_service_refuses() -> None:
    wire = FakeTransport()
    wire.reply("POST", "/v2/images", status=201, json={"id": "new"})
    images = CallerImages("http://img.test", transport=wire)
    assert images.create("t", {"name": "snap"}) == {"id": "new"}
    refusing = FakeTransport()
    refusing.reply("POST", "/v2/images", status=413, content=b"too many")
    with pytest.raises(exception.NotFound, match="refused the snapshot: too many"):
        CallerImages("http://img.test", transport=refusing).create("t", {"name": "snap"})
