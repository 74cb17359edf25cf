"""Acceptance: the real `openstack` CLI against `saphira up` (issue 3)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from tests.functional.cloud import Cloud
from tests.functional.image.helpers import qcow2, store_files


def test_create_show_save_delete(cloud: Cloud, tmp_path: Path) -> None:
    source = qcow2(tmp_path / "disk.qcow2")
    created = cloud.openstack(
        "image", "create", "--file", str(source), "--disk-format", "qcow2",
        "--container-format", "bare", "--property", "hw_disk_bus=virtio", "cli-image",
        "-f", "json",
    )  # fmt: skip
    assert created["status"] == "active"
    shown = cloud.openstack("image", "show", "cli-image", "-f", "json")
    assert shown["id"] == created["id"]
    assert shown["checksum"] == hashlib.md5(source.read_bytes()).hexdigest()
    assert shown["size"] == source.stat().st_size
    assert shown["virtual_size"] == 16 * 1024 * 1024
    assert shown["properties"]["hw_disk_bus"] == "virtio"
    assert shown["properties"]["os_hash_value"] == hashlib.sha512(source.read_bytes()).hexdigest()
    listed = cloud.openstack("image", "list", "-f", "json")
    assert created["id"] in [row["ID"] for row in listed]
    saved = tmp_path / "saved.qcow2"
    cloud.openstack("image", "save", "--file", str(saved), created["id"])
    assert saved.read_bytes() == source.read_bytes()
    cloud.openstack("image", "delete", created["id"])
    missing = cloud.openstack("image", "show", created["id"], check=False)
    assert missing.returncode != 0
    assert created["id"] not in store_files(cloud)


def test_set_unset_public_protected(cloud: Cloud, tmp_path: Path) -> None:
    source = qcow2(tmp_path / "disk.qcow2")
    image = cloud.openstack(
        "image", "create", "--file", str(source), "--disk-format", "qcow2",
        "--container-format", "bare", "--public", "--protected", "pub-image", "-f", "json",
    )  # fmt: skip
    assert image["visibility"] == "public" and image["protected"] is True
    refused = cloud.openstack("image", "delete", image["id"], check=False)
    assert refused.returncode != 0
    cloud.openstack("image", "set", "--property", "os_distro=cirros", "--name", "renamed",
                    "--tag", "gold", image["id"])  # fmt: skip
    shown = cloud.openstack("image", "show", image["id"], "-f", "json")
    assert shown["name"] == "renamed" and shown["properties"]["os_distro"] == "cirros"
    assert shown["tags"] == ["gold"]
    cloud.openstack("image", "unset", "--property", "os_distro", "--tag", "gold", image["id"])
    shown = cloud.openstack("image", "show", image["id"], "-f", "json")
    assert "os_distro" not in shown["properties"] and shown["tags"] == []
    demo_sees = cloud.openstack("image", "list", "--public", "-f", "json", cloud="demo")
    assert image["id"] in [row["ID"] for row in demo_sees]
    cloud.openstack("image", "set", "--unprotected", image["id"])
    cloud.openstack("image", "delete", image["id"])


def test_demo_cannot_publish(cloud: Cloud, tmp_path: Path) -> None:
    result = cloud.openstack(
        "image", "create", "--disk-format", "raw", "--container-format", "bare", "--public",
        "demo-public", cloud="demo", check=False,
    )  # fmt: skip
    assert result.returncode != 0
    assert "publicize_image" in result.stderr


def test_share_with_project(cloud: Cloud, tmp_path: Path) -> None:
    source = qcow2(tmp_path / "disk.qcow2")
    image = cloud.openstack(
        "image", "create", "--file", str(source), "--disk-format", "qcow2",
        "--container-format", "bare", "--shared", "shared-image", "-f", "json",
    )  # fmt: skip
    hidden = cloud.openstack("image", "show", image["id"], cloud="demo", check=False)
    assert hidden.returncode != 0
    cloud.openstack("image", "add", "project", image["id"], "demo")
    members = cloud.openstack("image", "member", "list", image["id"], "-f", "json")
    demo = cloud.openstack("project", "show", "demo", "-f", "json")
    assert [(m["Member ID"], m["Status"]) for m in members] == [(demo["id"], "pending")]
    seen = cloud.openstack("image", "show", image["id"], "-f", "json", cloud="demo")
    assert seen["id"] == image["id"]
    cloud.openstack("image", "delete", image["id"])
