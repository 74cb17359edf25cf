"""Image policy is data: a policy.yaml next to saphira.conf changes who may do what.

oslo.policy finds policy.yaml in the directory of the configuration files and
re-reads it when it changes, so the running cloud picks the override up.
"""

from __future__ import annotations

import pytest
import yaml

from tests.functional.cloud import Cloud
from tests.functional.image.helpers import ImageClient

pytestmark = pytest.mark.functional

PATCH = {"Content-Type": "application/openstack-images-v2.1-json-patch"}


def _set_visibility(client: ImageClient, image_id: str, visibility: str) -> int:
    ops = [{"op": "replace", "path": "/visibility", "value": visibility}]
    response = client("PATCH", f"/v2/images/{image_id}", json=ops, headers=PATCH)
    return response.status_code


def test_policy_yaml_override_lets_a_member_publicize(cloud: Cloud) -> None:
    demo, admin = ImageClient(cloud, "demo"), ImageClient(cloud, "admin")
    image = demo.create(name="mine", disk_format="raw")
    refused = demo(
        "PATCH",
        f"/v2/images/{image['id']}",
        json=[{"op": "replace", "path": "/visibility", "value": "public"}],
        headers=PATCH,
    )
    assert refused.status_code == 403
    assert "publicize_image" in refused.text
    assert _set_visibility(demo, image["id"], "community") == 200  # Glance's default: members may

    rules = {"publicize_image": "role:member", "communitize_image": "role:admin"}
    (cloud.state_dir / "policy.yaml").write_text(yaml.safe_dump(rules), encoding="utf-8")

    assert _set_visibility(demo, image["id"], "public") == 200
    assert demo.show(image["id"])["visibility"] == "public"
    other = demo.create(name="other", disk_format="raw")
    assert _set_visibility(demo, other["id"], "community") == 403  # now admins only
    assert _set_visibility(admin, other["id"], "community") == 200
