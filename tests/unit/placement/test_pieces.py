"""Microversion parsing, query syntax and the capacity rule."""

from __future__ import annotations

import pytest

from saphira import exception
from saphira.api.placement import microversion, query
from saphira.placement.capacity import Room
from saphira.placement.errors import QueryBadValue


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, "1.0"),
        ("placement 1.28", "1.28"),
        ("compute 2.1, placement 1.12", "1.12"),
        ("placement latest", "1.36"),
        ("compute 2.90", "1.0"),
    ],
)
def test_microversion_parse(header: str | None, expected: str) -> None:
    assert str(microversion.parse(header)) == expected


def test_microversion_errors() -> None:
    with pytest.raises(exception.BadRequest):
        microversion.parse("placement 1.02x")
    with pytest.raises(microversion.NotAcceptable):
        microversion.parse("placement 1.999")


def test_resources_and_traits_syntax() -> None:
    assert query.resources("VCPU:2,MEMORY_MB:512") == {"VCPU": 2, "MEMORY_MB": 512}
    for bad in ("VCPU", "VCPU:-1", "VCPU:0", "VCPU:1,VCPU:2", "vcpu:1"):
        with pytest.raises(QueryBadValue):
            query.resources(bad)
    assert query.traits("A_B,!C", forbidden_ok=True) == ({"A_B"}, {"C"})
    with pytest.raises(QueryBadValue):
        query.traits("!C", forbidden_ok=False)
    with pytest.raises(QueryBadValue):
        query.traits("A,!A", forbidden_ok=True)


def test_member_of_syntax() -> None:
    a, b = "5f0e2a9e-6f3b-4b51-8a3d-0f6f4f8e2c11", "0b1e0c3a-2d5e-4f6a-9b7c-8d9e0f1a2b3c"
    groups, forbidden = query.member_of([f"in:{a},{b}", f"!{b}"], forbidden_ok=True)
    assert groups == [{a, b}] and forbidden == {b}
    with pytest.raises(QueryBadValue):
        query.member_of(["not-a-uuid"], forbidden_ok=False)


def test_capacity_rule() -> None:
    room = Room(
        total=10, reserved=2, min_unit=2, max_unit=6, step_size=2, allocation_ratio=1.5, used=8
    )
    assert room.capacity == 12
    assert room.refusal(4) is None
    assert room.refusal(6) is not None  # 8 + 6 > 12
    assert room.refusal(1) is not None  # below min_unit
    assert room.refusal(3) is not None  # not a step
    assert Room(4, 0, 1, 8, 1, 1.0, 0).refusal(8) is not None  # over capacity
