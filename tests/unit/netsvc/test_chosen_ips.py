"""The addresses a port may be given by name: never a subnet's gateway unless it is
the router's or DHCP's port (admins included), outside the pools only for admins
and the network's owner."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.orm import Session

import saphira.conf
from saphira.context import RequestContext
from saphira.db.engine import make_engine
from saphira.db.network import Database, sync
from saphira.db.network.models import AllocationPool, Port, Subnet
from saphira.netsvc import chosen_ips, errors, networks, ports, subnets
from saphira.netsvc.caller import Caller
from saphira.netsvc.ipam import Wanted
from saphira.netsvc.settings import Settings
from saphira.policy import Enforcer

OWNER, OTHER = "p-owner", "p-other"
GATEWAY, IN_POOL, OUT_OF_POOL = "10.0.0.1", "10.0.0.15", "10.0.0.50"


@dataclass
class Net:
    db: Database
    enforcer: Enforcer
    network_id: str

    def caller(self, project: str, *roles: str) -> Caller:
        ctx = RequestContext(user_id=f"u-{project}", project_id=project, roles=roles)
        return Caller(ctx, self.enforcer)

    def create(self, caller: Caller, ip: str, **attrs: Any) -> tuple[str, str]:
        """The new port's id and address."""
        body = {"network_id": self.network_id, "fixed_ips": [{"ip_address": ip}], **attrs}
        with self.db.writer() as session:
            port = ports.create(session, caller, Settings(), body)
            return port.id, port.fixed_ips[0].ip_address

    def update(self, caller: Caller, port_id: str, **attrs: Any) -> None:
        with self.db.writer() as session:
            ports.update(session, caller, Settings(), port_id, attrs)

    def count(self) -> int:
        with self.db.reader() as session:
            return session.query(Port).count()


@pytest.fixture
def net(tmp_path: Path) -> Iterator[Net]:
    """A shared network of p-owner, 10.0.0.0/24 with gateway .1 and one pool .10-.20."""
    engine = make_engine(f"sqlite:///{tmp_path / 'neutron.sqlite'}")
    sync(engine)
    conf = saphira.conf.load(overrides={"DEFAULT": {"state_path": str(tmp_path)}})
    found = Net(Database(engine), Enforcer(conf), "")
    admin = found.caller("p-admin", "admin", "member", "reader")
    with found.db.writer() as session:
        network = networks.create(session, admin, Settings(),
                                  {"project_id": OWNER, "shared": True})  # fmt: skip
        _subnet(session, admin, network.id)
        found.network_id = network.id
    yield found
    engine.dispose()


def _subnet(session: Session, admin: Caller, network_id: str) -> None:
    attrs = {"network_id": network_id, "cidr": "10.0.0.0/24", "ip_version": 4,
             "project_id": OWNER, "gateway_ip": GATEWAY,
             "allocation_pools": [{"start": "10.0.0.10", "end": "10.0.0.20"}]}  # fmt: skip
    subnets.create(session, admin, Settings(), attrs)


@pytest.mark.parametrize("roles", [("admin", "member"), ("member",)])
def test_the_gateway_is_nobodys_but_a_routers_or_dhcps(net: Net, roles: tuple[str, ...]) -> None:
    caller = net.caller(OWNER, *roles)
    for owner in ("", "compute:nova", "network:floatingip"):
        with pytest.raises(errors.InvalidIpForSubnet, match=GATEWAY):
            net.create(caller, GATEWAY, device_owner=owner)
    assert net.count() == 0
    router = net.create(caller, GATEWAY, device_owner="network:router_interface")
    assert router[1] == GATEWAY


def test_dhcp_and_the_router_gateway_may_hold_it() -> None:
    for owner in ("network:dhcp", "network:router_gateway", "network:router_interface",
                  "network:router_interface_distributed"):  # fmt: skip
        assert chosen_ips.may_hold_gateway(owner)
    for owner in ("", "compute:nova", "network:floatingip", "network:routed"):
        assert not chosen_ips.may_hold_gateway(owner)


def test_out_of_pool_addresses_for_the_owner_and_admins(net: Net) -> None:
    assert net.create(net.caller(OWNER, "member"), OUT_OF_POOL)[1] == OUT_OF_POOL
    assert net.create(net.caller("p-admin", "admin"), "10.0.0.51")[1] == "10.0.0.51"


def test_out_of_pool_refused_to_others_even_where_the_policy_lets_them_choose(net: Net) -> None:
    """The policy (create_port:fixed_ips:ip_address) refuses them first; the rule
    holds also where an operator widened it."""
    member = net.caller(OTHER, "member")
    with pytest.raises(errors.PolicyNotAuthorized):
        net.create(member, IN_POOL)
    pool = AllocationPool(position=0, first_ip="10.0.0.10", last_ip="10.0.0.20")
    subnet = Subnet(id="s", cidr="10.0.0.0/24", gateway_ip=GATEWAY, pools=[pool])
    chosen_ips.check_wanted([Wanted((subnet,), IN_POOL), Wanted((subnet,))], "compute:x", False)
    with pytest.raises(errors.InvalidIpForSubnet, match=OUT_OF_POOL):
        chosen_ips.check_wanted([Wanted((subnet,), OUT_OF_POOL)], "compute:x", False)
    chosen_ips.check_wanted([Wanted((subnet,), OUT_OF_POOL)], "compute:x", True)


def test_an_update_cannot_take_the_gateway_nor_keep_it_under_another_owner(net: Net) -> None:
    admin = net.caller("p-admin", "admin", "member")
    port, _ = net.create(admin, IN_POOL)
    with pytest.raises(errors.InvalidIpForSubnet, match=GATEWAY):
        net.update(admin, port, fixed_ips=[{"ip_address": GATEWAY}])
    dhcp, _ = net.create(admin, GATEWAY, device_owner="network:dhcp")
    with pytest.raises(errors.InvalidIpForSubnet, match=GATEWAY):
        net.update(admin, dhcp, device_owner="compute:nova")
    net.update(admin, dhcp, device_owner="network:router_interface")


def test_a_gateway_cannot_move_onto_a_port_that_may_not_hold_it(net: Net) -> None:
    admin = net.caller("p-admin", "admin", "member")
    port, _ = net.create(admin, OUT_OF_POOL)
    net.create(admin, "10.0.0.60", device_owner="network:router_interface")
    with net.db.writer() as session:
        (subnet,) = session.scalars(sa.select(Subnet)).all()
        with pytest.raises(errors.GatewayIpInUse, match=port):
            subnets.update(session, admin, subnet.id, {"gateway_ip": OUT_OF_POOL})
        subnets.update(session, admin, subnet.id, {"gateway_ip": "10.0.0.60"})
