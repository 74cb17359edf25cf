"""`saphira verify cloud`: each service, hypervisor and agent up or down, a fix for each
one down."""

from __future__ import annotations

import json

from saphira.verify import cloud, render
from saphira.verify.facts import ComputeService
from saphira.verify.fixes import DOWN_FIXES
from tests.unit.verify.facts import DHCP, HYPERVISOR, L2, with_

COMPUTE = ComputeService("nova-compute", "node1", "up", "enabled")


def test_everything_up() -> None:
    found = cloud.survey([COMPUTE], [HYPERVISOR], [L2, DHCP])
    assert [h.up for h in found] == [True] * 4 and all(h.fix is None for h in found)
    assert render.health_text(found).endswith("4 up, 0 down")


def test_each_one_down_gets_its_fix() -> None:
    found = cloud.survey([with_(COMPUTE, state="down")], [with_(HYPERVISOR, status="disabled")],
                         [with_(L2, alive=False), DHCP])  # fmt: skip
    assert [h.up for h in found] == [False, False, False, True]
    text = render.health_text(found)
    assert "DOWN  agent      Open vSwitch agent on node1: dead" in text
    assert DOWN_FIXES["agent"] in text and DOWN_FIXES["hypervisor"] in text
    assert text.endswith("1 up, 3 down")
    assert [item["up"] for item in json.loads(render.health_json(found))] == [False] * 3 + [True]
