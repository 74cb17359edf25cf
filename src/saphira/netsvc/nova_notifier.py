"""Telling the compute API that a server's ports came up (Neutron's nova notifier).

When an L2 agent reports a port wired and the port turns ACTIVE, a port of a
server (``device_owner`` ``compute:*``) yields a ``network-vif-plugged``
event for that server, tagged with the port id; the compute host waiting for
it then lets the paused guest run. The events of one report go out in one
``POST /os-server-external-events``, as the ``[nova]`` service user. If the
compute API cannot be reached the events are logged and dropped: the agent's
report stands, and the build waiting for them times out, as with Neutron.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import requests
import sqlalchemy as sa
from oslo_config import cfg
from sqlalchemy.orm import Session

from saphira.clients.endpoints import service_url
from saphira.clients.identity import PasswordToken
from saphira.common import tls
from saphira.db.network.models import Port
from saphira.exception import SaphiraError

LOG = logging.getLogger(__name__)
VIF_PLUGGED = "network-vif-plugged"


def vif_plugged_events(session: Session, port_ids: list[str]) -> list[dict[str, str]]:
    """One event per server port among ``port_ids`` (others are nobody's business)."""
    if not port_ids:
        return []
    rows = session.execute(
        sa.select(Port.id, Port.device_id)
        .where(Port.id.in_(port_ids), Port.device_owner.startswith("compute:"))
        .where(Port.device_id != "")
        .order_by(Port.id)
    ).all()
    return [
        {"name": VIF_PLUGGED, "server_uuid": device_id, "tag": port_id, "status": "completed"}
        for port_id, device_id in rows
    ]


class NovaNotifier:
    def __init__(self, compute_url: str, token: Callable[[], str], timeout: float = 10) -> None:
        self.url = f"{compute_url.rstrip('/')}/os-server-external-events"
        self.token = token
        self.timeout = timeout

    @classmethod
    def from_conf(cls, conf: cfg.ConfigOpts) -> NovaNotifier | None:
        """As ``[nova]``'s user; a saphira.conf written before [nova] existed names the
        same user in ``[keystone_authtoken]`` only (the all-in-one validates tokens
        as Nova's user). None if neither names one: builds then wait in vain."""
        for section in (conf.nova, conf.keystone_authtoken):
            if section.username and section.password:
                return cls(service_url(conf, "nova", "compute"), PasswordToken(section))
        LOG.warning("[nova] names no service user: the compute API will not hear of ports")
        return None

    def send(self, events: list[dict[str, str]]) -> None:
        if not events:
            return
        try:
            response = requests.post(
                self.url, json={"events": events}, timeout=self.timeout,
                headers={"X-Auth-Token": self.token()},
                verify=tls.verify(),
            )  # fmt: skip
        except (requests.RequestException, SaphiraError) as error:
            LOG.warning("compute API not told of %s: %s", _tags(events), error)
            return
        if response.status_code == 404:  # no server took them: deleted, or not placed
            LOG.info("compute API: no server for %s", _tags(events))
            return
        if response.status_code >= 400:
            LOG.warning("compute API refused events for %s: %s %s", _tags(events),
                        response.status_code, response.text[:200])  # fmt: skip
            return
        LOG.debug("compute API told %s: %s", _tags(events), response.text[:500])


def _tags(events: list[dict[str, Any]]) -> str:
    return ", ".join(f"{e['name']}:{e['tag']}" for e in events)
