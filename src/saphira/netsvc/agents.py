"""Agents: rows made and refreshed by their heartbeats, alive while the beats are recent.

``AgentRegistry.report_state`` is what an agent's periodic report calls
(through RPC, in the agents' issue); it answers Neutron's ``new``, ``alive``
or ``revived`` so an agent that was seen dead knows to resync everything.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.db.network.models_ext import Agent
from saphira.db.transactions import Database, inserted
from saphira.netsvc import errors
from saphira.netsvc.caller import Caller, target
from saphira.netsvc.settings import Settings
from saphira.netsvc.stamps import new_id, utcnow


def is_alive(agent: Agent, down_time: int, now: dt.datetime | None = None) -> bool:
    age = (now or utcnow()) - agent.heartbeat_timestamp
    return age.total_seconds() <= down_time


class AgentRegistry:
    def __init__(self, db: Database, settings: Settings) -> None:
        self.db = db
        self.settings = settings

    def report_state(
        self,
        agent_type: str,
        binary: str,
        host: str,
        configurations: dict[str, Any],
        topic: str = "N/A",
        *,
        start_flag: bool = False,
        availability_zone: str | None = None,
    ) -> str:
        """Record a heartbeat; 'new' for a first report, 'revived' after a dead spell."""
        now = utcnow()
        with self.db.writer() as session:
            agent = _find(session, agent_type, host)
            if agent is None:
                agent = Agent(
                    id=new_id(), agent_type=agent_type, binary=binary, topic=topic, host=host,
                    availability_zone=availability_zone, admin_state_up=True,
                    configurations=configurations, created_at=now, started_at=now,
                    heartbeat_timestamp=now,
                )  # fmt: skip
                if inserted(session, agent):
                    return "new"
                agent = _find(session, agent_type, host)
                if agent is None:
                    raise errors.AgentNotFound(id=f"{agent_type}@{host}")
            state = "alive" if is_alive(agent, self.settings.agent_down_time, now) else "revived"
            agent.binary, agent.topic, agent.configurations = binary, topic, configurations
            agent.availability_zone = availability_zone
            agent.heartbeat_timestamp = now
            if start_flag:
                agent.started_at = now
            return state

    def mapped_physnets(self, session: Session, agent_type: str, host: str) -> set[str]:
        """The physical networks an agent reported bridges for (none if it never reported)."""
        agent = _find(session, agent_type, host)
        if agent is None:
            return set()
        return set((agent.configurations or {}).get("bridge_mappings") or {})


def _find(session: Session, agent_type: str, host: str) -> Agent | None:
    query = sa.select(Agent).where(Agent.agent_type == agent_type, Agent.host == host)
    return session.scalars(query).first()


def get(session: Session, caller: Caller, agent_id: str) -> Agent:
    caller.authorize("get_agent", target(caller.project_id))
    agent = session.get(Agent, agent_id)
    if agent is None:
        raise errors.AgentNotFound(id=agent_id)
    return agent


def listed(session: Session, caller: Caller) -> list[Agent]:
    caller.authorize("get_agent", target(caller.project_id))
    return list(session.scalars(sa.select(Agent).order_by(Agent.host, Agent.agent_type)))


def update(session: Session, caller: Caller, agent_id: str, attrs: dict[str, Any]) -> Agent:
    agent = get(session, caller, agent_id)
    caller.authorize("update_agent", target(caller.project_id))
    for key in ("admin_state_up", "description"):
        if key in attrs:
            setattr(agent, key, attrs[key])
    return agent


def delete(session: Session, caller: Caller, agent_id: str) -> None:
    agent = get(session, caller, agent_id)
    caller.authorize("delete_agent", target(caller.project_id))
    session.delete(agent)
