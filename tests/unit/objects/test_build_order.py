"""The build order: what the user asked for, typed, and intact across the bus."""

from __future__ import annotations

from typing import Any

from saphira.compute.images import build_image_meta, image_meta
from saphira.objects import (
    BuildAttempt,
    BuildImage,
    BuildOrder,
    Flavor,
    NetworkMode,
    NetworkRequest,
    RequestSpec,
    Selection,
)
from saphira.rpc import payload

GLANCE = {
    "id": "img-1", "name": "cirros", "status": "active", "disk_format": "raw",
    "container_format": "bare", "min_disk": 1, "min_ram": 0, "size": 1024,
    "hw_disk_bus": "virtio", "protected": False, "tags": ["a"], "locations": [{"url": "x"}],
}  # fmt: skip


def _order() -> BuildOrder:
    spec = RequestSpec("vm-1", "p1", "u1", Flavor("1", "tiny", 1, 512, 1), image_ref="img-1")
    return BuildOrder(
        spec, BuildImage.of(GLANCE), NetworkMode.LISTED,
        [NetworkRequest("net-1", fixed_ip="10.0.0.5", tag="nic0"), NetworkRequest(port_id="p")],
        "secret", [Selection("h1", "n1", "cn-1", "cell-1", {"rp": {"VCPU": 1}})],
        [BuildAttempt("h0", "n0", "disk on fire", "Traceback...")],
    )  # fmt: skip


def test_an_order_survives_the_bus() -> None:
    order = _order()
    wire: Any = payload.from_primitive(payload.to_primitive(order))
    assert wire == order
    assert wire.network_mode is NetworkMode.LISTED


def test_the_driver_sees_the_image_as_glance_described_it() -> None:
    assert build_image_meta(BuildImage.of(GLANCE)) == image_meta(GLANCE)
    assert build_image_meta(BuildImage(), "img-2") == image_meta({}, "img-2")


def test_requested_networks_in_the_api_bodys_words() -> None:
    assert _order().requested_networks() == [
        {"uuid": "net-1", "fixed_ip": "10.0.0.5", "tag": "nic0"}, {"port": "p"},
    ]  # fmt: skip
    spec = _order().request_spec
    assert BuildOrder(spec).requested_networks() == "auto"
    assert BuildOrder(spec, network_mode=NetworkMode.NONE).requested_networks() == "none"
    assert NetworkRequest.of({"uuid": "n", "port": None}) == NetworkRequest("n")
