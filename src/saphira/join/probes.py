"""The controller checks the guide runs by hand, made by the tool.

``ip -j route get CONTROLLER`` names the interface and gateway this host
would use; ``GET http://CONTROLLER:5000/v3`` must answer 200 or 300 (what
``curl -w '%{http_code}'`` prints). No answer (curl's 000), a timeout, no
route, or a route through an interface the join is about to put into the
provider bridge (or other than the management interface asked for) stops
the join with the reason, before anything is written.
"""

from __future__ import annotations

import json
import socket
from dataclasses import dataclass

from saphira.clients.transport import Request, Transport, TransportError
from saphira.join.runner import Runner

PASSING = (200, 300)
TIMEOUT = 10.0


@dataclass(frozen=True)
class Route:
    address: str
    interface: str
    gateway: str  # "" when the controller is on a directly attached network
    source: str


@dataclass(frozen=True)
class Reach:
    controller: str
    route: Route | None
    route_error: str
    identity_url: str
    identity_status: int  # 0: no answer (curl's 000)
    identity_error: str

    def problems(
        self, provider_nic: str | None = None, management_nic: str | None = None
    ) -> list[str]:
        """Why the join must not go on; empty when it may."""
        found = []
        if self.route is None:
            found.append(f"no route to the controller {self.controller}: {self.route_error}")
        elif provider_nic and self.route.interface == provider_nic:
            found.append(
                f"the route to the controller goes through {provider_nic}, the NIC that would "
                "become a port of the provider bridge: the controller would become unreachable"
            )
        elif management_nic and self.route.interface != management_nic:
            found.append(
                f"the route to the controller goes through {self.route.interface}, "
                f"not the management interface {management_nic}"
            )
        if self.identity_status not in PASSING:
            got = self.identity_status or f"000 ({self.identity_error})"
            found.append(f"GET {self.identity_url} answered {got}, not 200 or 300")
        return found


def resolve(controller: str) -> str:
    """The controller's IPv4 address (it may be given as a name)."""
    try:
        return str(socket.getaddrinfo(controller, None, socket.AF_INET)[0][4][0])
    except (OSError, IndexError):
        return controller


def route_to(runner: Runner, address: str) -> tuple[Route | None, str]:
    done = runner.run(["ip", "-j", "route", "get", address])
    if not done.ok:
        return None, done.output or f"ip route get exited with status {done.returncode}"
    try:
        item = json.loads(done.stdout)[0]
    except (ValueError, IndexError, KeyError):
        return None, f"ip route get printed {done.stdout.strip()!r}"
    if item.get("type") in ("unreachable", "prohibit", "blackhole"):
        return None, f"the route is {item['type']}"
    route = Route(address, str(item.get("dev", "")), str(item.get("gateway", "")),
                  str(item.get("prefsrc", "")))  # fmt: skip
    return route, ""


def identity_probe(transport: Transport, url: str, timeout: float = TIMEOUT) -> tuple[int, str]:
    """The identity endpoint's status, or 0 and why there was none."""
    try:
        reply = transport.send(Request("GET", url, timeout=timeout))
    except TransportError as error:
        return 0, error.message
    return reply.status, ""


def reach(runner: Runner, transport: Transport, controller: str, identity_url: str) -> Reach:
    route, route_error = route_to(runner, resolve(controller))
    status, error = identity_probe(transport, identity_url)
    return Reach(controller, route, route_error, identity_url, status, error)
