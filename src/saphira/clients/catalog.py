"""Service URLs from the identity catalog, as keystoneauth finds them.

A ``CatalogURL`` names what a client wants (the catalog type, the
interfaces it accepts in order of preference, a region or any) and whose
token asks (the client's own service user). It reads ``GET
/v3/auth/catalog`` once per token: a renewed token reads it again, and so
does ``refresh`` (the client calls it when the URL it had answered 404 or
not at all). Like keystoneauth's ``EndpointData``, the first interface of
``valid_interfaces`` that the service has wins, and an endpoint of another
region never does; unlike it, no version discovery follows (Saphira's
catalog URLs are the API roots its clients expect).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from saphira import exception
from saphira.clients.identity import IdentityClient
from saphira.clients.transport import Transport


class EndpointNotFound(exception.ServiceUnavailable):
    """The catalog lists no usable endpoint of a service (keystoneauth's name)."""

    msg_fmt = "%(detail)s"


@dataclass(frozen=True)
class Wanted:
    catalog_type: str
    interfaces: tuple[str, ...] = ("internal", "public")
    region: str | None = None  # None: any region

    def pick(self, catalog: Sequence[dict[str, Any]]) -> str:
        """The URL of the first wanted interface this service has in the region."""
        endpoints = [
            endpoint
            for service in catalog
            if service.get("type") == self.catalog_type
            for endpoint in service.get("endpoints", [])
            if self.region is None or self.region in _regions(endpoint)
        ]
        for interface in self.interfaces:
            for endpoint in endpoints:
                if endpoint.get("interface") == interface and endpoint.get("url"):
                    return str(endpoint["url"]).rstrip("/")
        where = f" in region {self.region}" if self.region else ""
        raise EndpointNotFound(
            detail=f"the identity catalog has no {'/'.join(self.interfaces)} endpoint of "
            f"type {self.catalog_type}{where}"
        )


def _regions(endpoint: dict[str, Any]) -> set[str]:
    return {str(endpoint[key]) for key in ("region_id", "region") if endpoint.get(key)}


class CatalogURL:
    """A client's base URL, read from the catalog its token comes with."""

    def __init__(
        self,
        auth_url: str,
        token: Callable[[], str],
        wanted: Wanted,
        *,
        transport: Transport | None = None,
    ) -> None:
        self.identity = IdentityClient(auth_url, timeout=30, transport=transport)
        self.token, self.wanted = token, wanted
        self._read_with: str | None = None
        self._url: str | None = None
        self._lock = threading.Lock()

    def __call__(self) -> str:
        token = self.token()
        with self._lock:
            if self._url is None or token != self._read_with:
                self._url, self._read_with = self._read(token), token
            return self._url

    def refresh(self) -> bool:
        """Read the catalog again now; whether the URL changed (then a retry may help)."""
        token = self.token()
        with self._lock:
            before = self._url
            try:
                self._url, self._read_with = self._read(token), token
            except exception.SaphiraError:
                return False  # identity unreachable too: the caller's own error stands
            return self._url != before

    def _read(self, token: str) -> str:
        reply = self.identity.request("GET", "/auth/catalog", headers={"X-Auth-Token": token})
        return self.wanted.pick(reply.json().get("catalog", []))
