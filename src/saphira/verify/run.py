"""The walk: each layer in order, stopping at the first that fails."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from saphira.verify import agents, binding, console, hosts, lease, reach, secgroups, state
from saphira.verify.facts import Agent, Hypervisor, Port, Rule, Server
from saphira.verify.gather import Hidden
from saphira.verify.model import Check, Layer, LayerResult, Outcome, Report, Wanted

NO_PROBE = "the dashboard cannot reach the host: run `saphira verify server` there as root"


class Facts(Protocol):
    """What the layers read (``gather.Source`` with a connection, fakes in tests)."""

    def hypervisors(self) -> list[Hypervisor]: ...

    def agents(self) -> list[Agent]: ...

    def ports(self, server_id: str) -> list[Port]: ...

    def console(self, server_id: str) -> str: ...

    def rules(self, port: Port) -> list[Rule]: ...


class NotChecked(Exception):
    """The layer cannot be checked from here; the message says why."""


@dataclass
class _Walk:
    facts: Facts
    server: Server
    wanted: Wanted
    probe: reach.Probe | None
    _agents: list[Agent] | None = field(default=None, init=False)
    _ports: list[Port] | None = field(default=None, init=False)

    def agents(self) -> list[Agent]:
        if self._agents is None:
            self._agents = self.facts.agents()
        return self._agents

    def ports(self) -> list[Port]:
        if self._ports is None:
            self._ports = self.facts.ports(self.server.id)
        return self._ports

    def hypervisor(self) -> Check:
        return hosts.check(self.server, self.facts.hypervisors())

    def agent(self) -> Check:
        networks = [port.network for port in self.ports()]
        return agents.check(self.server.host, networks, self.agents())

    def state(self) -> Check:
        return state.check(self.server)

    def port(self) -> Check:
        return binding.check(self.server, self.ports())

    def console(self) -> Check:
        return console.check(self.facts.console(self.server.id))

    def lease(self) -> Check:
        return lease.check(self.ports(), self.agents())

    def security_group(self) -> Check:
        verdicts = [secgroups.check(p, self.facts.rules(p), self.wanted) for p in self.ports()]
        return next((v for v in verdicts if v.ok), verdicts[0])

    def service(self) -> Check:
        self.agents()  # admins only: the probe runs as root on the host
        if self.probe is None:
            raise NotChecked(NO_PROBE)
        if self.wanted.protocol != "tcp":
            raise NotChecked(f"only TCP services are probed, not {self.wanted}")
        port = next((p for p in self.ports() if p.ipv4), None)
        if port is None or port.ipv4 is None:
            raise NotChecked("the server has no IPv4 address to probe")
        answer = self.probe(reach.namespace(port.network.id), port.ipv4, self.wanted.port)
        if answer.reached is None:
            raise NotChecked(answer.detail)
        return reach.check(port, self.wanted, answer)

    def steps(self) -> list[tuple[Layer, Callable[[], Check]]]:
        return [
            (Layer.HYPERVISOR, self.hypervisor), (Layer.AGENTS, self.agent),
            (Layer.STATE, self.state), (Layer.PORT, self.port),
            (Layer.CONSOLE, self.console), (Layer.LEASE, self.lease),
            (Layer.SECURITY_GROUP, self.security_group), (Layer.SERVICE, self.service),
        ]  # fmt: skip


def _result(layer: Layer, step: Callable[[], Check]) -> LayerResult:
    try:
        verdict = step()
    except Hidden as error:
        return LayerResult(layer, Outcome.NEEDS_ADMIN, f"policy hides it: {error}")
    except NotChecked as error:
        return LayerResult(layer, Outcome.NOT_CHECKED, str(error))
    return LayerResult(layer, Outcome.PASSED if verdict.ok else Outcome.FAILED, verdict.seen)


def verify_server(
    facts: Facts, server: Server, wanted: Wanted, probe: reach.Probe | None
) -> Report:
    """Every layer up to and including the first that fails."""
    results: list[LayerResult] = []
    for layer, step in _Walk(facts, server, wanted, probe).steps():
        results.append(_result(layer, step))
        if results[-1].outcome is Outcome.FAILED:
            break
    return Report(f"server {server.name} ({server.id}) for {wanted}", tuple(results))
