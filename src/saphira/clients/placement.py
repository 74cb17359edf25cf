"""A small typed Placement client for the compute agent, conductor and scheduler.

It speaks the HTTP API (so agents need no database), asks for one
microversion, and turns Placement's error bodies back into saphira
exceptions; a 409 with ``placement.concurrent_update`` becomes
``ConcurrentUpdate`` so callers can tell "retry" from "no room".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from saphira import exception
from saphira.clients.base import Locator, ServiceClient, TokenProvider
from saphira.clients.errors import error_for
from saphira.clients.transport import Reply, Transport

VERSION = "1.36"
TIMEOUT = 30


class ConcurrentUpdate(exception.Conflict):
    """Placement's ``placement.concurrent_update``: a generation moved; re-read and retry."""

    placement_code = "placement.concurrent_update"


@dataclass(frozen=True)
class Provider:
    uuid: str
    name: str
    generation: int
    parent_provider_uuid: str | None = None
    root_provider_uuid: str | None = None


@dataclass(frozen=True)
class Candidates:
    allocation_requests: list[dict[str, Any]]
    provider_summaries: dict[str, Any]


class PlacementClient(ServiceClient):
    service = "placement"

    def __init__(
        self,
        endpoint: str | Locator,
        token: TokenProvider,
        *,
        transport: Transport | None = None,
        timeout: float = TIMEOUT,
    ) -> None:
        super().__init__(endpoint, token, transport=transport, timeout=timeout)

    def headers(self) -> dict[str, str]:
        return {**super().headers(), "OpenStack-API-Version": f"placement {VERSION}"}

    def refusal(self, reply: Reply) -> exception.SaphiraError:
        try:
            first = reply.json()["errors"][0]
            detail, code = str(first.get("detail", "")), str(first.get("code", ""))
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            detail, code = reply.text[:200], ""
        if reply.status == 409 and code == ConcurrentUpdate.placement_code:
            return ConcurrentUpdate(detail)
        return error_for(reply.status, f"placement: {reply.status} {detail}")

    def _call(self, method: str, path: str, body: Any = None, **params: Any) -> Any:
        return self.call(method, path, body, params=params or None)

    # -- providers -------------------------------------------------------

    def get_provider(self, uuid: str) -> Provider | None:
        try:
            return _provider(self._call("GET", f"/resource_providers/{uuid}"))
        except exception.NotFound:
            return None

    def ensure_provider(
        self, name: str, uuid: str | None = None, parent_uuid: str | None = None
    ) -> Provider:
        """The provider with this uuid (or name), created when missing."""
        found = self.get_provider(uuid) if uuid else None
        if found is None:
            named = self._call("GET", "/resource_providers", name=name)["resource_providers"]
            found = _provider(named[0]) if named else None
        if found is not None:
            return found
        body: dict[str, Any] = {"name": name}
        if uuid:
            body["uuid"] = uuid
        if parent_uuid:
            body["parent_provider_uuid"] = parent_uuid
        try:
            return _provider(self._call("POST", "/resource_providers", body))
        except exception.Conflict:  # created concurrently by someone else: use theirs
            named = self._call("GET", "/resource_providers", name=name)["resource_providers"]
            if not named:
                raise
            return _provider(named[0])

    def delete_provider(self, uuid: str) -> None:
        self._call("DELETE", f"/resource_providers/{uuid}")

    def set_inventory(
        self, provider_uuid: str, inventories: Mapping[str, Mapping[str, Any]], attempts: int = 5
    ) -> int:
        """Replace the inventory, re-reading the generation on a conflict; the new generation."""
        body = {k: dict(v) for k, v in inventories.items()}
        return self._with_generation(
            provider_uuid,
            "inventories",
            lambda g: {"resource_provider_generation": g, "inventories": body},
            attempts,
        )

    def set_traits(self, provider_uuid: str, traits: Iterable[str], attempts: int = 5) -> int:
        names = sorted(set(traits))
        return self._with_generation(
            provider_uuid,
            "traits",
            lambda g: {"resource_provider_generation": g, "traits": names},
            attempts,
        )

    def _with_generation(
        self, uuid: str, what: str, body: Callable[[int], dict[str, Any]], attempts: int
    ) -> int:
        for attempt in range(attempts):
            current = self._call("GET", f"/resource_providers/{uuid}/{what}")
            try:
                done = self._call(
                    "PUT",
                    f"/resource_providers/{uuid}/{what}",
                    body(current["resource_provider_generation"]),
                )
                return int(done["resource_provider_generation"])
            except ConcurrentUpdate:
                if attempt == attempts - 1:
                    raise
        raise AssertionError("unreachable")

    def get_inventories(self, provider_uuid: str) -> dict[str, dict[str, Any]]:
        """The provider's inventory records by resource class (total, reserved, ratio...)."""
        data = self._call("GET", f"/resource_providers/{provider_uuid}/inventories")
        return dict(data["inventories"])

    def usages(self, provider_uuid: str) -> dict[str, int]:
        return dict(self._call("GET", f"/resource_providers/{provider_uuid}/usages")["usages"])

    # -- candidates and allocations --------------------------------------

    def get_candidates(
        self,
        resources: Mapping[str, int],
        *,
        required: Iterable[str] = (),
        forbidden: Iterable[str] = (),
        member_of: Iterable[str] = (),
        in_tree: str | None = None,
        limit: int | None = None,
    ) -> Candidates:
        params: dict[str, Any] = {
            "resources": ",".join(f"{rc}:{n}" for rc, n in sorted(resources.items()))
        }
        traits = [*sorted(required), *(f"!{t}" for t in sorted(forbidden))]
        if traits:
            params["required"] = ",".join(traits)
        aggregates = sorted(member_of)
        if aggregates:
            params["member_of"] = "in:" + ",".join(aggregates)
        if in_tree:
            params["in_tree"] = in_tree
        if limit:
            params["limit"] = limit
        data = self._call("GET", "/allocation_candidates", **params)
        return Candidates(data["allocation_requests"], data["provider_summaries"])

    def get_allocations(self, consumer: str) -> dict[str, Any]:
        return dict(self._call("GET", f"/allocations/{consumer}"))

    def put_allocations(
        self,
        consumer: str,
        allocations: Mapping[str, Mapping[str, int]],
        *,
        project_id: str,
        user_id: str,
        consumer_generation: int | None,
    ) -> None:
        """Replace a consumer's allocations (rp uuid -> class -> amount); Conflict when no
        room, ConcurrentUpdate when ``consumer_generation`` is stale."""
        body = {
            "allocations": {rp: {"resources": dict(res)} for rp, res in allocations.items()},
            "project_id": project_id,
            "user_id": user_id,
            "consumer_generation": consumer_generation,
        }
        self._call("PUT", f"/allocations/{consumer}", body)

    def claim(
        self,
        consumer: str,
        allocation_request: Mapping[str, Any],
        *,
        project_id: str,
        user_id: str,
    ) -> None:
        """Claim one of ``get_candidates``'s allocation requests for a new consumer."""
        resources = {rp: v["resources"] for rp, v in allocation_request["allocations"].items()}
        self.put_allocations(
            consumer, resources, project_id=project_id, user_id=user_id, consumer_generation=None
        )

    def delete_allocations(self, consumer: str) -> bool:
        """False when the consumer had none (already released)."""
        try:
            self._call("DELETE", f"/allocations/{consumer}")
        except exception.NotFound:
            return False
        return True


def _provider(data: Mapping[str, Any]) -> Provider:
    return Provider(
        data["uuid"],
        data["name"],
        int(data["generation"]),
        data.get("parent_provider_uuid"),
        data.get("root_provider_uuid"),
    )
