"""The network service over its v2.0 API: networks, subnets, ports and security groups.

One client per set of credentials, as Nova's ``get_client(context,
admin=...)``: the compute agent holds one as the ``[neutron]`` service user
(an admin), which alone may bind a port to a host, and ``as_user`` gives one
with the requesting user's token, through which everything the user asked for
is looked up and made, so every network policy applies to it; the service's
own token goes along as ``X-Service-Token``, so the user's token is still
accepted if it expired meanwhile (keystonemiddleware's service_token_roles,
here saphira.api.auth.middleware). A refusal comes
back as a ``NetworkRefused`` carrying Neutron's own message and error type, so
a build fault reads as the network service put it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from saphira import exception
from saphira.clients.base import Locator, ServiceClient, TokenProvider
from saphira.clients.transport import Reply, Transport, pooled

Filter = str | bool | list[str]


class NetworkRefused(exception.SaphiraError):
    """The network service said no; ``neutron_type`` is its NeutronError type."""

    def __init__(self, message: str, neutron_type: str = "") -> None:
        super().__init__(message)
        self.neutron_type = neutron_type


class NetworkBadRequest(NetworkRefused, exception.BadRequest):
    pass


class NetworkUnauthorized(NetworkRefused, exception.Unauthorized):
    """The token was refused (expired, revoked) before the network service looked."""


class NetworkForbidden(NetworkRefused, exception.Forbidden):
    pass


class NetworkNotFound(NetworkRefused, exception.NotFound):
    pass


class NetworkConflict(NetworkRefused, exception.Conflict):
    pass


_BY_STATUS: dict[int, type[NetworkRefused]] = {
    400: NetworkBadRequest,
    401: NetworkUnauthorized,
    403: NetworkForbidden,
    404: NetworkNotFound,
    409: NetworkConflict,
}


def _refusal(reply: Reply) -> NetworkRefused:
    """Neutron's fault, or the token middleware's Keystone-shaped one."""
    try:
        body = reply.json()
        fault = body["NeutronError"] if "NeutronError" in body else body["error"]
        kind, message = str(fault.get("type", "")), str(fault.get("message", ""))
    except (ValueError, KeyError, TypeError, AttributeError):
        kind, message = "", reply.text[:200]
    message = message or f"network service answered {reply.status}"
    return _BY_STATUS.get(reply.status, NetworkRefused)(message, kind)


def _params(filters: Mapping[str, Filter]) -> list[tuple[str, str]]:
    """Neutron's query form: repeated keys for lists, lower-case booleans."""
    pairs: list[tuple[str, str]] = []
    for key, value in filters.items():
        values = value if isinstance(value, list) else [value]
        pairs += [(key, str(v).lower() if isinstance(v, bool) else v) for v in values]
    return pairs


class NetworkClient(ServiceClient):
    service = "network service"

    def __init__(
        self,
        base_url: str | Locator,
        token: TokenProvider,
        timeout: float = 30,
        service_token: TokenProvider | None = None,
        transport: Transport | None = None,
    ) -> None:
        super().__init__(
            base_url, token, service_token=service_token, timeout=timeout, transport=transport
        )

    @classmethod
    def for_caller(cls, base_url: str, token: str) -> NetworkClient:
        """A client with a caller's token, made per request, on the process's one
        pool of connections to ``base_url`` (not a session of its own per call)."""
        return cls(base_url, lambda: token, transport=pooled(base_url.rstrip("/")))

    def as_user(self, token: str) -> NetworkClient:
        """The same service with a user's token: what that user may see and do,
        vouched for by this client's own (service) token. It shares this client's
        transport: one connection pool per service, not one per build."""
        return NetworkClient(self.locator, lambda: token, self.timeout,
                             service_token=self.token, transport=self.transport)  # fmt: skip

    def refusal(self, reply: Reply) -> exception.SaphiraError:
        return _refusal(reply)

    # -- networks -------------------------------------------------------------
    def list_networks(self, **filters: Filter) -> list[dict[str, Any]]:
        return self._list("networks", filters)

    def show_network(self, network_id: str) -> dict[str, Any]:
        return self._one("GET", f"networks/{network_id}", "network")

    def list_subnets(self, **filters: Filter) -> list[dict[str, Any]]:
        return self._list("subnets", filters)

    # -- ports ----------------------------------------------------------------
    def list_ports(self, **filters: Filter) -> list[dict[str, Any]]:
        return self._list("ports", filters)

    def show_port(self, port_id: str) -> dict[str, Any]:
        return self._one("GET", f"ports/{port_id}", "port")

    def create_port(self, attrs: dict[str, Any]) -> dict[str, Any]:
        return self._one("POST", "ports", "port", {"port": attrs})

    def update_port(self, port_id: str, attrs: dict[str, Any]) -> dict[str, Any]:
        return self._one("PUT", f"ports/{port_id}", "port", {"port": attrs})

    def delete_port(self, port_id: str) -> None:
        self._call("DELETE", f"ports/{port_id}")

    # -- security groups --------------------------------------------------------
    def list_security_groups(self, **filters: Filter) -> list[dict[str, Any]]:
        return self._list("security-groups", filters, key="security_groups")

    def show_security_group(self, group_id: str) -> dict[str, Any]:
        return self._one("GET", f"security-groups/{group_id}", "security_group")

    def create_security_group(self, attrs: dict[str, Any]) -> dict[str, Any]:
        return self._one("POST", "security-groups", "security_group", {"security_group": attrs})

    def update_security_group(self, group_id: str, attrs: dict[str, Any]) -> dict[str, Any]:
        body = {"security_group": attrs}
        return self._one("PUT", f"security-groups/{group_id}", "security_group", body)

    def delete_security_group(self, group_id: str) -> None:
        self._call("DELETE", f"security-groups/{group_id}")

    def show_security_group_rule(self, rule_id: str) -> dict[str, Any]:
        return self._one("GET", f"security-group-rules/{rule_id}", "security_group_rule")

    def create_security_group_rule(self, attrs: dict[str, Any]) -> dict[str, Any]:
        body = {"security_group_rule": attrs}
        return self._one("POST", "security-group-rules", "security_group_rule", body)

    def delete_security_group_rule(self, rule_id: str) -> None:
        self._call("DELETE", f"security-group-rules/{rule_id}")

    # -- the wire -------------------------------------------------------------
    def _list(
        self, path: str, filters: Mapping[str, Filter], key: str | None = None
    ) -> list[dict[str, Any]]:
        body = self._call("GET", path, params=_params(filters))
        return list(body[key or path])

    def _one(self, method: str, path: str, key: str, body: Any = None) -> dict[str, Any]:
        return dict(self._call(method, path, body)[key])

    def _call(
        self, method: str, path: str, body: Any = None, params: list[tuple[str, str]] | None = None
    ) -> Any:
        return self.call(method, f"/v2.0/{path}", body, params=params)
