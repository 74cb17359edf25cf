"""The API nudges the agents after every change it made, and only then."""

from __future__ import annotations

from typing import Any

import pytest

from saphira.context import RequestContext
from saphira.netsvc.agent_notifier import AgentNotifier
from tests.functional.network.conftest import Neutron

pytestmark = pytest.mark.functional


class Recorder(AgentNotifier):
    def __init__(self, client: Any = None) -> None:
        self.nudges: list[RequestContext] = []
        self.client = client

    def _client(self) -> Any:
        return self.client

    def changed(self, context: RequestContext) -> None:
        self.nudges.append(context)
        super().changed(context)


class BrokenBus:
    def changed(self, context: RequestContext, network_ids: list[str]) -> None:
        raise ConnectionError("the bus is down")


def test_changes_nudge_reads_and_refusals_do_not(neutron: Neutron) -> None:
    recorder = Recorder(BrokenBus())
    neutron.backend.agents = recorder
    network = neutron.network()
    assert len(recorder.nudges) == 1, "a create that the bus refused must still succeed"
    neutron.ok("GET", f"/v2.0/networks/{network['id']}")
    neutron.ok("GET", "/v2.0/ports")
    neutron.fault("POST", "/v2.0/subnets", 400, json={"subnet": {"cidr": "nonsense"}})
    neutron.fault("DELETE", "/v2.0/networks/" + "0" * 32, 404)
    assert len(recorder.nudges) == 1
    neutron.ok("PUT", f"/v2.0/networks/{network['id']}", json={"network": {"name": "renamed"}})
    neutron.ok("DELETE", f"/v2.0/networks/{network['id']}", 204)
    assert len(recorder.nudges) == 3
    assert {n.project_id for n in recorder.nudges} == {neutron.projects["admin"]}
