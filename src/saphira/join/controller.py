"""The controller's view of this host: the proof the guide says must come from there.

As the service user ``nova`` (admin on the service project, as the install
guide makes it) the tool asks the controller's own APIs, found in the
identity catalog: the compute service (``os-services``), the hypervisor
(``os-hypervisors/detail``), the placement resource provider, and the
network agents of this host with the bridge mappings they report *live*
(``/v2.0/agents``: what the running agent said, not the file on disk).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from saphira.clients.identity import v3
from saphira.clients.transport import Request, Transport, TransportError
from saphira.exception import JoinRefused

POLL = 2.0


@dataclass(frozen=True)
class Agent:
    binary: str
    alive: bool
    bridge_mappings: Mapping[str, str]


@dataclass(frozen=True)
class View:
    compute_state: str  # up, down, or absent
    hypervisor_state: str  # up, down, or absent
    provider: bool
    agents: tuple[Agent, ...]

    def missing(self, mapping: tuple[str, str]) -> list[str]:
        """What the controller does not see yet; empty when the host is admitted."""
        gaps = []
        if self.compute_state != "up":
            gaps.append(f"the compute service is {self.compute_state}")
        if self.hypervisor_state != "up":
            gaps.append(f"the hypervisor is {self.hypervisor_state}")
        if not self.provider:
            gaps.append("no placement resource provider")
        alive = [a for a in self.agents if a.alive]
        if not alive:
            gaps.append("no network agent of this host is alive")
        elif not any(a.bridge_mappings.get(mapping[0]) == mapping[1] for a in alive):
            found = [dict(a.bridge_mappings) for a in alive]
            gaps.append(f"no live agent reports {mapping[0]}:{mapping[1]} (they report {found})")
        return gaps


@dataclass(frozen=True)
class Credentials:
    identity_url: str
    region: str
    username: str
    password: str


class Controller:
    def __init__(self, transport: Transport, creds: Credentials, timeout: float = 10.0) -> None:
        self.transport, self.creds, self.timeout = transport, creds, timeout
        self.token, self.catalog = self._login()

    def _send(self, method: str, url: str, json: Any = None, headers: Mapping[str, str] = {}
              ) -> tuple[int, Any, Mapping[str, str]]:  # fmt: skip
        request = Request(method, url, {"Accept": "application/json", **headers}, None, json,
                          timeout=self.timeout)  # fmt: skip
        try:
            reply = self.transport.send(request)
        except TransportError as error:
            raise JoinRefused(reason=f"{method} {url}: no answer ({error.message})") from None
        try:
            body = reply.json() if reply.content else None
        except ValueError:  # an error page
            body = reply.text[:200]
        return reply.status, body, reply.headers

    def _login(self) -> tuple[str, list[dict[str, Any]]]:
        c = self.creds
        body = {"auth": {
            "identity": {"methods": ["password"], "password": {"user": {
                "name": c.username, "password": c.password, "domain": {"name": "Default"}}}},
            "scope": {"project": {"name": "service", "domain": {"name": "Default"}}},
        }}  # fmt: skip
        status, reply, headers = self._send("POST", f"{v3(c.identity_url)}/auth/tokens", body)
        token = next((v for k, v in headers.items() if k.lower() == "x-subject-token"), None)
        if status != 201 or token is None:
            raise JoinRefused(reason=f"the controller refused the service user {c.username}: "
                                     f"{status} (check its password)")  # fmt: skip
        return token, list(reply["token"].get("catalog", []))

    def endpoint(self, kind: str) -> str:
        for service in self.catalog:
            if service.get("type") != kind:
                continue
            for point in service.get("endpoints", []):
                region = point.get("region_id") or point.get("region")
                if point.get("interface") == "public" and region in (self.creds.region, None):
                    return str(point["url"]).rstrip("/")
        raise JoinRefused(reason=f"the identity catalog has no public {kind} endpoint")

    def get(self, kind: str, path: str, headers: Mapping[str, str] = {}) -> Any:
        url = self.endpoint(kind) + path
        status, body, _ = self._send("GET", url, headers={"X-Auth-Token": self.token, **headers})
        if status != 200:
            raise JoinRefused(reason=f"GET {url}: {status} {str(body)[:200]}")
        return body

    def view(self, host: str) -> View:
        services = self.get("compute", f"/os-services?binary=nova-compute&host={quote(host)}")
        compute = next((s["state"] for s in services["services"] if s["host"] == host), "absent")
        hypervisors = self.get("compute", "/os-hypervisors/detail")["hypervisors"]
        mine = [h for h in hypervisors if h.get("service", {}).get("host") == host]
        names = [str(h["hypervisor_hostname"]) for h in mine] or [host]
        providers = self.get("placement", f"/resource_providers?name={quote(names[0])}",
                             {"OpenStack-API-Version": "placement 1.0"})  # fmt: skip
        agents = self.get("network", f"/v2.0/agents?host={quote(host)}")["agents"]
        return View(
            compute_state=compute,
            hypervisor_state=str(mine[0].get("state", "up")) if mine else "absent",
            provider=bool(providers["resource_providers"]),
            agents=tuple(
                Agent(str(a["binary"]), bool(a["alive"]),
                      dict(a.get("configurations", {}).get("bridge_mappings", {})))
                for a in agents
            ),
        )  # fmt: skip


def wait_admitted(
    look: Callable[[], View], mapping: tuple[str, str], timeout: float,
    sleep: Callable[[float], None] = time.sleep,
) -> tuple[bool, list[str]]:  # fmt: skip
    """Poll until the controller sees everything or timeout passes; (admitted, gaps)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            gaps = look().missing(mapping)
        except JoinRefused as error:
            gaps = [error.message]
        if not gaps or time.monotonic() >= deadline:
            return not gaps, gaps
        sleep(POLL)
