"""The walk: layers in order, stopping at the first failed; policy's refusals are
"needs admin", not failures; the text and JSON say the failed layer and its fix."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from saphira.verify import render
from saphira.verify.facts import Agent, Hypervisor, Port, Rule
from saphira.verify.fixes import FIXES
from saphira.verify.gather import Hidden
from saphira.verify.model import Layer, Outcome, Wanted
from saphira.verify.reach import Answer
from saphira.verify.run import verify_server
from tests.unit.verify.facts import DHCP, HYPERVISOR, L2, PORT, SERVER, SSH, with_

BOOTED = "[    0.000000] Linux version 6.1.0"


@dataclass
class FakeCloud:
    hypervisor_list: list[Hypervisor] = field(default_factory=lambda: [HYPERVISOR])
    agent_list: list[Agent] = field(default_factory=lambda: [L2, DHCP])
    port_list: list[Port] = field(default_factory=lambda: [PORT])
    log: str = BOOTED
    rule_list: list[Rule] = field(default_factory=lambda: [SSH])
    admin: bool = True
    asked: list[str] = field(default_factory=list)

    def _admin_only(self, what: str) -> None:
        self.asked.append(what)
        if not self.admin:
            raise Hidden(f"policy does not allow {what}")

    def hypervisors(self) -> list[Hypervisor]:
        self._admin_only("hypervisors")
        return self.hypervisor_list

    def agents(self) -> list[Agent]:
        self._admin_only("agents")
        return self.agent_list

    def ports(self, server_id: str) -> list[Port]:
        return self.port_list

    def console(self, server_id: str) -> str:
        return self.log

    def rules(self, port: Port) -> list[Rule]:
        return self.rule_list


def _open(namespace: str, address: str, port: int) -> Answer:
    assert (namespace, address, port) == ("qdhcp-net-1", "10.0.0.5", 22)
    return Answer(True, "connected")


def test_every_layer_passes_in_order() -> None:
    report = verify_server(FakeCloud(), SERVER, Wanted(22, "tcp"), _open)
    assert [r.layer for r in report.results] == list(Layer)
    assert {r.outcome for r in report.results} == {Outcome.PASSED}
    assert report.exit_status == 0 and report.failed is None


def test_it_stops_at_the_first_failed_layer_and_gives_its_fix() -> None:
    cloud = FakeCloud(agent_list=[with_(L2, alive=False), DHCP], log="")
    report = verify_server(cloud, SERVER, Wanted(22, "tcp"), _open)
    assert [r.layer for r in report.results] == [Layer.HYPERVISOR, Layer.AGENTS]
    assert report.failed is not None and report.failed.layer is Layer.AGENTS
    assert report.exit_status == 1
    text = render.report_text(report)
    assert "failed layer: agents" in text and FIXES[Layer.AGENTS] in text
    data = json.loads(render.report_json(report))
    assert data["failed"] == "agents" and data["fix"] == FIXES[Layer.AGENTS]
    assert [layer["outcome"] for layer in data["layers"]] == ["passed", "failed"]


def test_a_guest_that_did_not_boot_is_named_before_its_missing_lease() -> None:
    cloud = FakeCloud(log="SeaBIOS\nBooting from Hard Disk...",
                      agent_list=[L2, with_(DHCP, leases={"net-1": frozenset()})])  # fmt: skip
    report = verify_server(cloud, SERVER, Wanted(22, "tcp"), _open)
    assert report.failed is not None and report.failed.layer is Layer.CONSOLE


def test_a_member_gets_the_layers_policy_lets_them_read() -> None:
    member_view = with_(SERVER, host=None)
    hidden_port = with_(PORT, host_id=None, vif_type=None)
    cloud = FakeCloud(admin=False, port_list=[hidden_port])
    report = verify_server(cloud, member_view, Wanted(22, "tcp"), _open)
    outcomes = {r.layer: r.outcome for r in report.results}
    needs_admin = {Layer.HYPERVISOR, Layer.AGENTS, Layer.LEASE, Layer.SERVICE}
    assert {k for k, v in outcomes.items() if v is Outcome.NEEDS_ADMIN} == needs_admin
    assert {k for k, v in outcomes.items() if v is Outcome.PASSED} == set(Layer) - needs_admin
    assert report.exit_status == 0
    assert "needs admin" in render.report_text(report)


def test_a_member_still_sees_their_closed_security_group() -> None:
    cloud = FakeCloud(admin=False, rule_list=[with_(SSH, port_min=80, port_max=80)])
    report = verify_server(cloud, with_(SERVER, host=None), Wanted(22, "tcp"), _open)
    assert report.failed is not None and report.failed.layer is Layer.SECURITY_GROUP


def test_without_a_probe_the_service_is_not_checked_and_says_why() -> None:
    report = verify_server(FakeCloud(), SERVER, Wanted(22, "tcp"), None)
    assert report.results[-1].outcome is Outcome.NOT_CHECKED
    assert "saphira verify server" in report.results[-1].seen and report.exit_status == 0


def test_a_probe_that_cannot_run_here_is_not_a_failure() -> None:
    def elsewhere(namespace: str, address: str, port: int) -> Answer:
        return Answer(None, "no namespace qdhcp-net-1 on this host")

    report = verify_server(FakeCloud(), SERVER, Wanted(22, "tcp"), elsewhere)
    assert report.results[-1].outcome is Outcome.NOT_CHECKED and report.exit_status == 0


def test_a_refused_connection_fails_the_service_layer() -> None:
    def refused(namespace: str, address: str, port: int) -> Answer:
        return Answer(False, "Connection refused")

    report = verify_server(FakeCloud(), SERVER, Wanted(22, "tcp"), refused)
    assert report.failed is not None and report.failed.layer is Layer.SERVICE
    assert "Connection refused" in report.failed.seen


def test_udp_is_not_probed() -> None:
    cloud = FakeCloud(rule_list=[with_(SSH, protocol="udp", port_min=53, port_max=53)])
    report = verify_server(cloud, SERVER, Wanted(53, "udp"), _open)
    assert report.results[-1].outcome is Outcome.NOT_CHECKED and report.exit_status == 0
