"""Which actions a row offers: exactly what the domain's transition table accepts."""

from __future__ import annotations

import itertools

import pytest

from saphira.dashboard.actions import OFFERS, offered
from saphira.dashboard.rows import Address, addresses, power_label
from saphira.domain.states import TaskState, VmState
from saphira.domain.transitions import allowed


def _names(
    vm: str, task: str | None = None, *, launched: bool = True, locked: bool = False
) -> list[str]:
    return [o.name for o in offered(vm, task, launched=launched, locked=locked)]


@pytest.mark.parametrize(
    ("vm", "task", "launched", "expected"),
    [
        ("active", None, True, ["stop", "reboot", "rebuild", "delete"]),
        ("stopped", None, True, ["start", "rebuild", "delete"]),
        ("building", "scheduling", False, ["delete"]),
        ("active", "powering-off", True, ["delete"]),
        ("error", None, False, ["delete"]),  # never launched: nothing to rebuild or start
        ("error", None, True, ["stop", "rebuild", "delete"]),  # as Nova: stop from ERROR
    ],
)
def test_offers_by_state(vm: str, task: str | None, launched: bool, expected: list[str]) -> None:
    assert _names(vm, task, launched=launched) == expected


def test_a_locked_instance_offers_nothing_the_lock_stops() -> None:
    assert _names("active", locked=True) == []


def test_a_state_the_domain_does_not_know_offers_nothing() -> None:
    assert _names("melting") == [] and _names("active", "dancing") == []


def test_only_rebuild_and_delete_ask_for_a_confirmation_saying_what_is_lost() -> None:
    confirmed = {o.name: o.warning for o in OFFERS if o.confirmed}
    assert set(confirmed) == {"rebuild", "delete"}
    assert "replaces the root disk" in confirmed["rebuild"]
    assert "ephemeral storage" in confirmed["delete"]


def test_every_offer_follows_the_table_in_every_state() -> None:
    for vm, task in itertools.product(VmState, [None, *TaskState]):
        shown = {o.action for o in offered(vm, task, launched=True, locked=False)}
        for offer in OFFERS:
            assert (offer.action in shown) == allowed(offer.action, vm, task), (offer, vm, task)


def test_a_rows_addresses_are_listed_by_network_with_their_kind() -> None:
    raw = {
        "net-b": [{"addr": "10.0.0.5", "version": 4, "OS-EXT-IPS:type": "fixed"}],
        "net-a": [
            {"addr": "192.0.2.7", "version": 4, "OS-EXT-IPS:type": "fixed"},
            {"addr": "203.0.113.9", "version": 4, "OS-EXT-IPS:type": "floating"},
        ],
    }
    assert addresses(raw) == (
        Address("net-a", "192.0.2.7", "fixed"),
        Address("net-a", "203.0.113.9", "floating"),
        Address("net-b", "10.0.0.5", "fixed"),
    )
    assert addresses(None) == () and addresses({"net": []}) == ()


@pytest.mark.parametrize(("raw", "label"), [(1, "running"), (4, "shutdown"), (0, "pending"),
                                            (None, "unknown"), ("x", "unknown")])  # fmt: skip
def test_power_states_are_nova_words(raw: object, label: str) -> None:
    assert power_label(raw) == label
