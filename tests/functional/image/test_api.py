"""The Glance v2 API beyond the CLI: patch, lists, members, actions, import."""

from __future__ import annotations

from pathlib import Path

from tests.functional.cloud import Cloud
from tests.functional.image.helpers import ImageClient, qcow2

PATCH = {"Content-Type": "application/openstack-images-v2.1-json-patch"}


def test_json_patch(cloud: Cloud) -> None:
    client = ImageClient(cloud, "admin")
    image = client.create(name="p", disk_format="raw", kernel_id=None)
    path = f"/v2/images/{image['id']}"
    ops = [
        {"op": "add", "path": "/hw_scsi_model", "value": "virtio-scsi"},
        {"op": "replace", "path": "/name", "value": "q"},
        {"op": "add", "path": "/tags", "value": ["a", "b"]},
    ]
    patched = client("PATCH", path, json=ops, headers=PATCH)
    assert patched.status_code == 200, patched.text
    body = patched.json()
    assert (body["name"], body["hw_scsi_model"], body["tags"]) == ("q", "virtio-scsi", ["a", "b"])
    removed = client(
        "PATCH", path, json=[{"op": "remove", "path": "/hw_scsi_model"}], headers=PATCH
    )
    assert "hw_scsi_model" not in removed.json()
    assert client("PATCH", path, json=ops).status_code == 415
    read_only = [{"op": "replace", "path": "/status", "value": "active"}]
    assert client("PATCH", path, json=read_only, headers=PATCH).status_code == 403
    missing = [{"op": "remove", "path": "/nope"}]
    assert client("PATCH", path, json=missing, headers=PATCH).status_code == 409
    bad = [{"op": "replace", "path": "/disk_format", "value": "floppy"}]
    assert client("PATCH", path, json=bad, headers=PATCH).status_code == 400


def test_json_patch_v2_0_dialect(cloud: Cloud) -> None:
    """The older media type names the operation as the key; its add never replaces."""
    client = ImageClient(cloud, "admin")
    path = f"/v2/images/{client.create(name='p20', disk_format='raw')['id']}"
    v20 = {"Content-Type": "application/openstack-images-v2.0-json-patch"}
    ops = [{"replace": "/name", "value": "q20"}, {"add": "/hw_rng_model", "value": "virtio"}]
    patched = client("PATCH", path, json=ops, headers=v20)
    assert patched.status_code == 200, patched.text
    assert (patched.json()["name"], patched.json()["hw_rng_model"]) == ("q20", "virtio")
    again = [{"add": "/hw_rng_model", "value": "other"}]
    assert client("PATCH", path, json=again, headers=v20).status_code == 409
    for bad in ({"op": "replace", "path": "/name", "value": "x"}, {"add": "/a", "remove": "/b"}):
        assert client("PATCH", path, json=[bad], headers=v20).status_code == 400
    assert client.show(path.rsplit("/", 1)[1])["hw_rng_model"] == "virtio"


def test_no_image_behind_a_trailing_slash(cloud: Cloud) -> None:
    client = ImageClient(cloud, "admin")
    assert client("GET", "/v2/images/").status_code == 404
    assert client("DELETE", "/v2/images/").status_code == 404


def test_an_id_that_is_no_uuid_makes_no_image(cloud: Cloud) -> None:
    """Found by the fuzzer: the id left the body before the schema check, so any text
    became an image's id (Glance answers 400)."""
    client = ImageClient(cloud, "admin")
    for bad in ("\U000cfbd0", "not-a-uuid", 7):
        refused = client("POST", "/v2/images", json={"id": bad, "name": "bad-id"})
        assert refused.status_code == 400, refused.text
    assert client("GET", "/v2/images?name=bad-id").json()["images"] == []
    good = client.create(id="0f5a2b1c-1111-4222-8333-944455556666", name="good-id")
    assert good["id"] == "0f5a2b1c-1111-4222-8333-944455556666"


def test_list_filters_by_size(cloud: Cloud) -> None:
    client = ImageClient(cloud, "admin")
    sizes = (1234, 4321)
    made = [client.create(name=f"sized-{n}", disk_format="raw") for n in sizes]
    for image, size in zip(made, sizes, strict=True):
        assert client.upload(image["id"], b"\1" * size).status_code == 204
    found = client("GET", f"/v2/images?size={sizes[0]}&name=sized-{sizes[0]}").json()["images"]
    assert [image["id"] for image in found] == [made[0]["id"]]
    assert client("GET", "/v2/images?size=big").status_code == 400


def test_list_filters_and_paging(cloud: Cloud) -> None:
    client = ImageClient(cloud, "admin")
    made = [client.create(name=f"page-{i}", disk_format="raw", tags=["paged"]) for i in range(5)]
    ids = {image["id"] for image in made}
    seen: list[str] = []
    url = "/v2/images?tag=paged&limit=2&sort=name:asc"
    while url:
        page = client("GET", url).json()
        seen += [image["id"] for image in page["images"]]
        url = page.get("next", "")
    assert seen == [image["id"] for image in made]
    some = ",".join(sorted(ids)[:2])
    found = client("GET", f"/v2/images?id=in:{some}").json()["images"]
    assert {i["id"] for i in found} == set(some.split(","))
    assert client("GET", "/v2/images?sort_key=bogus").status_code == 400
    assert client("GET", "/v2/images?marker=nope").status_code == 400


def test_member_accepts_shared_image(cloud: Cloud) -> None:
    admin, demo = ImageClient(cloud, "admin"), ImageClient(cloud, "demo")
    image = admin.create(name="to-share", disk_format="raw")
    demo_project = demo("GET", "/v2/images").request.headers  # any call: the token is valid
    assert demo_project is not None
    project = cloud.openstack("project", "show", "demo", "-f", "json")["id"]
    added = admin("POST", f"/v2/images/{image['id']}/members", json={"member": project})
    assert added.json()["status"] == "pending"
    again = admin("POST", f"/v2/images/{image['id']}/members", json={"member": project})
    assert again.status_code == 409
    listed = demo("GET", "/v2/images").json()["images"]
    assert image["id"] not in [i["id"] for i in listed]  # pending: not listed by default
    url = f"/v2/images/{image['id']}/members/{project}"
    assert demo("PUT", url, json={"status": "accepted"}).json()["status"] == "accepted"
    listed = demo("GET", "/v2/images").json()["images"]
    assert image["id"] in [i["id"] for i in listed]
    assert demo("DELETE", f"/v2/images/{image['id']}").status_code == 403


def test_deactivate_and_import(cloud: Cloud, tmp_path: Path) -> None:
    client = ImageClient(cloud, "admin")
    info = client("GET", "/v2/info/import").json()
    assert info["import-methods"]["value"] == ["glance-direct"]
    image = client.create(name="imported", disk_format="qcow2")
    data = qcow2(tmp_path / "d.qcow2").read_bytes()
    staged = client("PUT", f"/v2/images/{image['id']}/stage", data=data,
                    headers={"Content-Type": "application/octet-stream"})  # fmt: skip
    assert staged.status_code == 204, staged.text
    assert client.show(image["id"])["status"] == "uploading"
    body = {"method": {"name": "glance-direct"}}
    assert client("POST", f"/v2/images/{image['id']}/import", json=body).status_code == 202
    assert client.show(image["id"])["status"] == "active"
    action = f"/v2/images/{image['id']}/actions"
    assert client("POST", f"{action}/deactivate").status_code == 204
    assert client.show(image["id"])["status"] == "deactivated"
    demo = ImageClient(cloud, "demo")
    assert demo("GET", f"/v2/images/{image['id']}").status_code == 404
    assert client("POST", f"{action}/reactivate").status_code == 204
    assert client("GET", f"/v2/images/{image['id']}/file").content == data


def test_versions_and_schemas(cloud: Cloud) -> None:
    client = ImageClient(cloud, "admin")
    root = client.http.get(client.base + "/", headers={"X-Auth-Token": ""}, timeout=30)
    assert root.status_code == 300
    assert root.json()["versions"][0]["status"] == "CURRENT"
    schema = client("GET", "/v2/schemas/image").json()
    assert schema["name"] == "image" and "disk_format" in schema["properties"]
    assert client("GET", "/v2/schemas/images").json()["name"] == "images"
