"""Facts read through openstacksdk with the caller's credentials.

Policy decides what a caller sees: a listing refused (403) raises ``Hidden``, a field
left out (the binding, the server's host) arrives as None; the layers say "needs
admin" for the first and judge what is visible for the second."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from openstack import connection
from openstack import exceptions as sdk_exceptions

from saphira.verify.facts import Agent, ComputeService, Hypervisor, Network, Port, Rule, Server

T = TypeVar("T")


class Hidden(Exception):
    """Policy refused the caller what a layer reads."""


def _read(call: Callable[[], T]) -> T:
    try:
        return call()
    except sdk_exceptions.ForbiddenException as error:
        raise Hidden(str(error.details or error)) from None


def _leases(configurations: dict[str, Any]) -> dict[str, frozenset[str]]:
    leases = configurations.get("leases") or {}
    if not isinstance(leases, dict):
        return {}
    return {str(net): frozenset(str(mac).lower() for mac in macs) for net, macs in leases.items()}


def agent(raw: Any) -> Agent:
    configurations = raw.configuration or {}
    return Agent(agent_type=raw.agent_type, host=raw.host, alive=bool(raw.is_alive),
                 admin_state_up=bool(raw.is_admin_state_up),
                 bridge_mappings=dict(configurations.get("bridge_mappings") or {}),
                 leases=_leases(configurations))  # fmt: skip


FAULT_DETAIL = 300  # characters of a fault's details kept (admins see them)


def _fault(fault: object) -> str | None:
    if not isinstance(fault, dict):
        return None
    message, details = str(fault.get("message") or ""), str(fault.get("details") or "")
    if details and details != message:
        return f"{message} ({details[:FAULT_DETAIL]})" if message else details[:FAULT_DETAIL]
    return message or None


def server(raw: Any) -> Server:
    fault = _fault(raw.fault)
    return Server(id=raw.id, name=raw.name, status=raw.status, host=raw.compute_host,
                  task_state=raw.task_state, power_state=raw.power_state, fault=fault)  # fmt: skip


class Source:
    """Everything the layers read, from one openstacksdk connection."""

    def __init__(self, conn: connection.Connection) -> None:
        self.conn = conn

    def server(self, name_or_id: str) -> Server:
        """By id or name in the caller's project; an admin's name may be another's."""
        found = self.conn.compute.find_server(name_or_id, ignore_missing=True)
        if found is None:
            try:
                found = self.conn.compute.find_server(
                    name_or_id, ignore_missing=False, all_projects=True
                )
            except sdk_exceptions.ForbiddenException:
                raise sdk_exceptions.NotFoundException(f"no server {name_or_id}") from None
        return server(self.conn.compute.get_server(found.id))

    def hypervisors(self) -> list[Hypervisor]:
        listed = _read(lambda: list(self.conn.compute.hypervisors(details=True)))
        return [Hypervisor(hostname=h.name, host=(h.service_details or {}).get("host", h.name),
                           state=h.state, status=h.status) for h in listed]  # fmt: skip

    def services(self) -> list[ComputeService]:
        listed = _read(lambda: list(self.conn.compute.services()))
        return [ComputeService(binary=s.binary, host=s.host, state=s.state, status=s.status)
                for s in listed]  # fmt: skip

    def agents(self) -> list[Agent]:
        return [agent(a) for a in _read(lambda: list(self.conn.network.agents()))]

    def network(self, network_id: str) -> Network:
        raw = self.conn.network.get_network(network_id)
        subnets = [self.conn.network.get_subnet(s) for s in raw.subnet_ids or []]
        return Network(id=raw.id, name=raw.name, network_type=raw.provider_network_type,
                       physical_network=raw.provider_physical_network,
                       dhcp_subnets=tuple(s.id for s in subnets if s.is_dhcp_enabled))  # fmt: skip

    def ports(self, server_id: str) -> list[Port]:
        made = []
        for raw in self.conn.network.ports(device_id=server_id):
            made.append(Port(
                id=raw.id, mac=raw.mac_address, network=self.network(raw.network_id),
                ips=tuple(ip["ip_address"] for ip in raw.fixed_ips or []), status=raw.status,
                host_id=raw.binding_host_id or None, vif_type=raw.binding_vif_type or None,
                security_group_ids=tuple(raw.security_group_ids or []),
                port_security=raw.is_port_security_enabled is not False,
            ))  # fmt: skip
        return made

    def console(self, server_id: str) -> str:
        return str(self.conn.compute.get_server_console_output(server_id).get("output") or "")

    def rules(self, port: Port) -> list[Rule]:
        rules = []
        for group in port.security_group_ids:
            for raw in self.conn.network.security_group_rules(security_group_id=group):
                remote = raw.remote_ip_prefix or raw.remote_group_id or "anywhere"
                rules.append(Rule(direction=raw.direction, ethertype=raw.ether_type,
                                  protocol=raw.protocol, port_min=raw.port_range_min,
                                  port_max=raw.port_range_max, remote=str(remote)))  # fmt: skip
        return rules
