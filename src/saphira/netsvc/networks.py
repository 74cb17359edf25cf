"""Networks: create with a segment, update what Neutron lets change, delete when unused."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.db.network.models import Network, Port
from saphira.netsvc import access, errors, quotas, secgroups, segments
from saphira.netsvc.caller import Caller, target
from saphira.netsvc.settings import Settings
from saphira.netsvc.stamps import bumped, created, new_id

DHCP_OWNER = "network:dhcp"
ADMIN_FLAGS = {"shared": False, "router:external": False}  # attribute -> its default


def _check_mtu(settings: Settings, mtu: int) -> int:
    if mtu > settings.global_mtu:
        raise errors.InvalidInput(
            error_message=f"Requested MTU is too big, maximum is {settings.global_mtu}"
        )
    return mtu


def create(session: Session, caller: Caller, settings: Settings, attrs: dict[str, Any]) -> Network:
    project = caller.owner_for(attrs.get("project_id"))
    where = target(project)
    caller.authorize("create_network", where)
    for key, default in ADMIN_FLAGS.items():
        if attrs.get(key, default) != default:
            caller.authorize(f"create_network:{key}", where)
    for key in segments.KEYS:
        if attrs.get(key) is not None:
            caller.authorize(f"create_network:{key}", where)
    quotas.check(session, settings, project, "network")
    network = Network(
        id=new_id(),
        project_id=project,
        name=attrs.get("name", ""),
        status="ACTIVE",
        admin_state_up=attrs.get("admin_state_up", True),
        shared=attrs.get("shared", False),
        external=attrs.get("router:external", False),
        mtu=_check_mtu(settings, attrs.get("mtu") or settings.global_mtu),
        port_security_enabled=attrs.get("port_security_enabled", True),
    )
    created(network, attrs.get("description", ""))
    session.add(network)
    session.flush()  # the segment's savepoint must not hold the network row
    segments.create(session, settings, network.id, segments.Provider.of(attrs))
    session.expire(network, ["segment"])
    secgroups.ensure_default(session, project)
    return network


def update(
    session: Session, caller: Caller, settings: Settings, net_id: str, attrs: dict[str, Any]
) -> Network:
    network = access.network(session, caller, net_id)
    where = target(network.project_id)
    caller.authorize("update_network", where)
    if any(key in attrs for key in segments.KEYS):
        raise errors.InvalidInput(
            error_message="Plugin does not support updating provider attributes"
        )
    for key in ADMIN_FLAGS:
        if key in attrs:
            caller.authorize(f"update_network:{key}", where)
    if network.shared and attrs.get("shared") is False:
        _check_unshare(session, network)
    for key in ("name", "description", "admin_state_up", "port_security_enabled", "shared"):
        if key in attrs:
            setattr(network, key, attrs[key])
    if "router:external" in attrs:
        network.external = attrs["router:external"]
    if "mtu" in attrs:
        network.mtu = _check_mtu(settings, attrs["mtu"])
    bumped(network)
    return network


def _check_unshare(session: Session, network: Network) -> None:
    others = session.scalar(
        sa.select(sa.func.count()).where(
            Port.network_id == network.id,
            Port.project_id != network.project_id,
            Port.device_owner != DHCP_OWNER,
        )
    )
    if others:
        raise errors.InvalidSharedSetting(network=network.name or network.id)


def delete(session: Session, caller: Caller, net_id: str) -> None:
    """Subnets and the DHCP ports go with the network; any other port keeps it."""
    network = access.network(session, caller, net_id)
    caller.authorize("delete_network", target(network.project_id))
    ports = session.scalars(sa.select(Port).where(Port.network_id == network.id)).all()
    if any(port.device_owner != DHCP_OWNER for port in ports):
        raise errors.NetworkInUse(net_id=net_id)
    for port in ports:
        session.delete(port)
    session.flush()
    session.delete(network)


def by_name(session: Session, name: str) -> Network | None:
    """The first network called ``name``, whoever owns it (for bootstrap, not for callers)."""
    return session.scalars(sa.select(Network).where(Network.name == name)).first()
