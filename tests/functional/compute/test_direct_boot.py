"""Servers of AMI-style images (kernel_id, ramdisk_id, os_command_line): what the
compute API checks, records and shows. The boot itself is proved on real guests
(tests/integration/libvirt/test_driver_lifecycle.py, and every cloud of the
tiny image)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tempest.lib.api_schema.response.compute.v2_3 import servers as v23

from saphira.domain import direct_boot
from tests.functional.compute.servers_harness import IMAGE, Harness, check, make
from tests.wsgi import Client

KERNEL = "0b4b5d3c-1111-4111-8111-000000000001"
RAMDISK = "0b4b5d3c-2222-4222-8222-000000000002"
AMI = "0b4b5d3c-3333-4333-8333-000000000003"
ELSEWHERE = "0b4b5d3c-4444-4444-8444-000000000004"  # no image the caller sees
H23 = {"OpenStack-API-Version": "compute 2.3"}
RECORDED = {direct_boot.KERNEL_KEY: KERNEL, direct_boot.RAMDISK_KEY: RAMDISK,
            direct_boot.CMDLINE_KEY: "console=ttyS0 quiet"}  # fmt: skip


def _image(image_id: str, disk_format: str, status: str = "active", **props: str) -> dict[str, Any]:
    return {"id": image_id, "status": status, "size": 1024, "min_disk": 0, "min_ram": 0,
            "disk_format": disk_format, **props}  # fmt: skip


@pytest.fixture
def harness(tmp_path: Path) -> Harness:
    made = make(tmp_path)
    made.state.images.images.update({  # type: ignore[union-attr]
        KERNEL: _image(KERNEL, "aki"), RAMDISK: _image(RAMDISK, "ari"),
        AMI: _image(AMI, "qcow2", kernel_id=KERNEL, ramdisk_id=RAMDISK,
                    os_command_line="console=ttyS0 quiet"),
    })  # fmt: skip
    return made


def _create(client: Client, image: str) -> Any:
    body = {"server": {"name": "vm", "imageRef": image, "flavorRef": "1"}}
    return client.post("/v2.1/servers", json=body, headers=H23)


def _sysmeta(harness: Harness) -> dict[str, str]:
    (instance,) = harness.recorder.builds[-1]
    return {k: v for k, v in instance.system_metadata.items() if k in direct_boot.KEYS}


def test_the_server_records_the_images_kernel_ramdisk_and_command_line(harness: Harness) -> None:
    created = _create(harness.client(), AMI)
    assert created.status_code == 202, created.json
    assert _sysmeta(harness) == RECORDED
    server_id = created.json["server"]["id"]
    harness.place(server_id)
    admin = harness.client(admin=True)
    shown = check(v23.get_server, admin.get(f"/v2.1/servers/{server_id}", headers=H23))
    attrs = {k: shown["server"][f"OS-EXT-SRV-ATTR:{k}"] for k in ("kernel_id", "ramdisk_id")}
    assert attrs == {"kernel_id": KERNEL, "ramdisk_id": RAMDISK}


def test_an_image_that_boots_from_its_disk_records_nothing(harness: Harness) -> None:
    assert _create(harness.client(), IMAGE).status_code == 202
    assert _sysmeta(harness) == {}


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"kernel_id": ELSEWHERE}, f"Image {ELSEWHERE} could not be found."),
        ({"kernel_id": KERNEL, "ramdisk_id": ELSEWHERE}, f"Image {ELSEWHERE} could not be found."),
        ({"kernel_id": "queued-kernel"}, "Image queued-kernel is not active."),
    ],
)
def test_a_kernel_or_ramdisk_the_caller_cannot_boot_is_a_400_and_makes_nothing(
    harness: Harness, props: dict[str, str], message: str
) -> None:
    images = harness.state.images.images  # type: ignore[union-attr]
    images["queued-kernel"] = _image("queued-kernel", "aki", status="queued")
    images[AMI] = _image(AMI, "qcow2", **props)
    client = harness.client()
    refused = _create(client, AMI)
    assert (refused.status_code, refused.json) == (
        400, {"badRequest": {"code": 400, "message": message}}
    )  # fmt: skip
    assert harness.recorder.builds == []
    assert client.get("/v2.1/servers").json == {"servers": []}


@pytest.mark.parametrize(("first", "then", "recorded"), [(AMI, IMAGE, {}), (IMAGE, AMI, RECORDED)])
def test_a_rebuild_boots_the_new_image_its_way(
    harness: Harness, first: str, then: str, recorded: dict[str, str]
) -> None:
    client = harness.client()
    server_id = _create(client, first).json["server"]["id"]
    harness.place(server_id)
    url = f"/v2.1/servers/{server_id}/action"
    assert client.post(url, json={"rebuild": {"imageRef": then}}).status_code == 202
    (_, method, args) = harness.recorder.casts[-1]
    assert method == "rebuild_instance"
    sysmeta: dict[str, str] = args["instance"].system_metadata
    assert {k: v for k, v in sysmeta.items() if k in direct_boot.KEYS} == recorded
    assert "security_groups" in sysmeta  # the rest is kept
