"""Ports: a MAC unique on the network, addresses from IPAM, groups, pairs, a binding.

A port starts DOWN and ``unbound``; an admin (Nova) binds it by setting
``binding:host_id``, and the L2 agent reports it up later
(``host_ports.report_ports``).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import exc
from sqlalchemy.orm import Session

from saphira.db.network.models import Network, Port
from saphira.db.transactions import inserted
from saphira.netsvc import access, binding, chosen_ips, errors, ipam, port_attrs, quotas
from saphira.netsvc.caller import Caller, target
from saphira.netsvc.settings import Settings
from saphira.netsvc.stamps import bumped, created, new_id

MAC_ATTEMPTS = 16
COLUMNS = ("name", "description", "admin_state_up", "device_id", "device_owner")
BINDING = {"binding:host_id": "binding_host_id", "binding:profile": "binding_profile",
           "binding:vnic_type": "binding_vnic_type"}  # fmt: skip


def _insert(session: Session, settings: Settings, port: Port, mac: str | None) -> None:
    if mac is not None:
        port.mac_address = port_attrs.checked_mac(mac)
        if not inserted(session, port):
            raise errors.MacAddressInUse(net_id=port.network_id, mac=port.mac_address)
        return
    for _ in range(MAC_ATTEMPTS):
        port.mac_address = port_attrs.random_mac(settings.base_mac)
        if inserted(session, port):
            return
    raise errors.MacAddressGenerationFailure(net_id=port.network_id)


def create(session: Session, caller: Caller, settings: Settings, attrs: dict[str, Any]) -> Port:
    network = access.network(session, caller, str(attrs["network_id"]))
    project = caller.owner_for(attrs.get("project_id"))
    where = target(project, network)
    caller.authorize("create_port", where)
    port_attrs.authorize(caller, "create_port", attrs, where)
    quotas.check(session, settings, project, "port")
    security = attrs.get("port_security_enabled", network.port_security_enabled)
    owner = attrs.get("device_owner", "")
    groups = port_attrs.group_ids(
        session, caller, project, attrs.get("security_groups"), security, owner
    )
    port = Port(
        id=new_id(), project_id=project, network_id=network.id, name=attrs.get("name", ""),
        admin_state_up=attrs.get("admin_state_up", True), status="DOWN",
        device_id=attrs.get("device_id", ""), device_owner=owner,
        port_security_enabled=security, binding_host_id=attrs.get("binding:host_id") or "",
        binding_vnic_type=attrs.get("binding:vnic_type", "normal"),
        binding_profile=attrs.get("binding:profile") or {},
        binding_vif_type=binding.UNBOUND, binding_vif_details={},
    )  # fmt: skip
    created(port, attrs.get("description", ""))
    fixed = attrs.get("fixed_ips")
    wants = ipam.default_wants(network) if fixed is None else ipam.wants_of(session, network, fixed)
    chosen_ips.check_wanted(wants, owner, chosen_ips.may_leave_pools(caller, network))
    _insert(session, settings, port, attrs.get("mac_address"))
    ipam.allocate(session, port, wants)
    _set_pairs(port, attrs.get("allowed_address_pairs") or [], security)
    port.security_group_bindings = port_attrs.group_rows(groups)
    binding.bind(session, settings, port, network)
    session.flush()
    session.expire(port, ["fixed_ips"])
    return port


def _set_pairs(port: Port, pairs: list[Any], security: bool) -> None:
    if pairs and not security:
        raise errors.AddressPairAndPortSecurityRequired()
    port.address_pairs = port_attrs.pair_rows(port, pairs)


def _refix(
    session: Session, caller: Caller, port: Port, network: Network, asked: list[Any]
) -> None:
    """Keep the addresses asked for again, release the others, allocate the new ones
    (which chosen_ips allows this caller and the port's owner)."""
    wants = ipam.wants_of(session, network, asked)
    keep, new = [], []
    for want in wants:
        match = next(
            (a for a in port.fixed_ips if a not in keep and a.subnet_id == want.subnets[0].id
             and want.ip in (None, a.ip_address)), None,
        )  # fmt: skip
        if match is None:
            new.append(want)
        else:
            keep.append(match)
    leave_pools = chosen_ips.may_leave_pools(caller, network)
    chosen_ips.check_wanted(new, port.device_owner or "", leave_pools)
    for allocation in list(port.fixed_ips):
        if allocation not in keep:
            session.delete(allocation)
    for position, allocation in enumerate(keep):
        allocation.position = position
    session.flush()
    ipam.allocate(session, port, new, start=len(keep))
    session.expire(port, ["fixed_ips"])


def _new_mac(session: Session, port: Port, mac: Any) -> None:
    mac = port_attrs.checked_mac(mac)
    if mac == port.mac_address:
        return
    if port.binding_vif_type not in (binding.UNBOUND, binding.FAILED):
        raise errors.PortBound(
            port_id=port.id, vif_type=port.binding_vif_type, old_mac=port.mac_address, new_mac=mac
        )
    try:
        with session.begin_nested():
            port.mac_address = mac
            session.flush()
    except exc.IntegrityError:
        raise errors.MacAddressInUse(net_id=port.network_id, mac=mac) from None


def update(
    session: Session, caller: Caller, settings: Settings, port_id: str, attrs: dict[str, Any]
) -> Port:
    port = access.port(session, caller, port_id)
    network = access.network_of(session, port.network_id)
    where = target(port.project_id, network)
    caller.authorize("update_port", where)
    port_attrs.authorize(caller, "update_port", attrs, where)
    for key in COLUMNS:
        if key in attrs:
            setattr(port, key, attrs[key])
    if "mac_address" in attrs:
        _new_mac(session, port, attrs["mac_address"])
    if "fixed_ips" in attrs:
        _refix(session, caller, port, network, attrs["fixed_ips"] or [])
    if "device_owner" in attrs:
        chosen_ips.check_held(port, network)
    _update_security(session, caller, port, attrs)
    if any(key in attrs for key in BINDING):
        for key, column in BINDING.items():
            if key in attrs:
                setattr(port, column, attrs[key] or ({} if key == "binding:profile" else ""))
        binding.bind(session, settings, port, network)
    bumped(port)
    return port


def _update_security(session: Session, caller: Caller, port: Port, attrs: dict[str, Any]) -> None:
    security = attrs.get("port_security_enabled", port.port_security_enabled)
    current = [b.security_group_id for b in port.security_group_bindings]
    if "security_groups" in attrs:
        asked = attrs["security_groups"] or []
        ids = port_attrs.group_ids(session, caller, port.project_id, asked, security, "")
        port.security_group_bindings = port_attrs.group_rows(ids)
    elif current and not security:
        raise errors.PortSecurityPortHasSecurityGroup()
    if "allowed_address_pairs" in attrs:
        _set_pairs(port, attrs["allowed_address_pairs"] or [], security)
    elif port.address_pairs and not security:
        raise errors.AddressPairAndPortSecurityRequired()
    port.port_security_enabled = security


def delete(session: Session, caller: Caller, port_id: str) -> None:
    port = access.port(session, caller, port_id)
    network = access.network_of(session, port.network_id)
    caller.authorize("delete_port", target(port.project_id, network))
    session.delete(port)
