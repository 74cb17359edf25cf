"""Address arithmetic: pools around gateways, bounds, EUI-64."""

from __future__ import annotations

import ipaddress

import pytest

from saphira.exception import BadRequest
from saphira.netsvc import addresses, errors
from saphira.netsvc.addresses import Pool


def _pool(first: str, last: str) -> Pool:
    return Pool(ipaddress.ip_address(first), ipaddress.ip_address(last))


def test_default_pools() -> None:
    net = ipaddress.ip_network("10.0.0.0/29")
    assert addresses.default_pools(net, ipaddress.ip_address("10.0.0.1")) == [
        _pool("10.0.0.2", "10.0.0.6")
    ]
    assert addresses.default_pools(net, ipaddress.ip_address("10.0.0.6")) == [
        _pool("10.0.0.1", "10.0.0.5")
    ]
    assert addresses.default_pools(net, None) == [_pool("10.0.0.1", "10.0.0.6")]
    assert addresses.default_pools(ipaddress.ip_network("10.0.0.0/31"), None) == []
    v6 = ipaddress.ip_network("fd00::/126")
    assert addresses.default_pools(v6, ipaddress.ip_address("fd00::1")) == [
        _pool("fd00::2", "fd00::3")
    ]


def test_pool_checks() -> None:
    net = ipaddress.ip_network("10.0.0.0/24")
    with pytest.raises(errors.OutOfBoundsAllocationPool):
        addresses.check_pools(net, [_pool("10.0.0.0", "10.0.0.5")], None)
    with pytest.raises(errors.OutOfBoundsAllocationPool):
        addresses.check_pools(net, [_pool("10.0.0.250", "10.0.0.255")], None)
    with pytest.raises(errors.InvalidAllocationPool):
        addresses.check_pools(net, [_pool("10.0.0.9", "fd00::1")], None)
    addresses.check_pools(
        net, [_pool("10.0.0.2", "10.0.0.9"), _pool("10.0.0.10", "10.0.0.20")], None
    )


def test_free_walks_lazily_past_taken_addresses() -> None:
    huge = [_pool("fd00::1", "fd00::ffff:ffff:ffff:ffff")]
    assert addresses.free(huge, {"fd00::1", "fd00::3"}, 2) == ["fd00::2", "fd00::4"]


def test_cidr_parsing_and_eui64() -> None:
    with pytest.raises(BadRequest, match="recommended CIDR"):
        addresses.parse_cidr("10.0.0.1/24")
    with pytest.raises(BadRequest, match="not a valid IP subnet"):
        addresses.parse_cidr("10.0.0/33")
    net = ipaddress.ip_network("2001:db8::/64")
    assert addresses.eui64(net, "fa:16:3e:11:22:33") == "2001:db8::f816:3eff:fe11:2233"
