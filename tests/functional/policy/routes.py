"""Every route of every API, from the route tables the services are built from."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from werkzeug.routing import Rule

from saphira.api import compute, identity, image, network, placement

API_ROUTES: dict[str, Callable[[], list[Rule]]] = {
    "identity": identity.routes,
    "compute": compute.routes,
    "image": image.routes,
    "network": network.routes,
    "placement": placement.routes,
}
SKIPPED_METHODS = frozenset({"HEAD", "OPTIONS"})  # werkzeug adds HEAD to every GET
PROJECT_TWIN = "/v2.1/<project_id>/"


@dataclass(frozen=True)
class Route:
    api: str
    method: str
    rule: str  # as werkzeug shows it

    @property
    def key(self) -> tuple[str, str]:
        """The matrix key: compute's /v2.1/<project_id>/... twin shares its plain rule's."""
        if self.rule.startswith(PROJECT_TWIN):
            return self.method, "/v2.1/" + self.rule.removeprefix(PROJECT_TWIN)
        return self.method, self.rule

    def __str__(self) -> str:
        return f"{self.api} {self.method} {self.rule}"


def routes(api: str) -> list[Route]:
    found = []
    for rule in API_ROUTES[api]():
        for method in sorted((rule.methods or set()) - SKIPPED_METHODS):
            found.append(Route(api, method, rule.rule))
    return found
