"""The config drive: when one is attached, and what the ISO holds under which names."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pycdlib
import pytest

from saphira.objects import Instance
from saphira.virt import configdrive
from saphira.virt.types import ImageMeta
from tests.unit.metadata.samples import KEY, USER_DATA, UUID, instance


def _read(iso: pycdlib.PyCdlib, **where: str) -> bytes:
    out = io.BytesIO()
    iso.get_file_from_iso_fp(out, **where)
    return out.getvalue()


def test_a_drive_is_required_when_asked_forced_or_mandatory() -> None:
    image = ImageMeta("img")
    assert configdrive.required(instance(config_drive="True"), image, force=False)
    assert configdrive.required(instance(), image, force=True)
    mandatory = ImageMeta("img", properties=(("img_config_drive", "mandatory"),))
    assert configdrive.required(instance(), mandatory, force=False)
    optional = ImageMeta("img", properties=(("img_config_drive", "optional"),))
    assert not configdrive.required(instance(), optional, force=False)


def test_the_iso_is_labelled_config_2_and_holds_both_trees(tmp_path: Path) -> None:
    path = tmp_path / configdrive.FILE_NAME
    configdrive.write(path, instance(), configdrive.DriveSettings())
    iso = pycdlib.PyCdlib()
    iso.open(str(path))
    try:
        assert iso.pvd.volume_identifier.decode().strip() == "config-2"
        assert iso.has_rock_ridge() and iso.has_joliet()
        meta = json.loads(_read(iso, rr_path="/openstack/latest/meta_data.json"))
        assert meta["uuid"] == UUID and meta["public_keys"] == {"mykey": KEY}
        assert _read(iso, rr_path="/openstack/latest/user_data") == USER_DATA
        assert _read(iso, joliet_path="/openstack/2012-08-10/user_data") == USER_DATA
        ec2 = json.loads(_read(iso, rr_path="/ec2/2009-04-04/meta-data.json"))
        assert ec2["public-keys"]["0"]["openssh-key"] == KEY
        assert _read(iso, rr_path="/ec2/latest/user-data") == USER_DATA
        children = iso.list_children(rr_path="/openstack")
        names = [child.rock_ridge.name().decode() for child in children if child.rock_ridge]
        assert "latest" in names and "2020-10-14" in names
    finally:
        iso.close()
    assert [p.name for p in tmp_path.iterdir()] == [configdrive.FILE_NAME]


def test_a_failed_write_leaves_no_file(tmp_path: Path) -> None:
    broken: Instance = instance()
    broken.network_info[0].fixed_ips = ["not an address"]
    path = tmp_path / configdrive.FILE_NAME
    with pytest.raises(ValueError):
        configdrive.write(path, broken, configdrive.DriveSettings())
    assert list(tmp_path.iterdir()) == []
