"""Which of the ports an agent reported up are a server's: the events the compute
API hears of (sent by ``saphira.clients.compute_events``)."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.clients.compute_events import VIF_PLUGGED, ServerEvent
from saphira.db.network.models import Port


def vif_plugged_events(session: Session, port_ids: list[str]) -> list[ServerEvent]:
    """One event per server port among ``port_ids`` (others are nobody's business)."""
    if not port_ids:
        return []
    rows = session.execute(
        sa.select(Port.id, Port.device_id)
        .where(Port.id.in_(port_ids), Port.device_owner.startswith("compute:"))
        .where(Port.device_id != "")
        .order_by(Port.id)
    ).all()
    return [ServerEvent(VIF_PLUGGED, device_id, port_id) for port_id, device_id in rows]
