"""bridge_mappings parsing."""

from __future__ import annotations

import pytest

from saphira.network.l2.errors import L2Error
from saphira.network.l2.mappings import parse_bridge_mappings


def test_a_string_or_a_list() -> None:
    expected = {"physnet1": "br-physnet1", "physnet2": "br-vlan"}
    assert parse_bridge_mappings("physnet1:br-physnet1, physnet2:br-vlan") == expected
    assert parse_bridge_mappings(["physnet1:br-physnet1", "physnet2 : br-vlan", ""]) == expected
    assert parse_bridge_mappings("") == {}


@pytest.mark.parametrize(
    ("value", "complaint"),
    [
        ("physnet1", "is not <physical network>:<bridge>"),
        ("physnet1:", "is not"),
        (":br-x", "is not"),
        ("a:b:c", "is not"),
        ("physnet1:br-a,physnet1:br-b", "physnet1 is mapped twice"),
        ("physnet1:br-a,physnet2:br-a", "br-a serves two physical networks"),
        ("physnet1:br-0123456789abcd", "longer than 15 characters"),
    ],
)
def test_bad_mappings_are_named(value: str, complaint: str) -> None:
    with pytest.raises(L2Error, match=complaint):
        parse_bridge_mappings(value)
