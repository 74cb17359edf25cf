"""What a verification is made of: the layers in order, a layer's outcome, the report."""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass


class Layer(enum.Enum):
    """In the order they are checked. The console comes before the lease: a guest that
    never booted never asked for one, and "no lease" would name the wrong layer."""

    HYPERVISOR = "hypervisor"
    AGENTS = "agents"
    STATE = "state"
    PORT = "port"
    CONSOLE = "console"
    LEASE = "lease"
    SECURITY_GROUP = "security-group"
    SERVICE = "service"


TITLES = {
    Layer.HYPERVISOR: "hypervisor up and mapped to a cell",
    Layer.AGENTS: "L2 and DHCP agents alive with the bridge mapping",
    Layer.STATE: "task and power state",
    Layer.PORT: "port bound on the server's host and ACTIVE",
    Layer.CONSOLE: "guest console shows the boot",
    Layer.LEASE: "DHCP lease given",
    Layer.SECURITY_GROUP: "security group rules admit the port",
    Layer.SERVICE: "the service answers from the host side",
}


class Outcome(enum.Enum):
    PASSED = "passed"
    FAILED = "failed"
    NEEDS_ADMIN = "needs admin"  # policy hides what the layer reads: not a failure
    NOT_CHECKED = "not checked"  # cannot be checked from here (said why): not a failure


@dataclass(frozen=True)
class Check:
    """A layer's judgement of its facts: whether they pass and what was seen."""

    ok: bool
    seen: str


def each(checks: Iterable[Check]) -> Check:
    """The first of ``checks`` that fails (those after it are not made), else all they saw."""
    seen = []
    for verdict in checks:
        if not verdict.ok:
            return verdict
        seen.append(verdict.seen)
    return Check(True, "; ".join(seen))


@dataclass(frozen=True)
class LayerResult:
    layer: Layer
    outcome: Outcome
    seen: str


@dataclass(frozen=True)
class Report:
    subject: str
    results: tuple[LayerResult, ...]

    @property
    def failed(self) -> LayerResult | None:
        return next((r for r in self.results if r.outcome is Outcome.FAILED), None)

    @property
    def exit_status(self) -> int:
        return 1 if self.failed else 0


@dataclass(frozen=True)
class Wanted:
    """The service asked about: ``--port 22/tcp``."""

    port: int
    protocol: str

    @classmethod
    def parse(cls, text: str) -> Wanted:
        number, _, protocol = text.partition("/")
        protocol = (protocol or "tcp").lower()
        if not number.isdigit() or not 0 < int(number) < 65536:
            raise ValueError(f"{text!r}: the port must be a number from 1 to 65535")
        if protocol not in ("tcp", "udp"):
            raise ValueError(f"{text!r}: the protocol must be tcp or udp")
        return cls(int(number), protocol)

    def __str__(self) -> str:
        return f"{self.port}/{self.protocol}"
