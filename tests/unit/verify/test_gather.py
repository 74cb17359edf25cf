"""What is read from openstacksdk's resources: faults with their details, agents' leases,
and a server found by name in the caller's project first, then (admins) in any."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from openstack import exceptions as sdk_exceptions

from saphira.verify import gather


def _raw_server(fault: object) -> Any:
    return SimpleNamespace(id="s1", name="web", status="ERROR", compute_host=None,
                           task_state=None, power_state=0, fault=fault)  # fmt: skip


@pytest.mark.parametrize(
    ("fault", "seen"),
    [(None, None), ({"message": "No valid host"}, "No valid host"),
     ({"message": "Build failed", "details": "Binding failed for port p1"},
      "Build failed (Binding failed for port p1)"),
     ({"message": "m", "details": "x" * 1000}, "m (" + "x" * gather.FAULT_DETAIL + ")")],
)  # fmt: skip
def test_a_fault_keeps_its_details(fault: object, seen: str | None) -> None:
    assert gather.server(_raw_server(fault)).fault == seen


def test_an_agents_leases_are_lower_case_macs_by_network() -> None:
    raw = SimpleNamespace(agent_type="DHCP agent", host="h", is_alive=True,
                          is_admin_state_up=True,
                          configuration={"bridge_mappings": {"physnet1": "br"},
                                         "leases": {"n1": ["FA:16:3E:00:00:01"]}})  # fmt: skip
    made = gather.agent(raw)
    assert made.leases == {"n1": frozenset({"fa:16:3e:00:00:01"})} and made.is_dhcp
    assert gather.agent(SimpleNamespace(**{**vars(raw), "configuration": None})).leases == {}


class _Compute:
    def __init__(self, admin: bool) -> None:
        self.admin = admin
        self.asked: list[dict[str, Any]] = []

    def find_server(self, name: str, **kw: Any) -> Any:
        self.asked.append(kw)
        if not kw.get("all_projects"):
            return None
        if not self.admin:
            raise sdk_exceptions.ForbiddenException("all_tenants")
        return SimpleNamespace(id="s2")

    def get_server(self, server_id: str) -> Any:
        return SimpleNamespace(**{**vars(_raw_server(None)), "id": server_id})


def test_an_admin_finds_another_projects_server_by_name() -> None:
    compute = _Compute(admin=True)
    assert gather.Source(SimpleNamespace(compute=compute)).server("web").id == "s2"  # type: ignore[arg-type]
    assert [kw.get("all_projects") for kw in compute.asked] == [None, True]


def test_a_member_gets_not_found_for_a_name_outside_their_project() -> None:
    source = gather.Source(SimpleNamespace(compute=_Compute(admin=False)))  # type: ignore[arg-type]
    with pytest.raises(sdk_exceptions.NotFoundException):
        source.server("web")
