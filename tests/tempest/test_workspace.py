"""The tempest.conf the harness writes tells tempest what the cloud really serves."""

from __future__ import annotations

from pathlib import Path

from saphira.api.compute import microversion
from saphira.image import formats
from tests.tempest import provision, workspace


def _conf(tmp_path: Path) -> dict[str, dict[str, str]]:
    done = provision.Provisioned(
        accounts=[provision.Account("a", "pw", "p", ("admin",), admin=True)],
        flavor_ref="1", flavor_ref_alt="2", image_ref="i", image_ref_alt="j",
    )  # fmt: skip
    conf = workspace.tempest_conf("http://127.0.0.1:5000/v3", done, tmp_path)
    return {name: dict(conf[name]) for name in conf.sections()}


def test_microversion_range_is_the_apis(tmp_path: Path) -> None:
    compute = _conf(tmp_path)["compute"]
    assert compute["min_microversion"] == str(microversion.MIN)
    assert compute["max_microversion"] == str(microversion.MAX)


def test_random_byte_images_only_in_formats_without_structure(tmp_path: Path) -> None:
    conf = _conf(tmp_path)
    assert conf["image-feature-enabled"]["image_format_enforcement"] == "false"
    disk_formats = conf["image"]["disk_formats"].split(",")
    assert disk_formats[0] == "raw" and set(disk_formats) <= formats.RAW_LIKE


def test_system_account_is_system_scoped() -> None:
    entry = provision.Account("s", "pw", "", ("reader",), system=True).as_yaml()
    assert entry["system"] == "all" and "domain_name" not in entry and "project_name" not in entry
