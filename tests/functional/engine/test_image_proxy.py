"""The compute API's image proxy (/images up to 2.35, their metadata up to 2.38)
over the real image service: tempest's schemas, Nova's statuses and words, and
the image service deciding what each caller sees and changes."""

from __future__ import annotations

from typing import Any

import pytest
import requests
from tempest.lib.api_schema.response.compute.v2_1 import images as images21

from tests.functional.engine.conftest import IMAGE_BYTES, Plane
from tests.functional.engine.networks import check, refused

pytestmark = pytest.mark.functional
PROXY = "2.35"


def glance(plane: Plane, method: str, path: str, user: str = "demo", **kw: Any) -> Any:
    headers = {"X-Auth-Token": plane.api.token(user), **kw.pop("headers", {})}
    response = requests.request(method, f"{plane.api.image_url}/v2/images{path}",
                                headers=headers, timeout=30, **kw)  # fmt: skip
    assert response.status_code < 300, response.text
    return response.json() if response.content else None


def own_image(plane: Plane, name: str, user: str = "demo", **properties: str) -> str:
    """A private image of ``user``'s project with these properties, its bytes uploaded."""
    body = {"name": name, "disk_format": "raw", "container_format": "bare", **properties}
    image_id = str(glance(plane, "POST", "", user, json=body)["id"])
    glance(plane, "PUT", f"/{image_id}/file", user, data=IMAGE_BYTES,
           headers={"Content-Type": "application/octet-stream"})  # fmt: skip
    return image_id


def api(plane: Plane, method: str, path: str, body: Any = None, version: str = PROXY,
        user: str = "demo") -> Any:  # fmt: skip
    return plane.api.call(method, path, body, user=user, version=version)


def test_show_list_and_detail_in_novas_shapes(plane: Plane) -> None:
    image_id = own_image(plane, "shown", auto_disk_config="true", instance_uuid="srv-1",
                         os_distro="debian")  # fmt: skip
    shown = check(images21.get_image, api(plane, "GET", f"/images/{image_id}"))["image"]
    assert (shown["status"], shown["progress"], shown["name"]) == ("ACTIVE", 100, "shown")
    assert shown["metadata"] == {"auto_disk_config": "true", "instance_uuid": "srv-1",
                                 "os_distro": "debian"}  # fmt: skip
    assert shown["OS-EXT-IMG-SIZE:size"] == len(IMAGE_BYTES)
    assert shown["OS-DCF:diskConfig"] == "AUTO"
    assert shown["server"]["id"] == "srv-1"
    alternate = [link for link in shown["links"] if link["rel"] == "alternate"]
    assert alternate == [{"rel": "alternate", "type": "application/vnd.openstack.image",
                          "href": f"{plane.api.image_url}/images/{image_id}"}]  # fmt: skip
    listed = check(images21.list_images, api(plane, "GET", "/images"))["images"]
    assert {image["id"] for image in listed} == {plane.api.image_id, image_id}
    detailed = check(images21.list_images_details, api(plane, "GET", "/images/detail"))
    assert shown in detailed["images"]
    # A queued image (no bytes yet) is SAVING at 25 %, as Nova shows it.
    queued = glance(plane, "POST", "", json={"name": "queued"})["id"]
    saving = api(plane, "GET", f"/images/{queued}").get_json()["image"]
    assert (saving["status"], saving["progress"]) == ("SAVING", 25)


def test_filters_and_paging(plane: Plane) -> None:
    first = own_image(plane, "alpha", image_type="snapshot", instance_uuid="srv-9")
    second = own_image(plane, "beta", os_distro="debian")

    def ids(query: str) -> list[str]:
        body = check(images21.list_images, api(plane, "GET", f"/images{query}"))
        return [image["id"] for image in body["images"]]

    assert ids("?name=alpha") == [first]
    assert ids("?type=snapshot") == [first]
    assert ids("?server=http://compute/v2.1/servers/srv-9") == [first]
    assert ids("?property-os_distro=debian") == [second]
    assert sorted(ids("?status=ACTIVE")) == sorted([plane.api.image_id, first, second])
    assert ids("?changes-since=2999-01-01T00:00:00Z") == []
    assert len(ids("?changes-since=2000-01-01T00:00:00Z")) == 3
    paged = api(plane, "GET", "/images/detail?limit=2").get_json()
    assert len(paged["images"]) == 2
    (link,) = paged["images_links"]
    marker = paged["images"][-1]["id"]
    assert link["rel"] == "next" and f"marker={marker}" in link["href"]
    rest = ids(f"?limit=2&marker={marker}")
    assert len(rest) == 1 and rest[0] not in {image["id"] for image in paged["images"]}
    refused(api(plane, "GET", "/images?limit=-1"), 400,
            "Invalid input for query parameters limit. Value: -1. -1 is less than the "
            "minimum of 0")  # fmt: skip
    assert api(plane, "GET", "/images?changes-since=yesterday").status_code == 400


def test_microversion_range(plane: Plane) -> None:
    path = f"/images/{plane.api.image_id}"
    assert api(plane, "GET", path, version="2.1").status_code == 200
    assert api(plane, "GET", path, version="2.36").status_code == 404
    assert api(plane, "GET", "/images", version="2.36").status_code == 404
    assert api(plane, "GET", f"{path}/metadata", version="2.38").status_code == 200
    assert api(plane, "GET", f"{path}/metadata", version="2.39").status_code == 404


def test_metadata_set_update_replace_and_delete(plane: Plane) -> None:
    image_id = own_image(plane, "meta", os_distro="debian")
    path = f"/images/{image_id}/metadata"
    check(images21.image_metadata, api(plane, "POST", path, {"metadata": {"os_version": "12"}}))
    assert api(plane, "GET", path).get_json() == {
        "metadata": {"os_distro": "debian", "os_version": "12"}}  # fmt: skip
    item = check(images21.image_meta_item, api(plane, "PUT", f"{path}/os_version",
                                               {"meta": {"os_version": "13"}}))  # fmt: skip
    assert item == {"meta": {"os_version": "13"}}
    shown = api(plane, "GET", f"{path}/os_version").get_json()
    assert shown == {"meta": {"os_version": "13"}}
    replaced = api(plane, "PUT", path, {"metadata": {"architecture": "x86_64"}}).get_json()
    assert replaced == {"metadata": {"architecture": "x86_64"}}
    assert api(plane, "GET", path).get_json() == {"metadata": {"architecture": "x86_64"}}
    assert glance(plane, "GET", f"/{image_id}").get("os_distro") is None
    assert api(plane, "DELETE", f"{path}/architecture").status_code == 204
    assert api(plane, "GET", path).get_json() == {"metadata": {}}
    refused(api(plane, "DELETE", f"{path}/architecture"), 404, "Invalid metadata key")
    refused(api(plane, "GET", f"{path}/architecture"), 404, "The resource could not be found.")


def test_metadata_refusals_change_nothing(plane: Plane) -> None:
    image_id = own_image(plane, "kept", os_distro="debian")
    path = f"/images/{image_id}/metadata"
    refused(api(plane, "PUT", f"{path}/os_distro", {"meta": {"other": "x"}}), 400,
            "Request body and URI mismatch")  # fmt: skip
    assert api(plane, "POST", path, {"metadata": {"k": 1}}).status_code == 400
    assert api(plane, "POST", path, {"meta": {"k": "v"}}).status_code == 400
    too_many = {f"k{number}": "v" for number in range(128)}
    refused(api(plane, "POST", path, {"metadata": too_many}), 403,
            "Image metadata limit exceeded")  # fmt: skip
    assert api(plane, "GET", path).get_json() == {"metadata": {"os_distro": "debian"}}
    missing = "/images/00000000-0000-0000-0000-000000000000/metadata"
    refused(api(plane, "GET", missing), 404, "Image not found.")
    refused(api(plane, "POST", missing, {"metadata": {"k": "v"}}), 404, "Image not found.")


def test_the_image_service_decides_who_sees_and_deletes(plane: Plane) -> None:
    private = own_image(plane, "admins-own", user="admin")
    refused(api(plane, "GET", f"/images/{private}"), 404, "Image not found.")
    refused(api(plane, "DELETE", f"/images/{private}"), 404, "Image not found.")
    public = plane.api.image_id  # the admin's public image: seen by demo, not deletable
    refused(api(plane, "DELETE", f"/images/{public}"), 403,
            "You are not allowed to delete the image.")  # fmt: skip
    refused(api(plane, "POST", f"/images/{public}/metadata", {"metadata": {"k": "v"}}), 403,
            f"Not authorized for image {public}.")  # fmt: skip
    assert api(plane, "GET", f"/images/{public}/metadata").get_json() == {"metadata": {}}
    mine = own_image(plane, "mine")
    assert api(plane, "DELETE", f"/images/{mine}").status_code == 204
    refused(api(plane, "GET", f"/images/{mine}"), 404, "Image not found.")
    refused(api(plane, "DELETE", f"/images/{mine}"), 404, "Image not found.")
    refused(api(plane, "DELETE", "/images/not-an-image"), 404, "Image not found.")
    refused(api(plane, "DELETE", "/images/"), 404, "Image not found.")
    assert api(plane, "GET", "/images/").status_code == 200  # the list, as /images


def test_create_image_refuses_bad_names_and_metadata(plane: Plane) -> None:
    plane.add_host("h1")
    server = plane.api.boot("snapped")
    before = api(plane, "GET", "/images").get_json()
    bodies: list[dict[str, Any]] = [
        {"name": "a" * 256},
        {"name": "x", "metadata": {"": ""}},
        {"name": "x", "metadata": {"a" * 256: "b"}},
        {"metadata": {}},
    ]
    for body in bodies:
        response = plane.api.call("POST", f"/servers/{server}/action", {"createImage": body})
        assert response.status_code == 400, (body, response.get_data(True))
    assert api(plane, "GET", "/images").get_json() == before
