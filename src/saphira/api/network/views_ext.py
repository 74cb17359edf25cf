"""Security groups, rules and agents as Neutron shows them."""

from __future__ import annotations

import datetime as dt
import ipaddress

from saphira.api.network.views import View, standard
from saphira.db.network.models_ext import Agent, SecurityGroup, SecurityGroupRule
from saphira.netsvc.agents import is_alive

AGENT_TIME = "%Y-%m-%d %H:%M:%S"  # agents' timestamps are not ISO in Neutron


def rule_view(rule: SecurityGroupRule) -> View:
    prefix = rule.remote_ip_prefix
    return {
        "id": rule.id,
        "security_group_id": rule.security_group_id,
        "direction": rule.direction,
        "ethertype": rule.ethertype,
        "protocol": rule.protocol,
        "port_range_min": rule.port_range_min,
        "port_range_max": rule.port_range_max,
        "remote_ip_prefix": prefix,
        "normalized_cidr": str(ipaddress.ip_network(prefix, strict=False)) if prefix else None,
        "remote_group_id": rule.remote_group_id,
        **standard(rule),
    }


def group_view(group: SecurityGroup) -> View:
    return {
        "id": group.id,
        "name": group.name,
        "stateful": group.stateful,
        "security_group_rules": [rule_view(rule) for rule in group.rules],
        **standard(group),
    }


def agent_view(agent: Agent, down_time: int, now: dt.datetime) -> View:
    return {
        "id": agent.id,
        "agent_type": agent.agent_type,
        "binary": agent.binary,
        "topic": agent.topic,
        "host": agent.host,
        "availability_zone": agent.availability_zone,
        "admin_state_up": agent.admin_state_up,
        "alive": is_alive(agent, down_time, now),
        "configurations": agent.configurations,
        "description": agent.description,
        "created_at": agent.created_at.strftime(AGENT_TIME),
        "started_at": agent.started_at.strftime(AGENT_TIME),
        "heartbeat_timestamp": agent.heartbeat_timestamp.strftime(AGENT_TIME),
    }
