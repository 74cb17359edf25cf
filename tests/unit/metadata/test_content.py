"""The content builder: the OpenStack and EC2 trees, their versions, the drive's files."""

from __future__ import annotations

import json

import pytest

from saphira.exception import NotFound
from saphira.metadata import InstanceMetadata, Settings, drive, lookup, versions
from tests.unit.metadata.samples import KEY, PROJECT, USER_DATA, UUID, instance


def _md(**changes: object) -> InstanceMetadata:
    return InstanceMetadata.build(instance(**changes))


def _json(md: InstanceMetadata, path: str) -> dict[str, object]:
    item = lookup(md, path)
    assert item.content_type == "application/json"
    loaded: dict[str, object] = json.loads(item.body)
    return loaded


def test_meta_data_json_carries_what_cloud_init_reads() -> None:
    data = _json(_md(), "/openstack/latest/meta_data.json")
    assert data["uuid"] == UUID
    assert data["name"] == "vm one"
    assert data["hostname"] == "vm-one.novalocal"
    assert data["availability_zone"] == "zone-a"
    assert data["project_id"] == PROJECT
    assert data["meta"] == {"role": "web"}
    assert data["public_keys"] == {"mykey": KEY}
    assert data["keys"] == [{"name": "mykey", "type": "ssh", "data": KEY}]
    assert data["launch_index"] == 0 and "random_seed" in data and "admin_pass" not in data


def test_older_openstack_versions_show_fewer_keys() -> None:
    folsom = _json(_md(), f"/openstack/{versions.FOLSOM}/meta_data.json")
    assert "random_seed" not in folsom and "project_id" not in folsom
    assert "project_id" in _json(_md(), f"/openstack/{versions.LIBERTY}/meta_data.json")


def test_the_version_listings() -> None:
    md = _md()
    root = lookup(md, "/openstack").body.decode().splitlines()
    assert root == [*versions.OPENSTACK, "latest"]
    assert lookup(md, "/").body.decode().splitlines() == [*versions.EC2, "latest"]
    names = lookup(md, "/openstack/latest").body.decode().splitlines()
    assert names == ["meta_data.json", "user_data", "password", "vendor_data.json",
                     "network_data.json", "vendor_data2.json"]  # fmt: skip
    assert lookup(md, f"/openstack/{versions.FOLSOM}/").body.decode().splitlines() == [
        "meta_data.json", "user_data"]  # fmt: skip


def test_user_data_is_served_raw_and_is_404_when_none() -> None:
    assert lookup(_md(), "/openstack/latest/user_data").body == USER_DATA
    assert lookup(_md(), "/latest/user-data").body == USER_DATA
    md = _md(user_data=None)
    for path in ("/openstack/latest/user_data", "/latest/user-data", "/2009-04-04/user-data"):
        with pytest.raises(NotFound):
            lookup(md, path)
    assert "user_data" not in lookup(md, "/openstack/latest").body.decode().splitlines()


@pytest.mark.parametrize(
    "path",
    ["/openstack/2011-01-01/meta_data.json", "/1999-01-01/meta-data/", "/openstack/latest/x",
     "/latest/meta-data/nothing", "/latest/meta-data/hostname/more", "/openstack/latest/a/b"],
)  # fmt: skip
def test_unknown_versions_and_paths_are_404(path: str) -> None:
    with pytest.raises(NotFound):
        lookup(_md(), path)


def test_the_ec2_tree() -> None:
    md = _md()
    meta = lookup(md, "/latest/meta-data/").body.decode().splitlines()
    assert {"instance-id", "hostname", "local-ipv4", "public-keys/", "placement/"} <= set(meta)
    assert lookup(md, "/latest/meta-data/instance-id").body == b"i-0000002a"
    assert lookup(md, "/2009-04-04/meta-data/local-ipv4").body == b"10.0.0.5"
    assert lookup(md, "/latest/meta-data/hostname").body == b"vm-one.novalocal"
    assert lookup(md, "/latest/meta-data/public-keys/").body == b"0=mykey"
    assert lookup(md, "/latest/meta-data/public-keys/0/").body == b"openssh-key"
    assert lookup(md, "/latest/meta-data/public-keys/0/openssh-key").body == KEY.encode()
    assert lookup(md, "/latest/meta-data/placement/availability-zone").body == b"zone-a"
    assert lookup(md, "/latest/meta-data/security-groups").body == b"default\nweb"
    assert lookup(md, "/latest").body.decode().splitlines() == ["meta-data/", "user-data"]


def test_older_ec2_versions_lack_newer_keys() -> None:
    meta = lookup(_md(), "/1.0/meta-data/").body.decode().splitlines()
    assert "placement/" not in meta and "local-hostname" not in meta
    assert "instance-id" in meta


def test_no_key_no_public_keys_and_no_domain_when_empty() -> None:
    md = InstanceMetadata.build(instance(key_name=None, key_data=None), Settings(dhcp_domain=""))
    assert "public-keys/" not in lookup(md, "/latest/meta-data/").body.decode().splitlines()
    data = _json(md, "/openstack/latest/meta_data.json")
    assert "public_keys" not in data and data["hostname"] == "vm-one"


def test_network_data_has_a_link_and_a_network_per_address() -> None:
    data = _json(_md(), "/openstack/latest/network_data.json")
    port = "3f0c9a51-aaaa-bbbb-cccc-000000000001"
    assert data["links"] == [{"id": "tap3f0c9a51-aa", "vif_id": port, "type": "ovs", "mtu": 1450,
                              "ethernet_mac_address": "fa:16:3e:00:00:01"}]  # fmt: skip
    assert data["networks"] == [{"id": "network0", "type": "ipv4_dhcp",
                                 "link": "tap3f0c9a51-aa", "network_id": "net-1"}]  # fmt: skip


def test_the_config_drive_holds_both_trees_as_nova_lays_them_out() -> None:
    md = InstanceMetadata.build(instance(), admin_pass="s3cret")
    found = dict(drive.files(md, skip_ec2=["1.0"]))
    assert "ec2/1.0/meta-data.json" not in found
    assert found["ec2/latest/user-data"] == USER_DATA
    ec2 = json.loads(found["ec2/2009-04-04/meta-data.json"])
    assert ec2["public-keys"] == {"0": {"openssh-key": KEY}}
    assert ec2["placement"] == {"availability-zone": "zone-a"}
    assert found["openstack/latest/user_data"] == USER_DATA
    meta = json.loads(found["openstack/latest/meta_data.json"])
    assert meta["uuid"] == UUID and meta["admin_pass"] == "s3cret"
    for version in (*versions.OPENSTACK, "latest"):
        assert f"openstack/{version}/meta_data.json" in found
    assert "openstack/latest/vendor_data2.json" in found
    assert not any(path.endswith("/password") for path in found)
    assert "openstack/latest/user_data" not in dict(drive.files(_md(user_data=None)))
