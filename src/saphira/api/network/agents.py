"""/v2.0/agents: what the agents' heartbeats recorded (admins only)."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session
from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.network import crud
from saphira.api.network.app import Call, route
from saphira.api.network.attributes import Attr, boolean, nullable, string
from saphira.api.network.listing import Collection
from saphira.api.network.views import View
from saphira.api.network.views_ext import agent_view
from saphira.db.network.models_ext import Agent
from saphira.netsvc import agents, errors
from saphira.netsvc.stamps import utcnow

SPEC: dict[str, Attr] = {
    "admin_state_up": Attr(boolean),
    "description": Attr(nullable(string(255))),
}
COLLECTION = Collection(
    "agents",
    scalars=(
        "id",
        "agent_type",
        "binary",
        "topic",
        "host",
        "availability_zone",
        "admin_state_up",
        "alive",
        "description",
        "created_at",
        "started_at",
        "heartbeat_timestamp",
    ),
)


def _view(call: Call, agent: Agent) -> View:
    return agent_view(agent, call.settings.agent_down_time, utcnow())


def _list(call: Call) -> Response:
    with call.reader() as session:
        views = [_view(call, a) for a in agents.listed(session, call.caller)]
    return crud.listed(call, COLLECTION, views, lambda v: v, lambda m: errors.AgentNotFound(id=m))


def _show(call: Call, agent_id: str) -> Response:
    with call.reader() as session:
        view = _view(call, agents.get(session, call.caller, agent_id))
    return crud.one(call, "agent", view)


def _update(call: Call, agent_id: str) -> Response:
    def change(session: Session, attrs: dict[str, Any]) -> View:
        return _view(call, agents.update(session, call.caller, agent_id, attrs))

    return crud.updated(call, "agent", SPEC, change)


def _delete(call: Call, agent_id: str) -> Response:
    return crud.deleted(call, lambda session: agents.delete(session, call.caller, agent_id))


def routes() -> list[Rule]:
    return [
        route("/agents", ["GET"], _list),
        route("/agents/<agent_id>", ["GET"], _show),
        route("/agents/<agent_id>", ["PUT"], _update),
        route("/agents/<agent_id>", ["DELETE"], _delete),
    ]
