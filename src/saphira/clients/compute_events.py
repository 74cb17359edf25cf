"""Telling the compute API that a server's ports came up (Neutron's nova notifier).

The network service sends a server's events (``network-vif-plugged``,
tagged with the port id) in one ``POST /os-server-external-events`` per
agent report, as the ``[nova]`` service user; the compute host waiting for
them then lets the paused guest run. If the compute API cannot be reached
the events are logged and dropped: the agent's report stands, and the build
waiting for them times out, as with Neutron.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass

from oslo_config import cfg

from saphira.clients.base import Locator, ServiceClient, TokenProvider
from saphira.clients.endpoints import service_locator
from saphira.clients.identity import PasswordToken
from saphira.clients.transport import Transport
from saphira.exception import SaphiraError

LOG = logging.getLogger(__name__)
VIF_PLUGGED = "network-vif-plugged"


@dataclass(frozen=True)
class ServerEvent:
    """One of Nova's external events, as ``os-server-external-events`` takes it."""

    name: str
    server_uuid: str
    tag: str
    status: str = "completed"


class ComputeEvents(ServiceClient):
    service = "compute API"

    def __init__(
        self,
        compute_url: str | Locator,
        token: TokenProvider,
        timeout: float = 10,
        transport: Transport | None = None,
    ) -> None:
        super().__init__(compute_url, token, timeout=timeout, transport=transport)

    @classmethod
    def from_conf(cls, conf: cfg.ConfigOpts) -> ComputeEvents | None:
        """As ``[nova]``'s user; a saphira.conf written before [nova] existed names the
        same user in ``[keystone_authtoken]`` only (the all-in-one validates tokens
        as Nova's user). None if neither names one: builds then wait in vain."""
        for section in (conf.nova, conf.keystone_authtoken):
            if section.username and section.password:
                token = PasswordToken(section)
                return cls(service_locator(conf, "nova", "compute", token), token)
        LOG.warning("[nova] names no service user: the compute API will not hear of ports")
        return None

    def send(self, events: list[ServerEvent]) -> None:
        if not events:
            return
        body = {"events": [asdict(event) for event in events]}
        try:
            reply = self.request("POST", "/os-server-external-events", json=body,
                                 raise_refusal=False)  # fmt: skip
        except SaphiraError as error:  # unreachable, or our own token refused
            LOG.warning("compute API not told of %s: %s", _tags(events), error)
            return
        if reply.status == 404:  # no server took them: deleted, or not placed
            LOG.info("compute API: no server for %s", _tags(events))
            return
        if reply.status >= 400:
            LOG.warning("compute API refused events for %s: %s %s", _tags(events),
                        reply.status, reply.text[:200])  # fmt: skip
            return
        LOG.debug("compute API told %s: %s", _tags(events), reply.text[:500])


def _tags(events: list[ServerEvent]) -> str:
    return ", ".join(f"{e.name}:{e.tag}" for e in events)
