"""Which actions a row offers: exactly what the domain's transition table accepts."""

from __future__ import annotations

import itertools

import pytest

from saphira.dashboard.actions import OFFERS, offered
from saphira.dashboard.rows import Address, addresses, power_label
from saphira.domain.states import TaskState, VmState
from saphira.domain.transitions import allowed, rule

ACTIVE = ("stop", "reboot", "pause", "suspend", "resize", "snapshot", "lock", "rebuild", "delete")


def _names(
    vm: str, task: str | None = None, *, launched: bool = True, locked: bool = False
) -> list[str]:
    return [o.name for o in offered(vm, task, launched=launched, locked=locked)]


@pytest.mark.parametrize(
    ("vm", "task", "launched", "expected"),
    [
        (
            "active",
            None,
            True,
            [
                "stop",
                "reboot",
                "pause",
                "suspend",
                "resize",
                "snapshot",
                "lock",
                "rebuild",
                "delete",
            ],
        ),
        ("stopped", None, True, ["start", "resize", "snapshot", "lock", "rebuild", "delete"]),
        ("paused", None, True, ["unpause", "snapshot", "lock", "delete"]),
        ("suspended", None, True, ["resume", "snapshot", "lock", "delete"]),
        ("resized", None, True, ["confirm_resize", "revert_resize", "lock", "delete"]),
        ("building", "scheduling", False, ["lock", "delete"]),
        ("active", "powering-off", True, ["lock", "delete"]),
        ("active", "resize_migrating", True, ["lock", "delete"]),
        ("error", None, False, ["lock", "delete"]),  # never launched: nothing to rebuild
        ("error", None, True, ["stop", "lock", "rebuild", "delete"]),  # as Nova: stop it
    ],
)
def test_offers_by_state(vm: str, task: str | None, launched: bool, expected: list[str]) -> None:
    assert _names(vm, task, launched=launched) == expected


def test_a_locked_instance_offers_only_what_the_lock_does_not_stop() -> None:
    assert _names("active", locked=True) == ["snapshot", "unlock"]  # createImage: as Nova
    assert _names("building", "scheduling", launched=False, locked=True) == ["unlock"]


def test_a_state_the_domain_does_not_know_offers_nothing() -> None:
    assert _names("melting") == [] and _names("active", "dancing") == []


def test_what_loses_something_asks_first_saying_what_is_lost() -> None:
    confirmed = {o.name: o.warning for o in OFFERS if o.confirmed}
    assert set(confirmed) == {"rebuild", "delete", "confirm_resize", "revert_resize"}
    assert "replaces the root disk" in confirmed["rebuild"]
    assert "ephemeral storage" in confirmed["delete"]
    assert "can no longer go back" in confirmed["confirm_resize"]
    assert "written since the resize began is lost" in confirmed["revert_resize"]
    assert {o.name: o.form for o in OFFERS if o.form} == {
        "resize": "resize", "snapshot": "snapshot"}  # fmt: skip


def test_the_lock_offers_the_one_that_changes_something() -> None:
    assert "lock" in _names("active") and "unlock" not in _names("active")
    assert "unlock" in _names("stopped", locked=True)
    assert "lock" not in _names("stopped", locked=True)


def test_every_offer_follows_the_table_in_every_state() -> None:
    for vm, task, locked in itertools.product(VmState, [None, *TaskState], (False, True)):
        shown = {o.action for o in offered(vm, task, launched=True, locked=locked)}
        for offer in OFFERS:
            expected = allowed(offer.action, vm, task) and offer.locked in (None, locked)
            if locked and rule(offer.action).lock_checked:
                expected = False
            assert (offer.action in shown) == expected, (offer, vm, task, locked)


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
