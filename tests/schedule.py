"""How `pytest -n 3 --dist loadgroup` (tools/run-tests) shares the suite out.

loadgroup hands each ``xdist_group`` to one worker as one unit, and every other
test as a unit of its own. A module whose tests share a module-scoped fixture
(a `saphira up`, a deployment, a lab of namespaces) then pays for it on each
worker that gets one of its tests, and again each time it comes back to the
module: so every such module becomes one unit here, named after the module.

The units are also ordered (run-tests passes ``--no-loadscope-reorder`` so
xdist keeps this order): the suite's own serial groups first (libvirt, ovs:
the longest units), then tempest's run, the integration and functional
modules, and last the unit tier, whose single tests even out the
workers' ends. A module keeps its tests together and in their order.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import pytest

# The tiers in the order their units are sent; anything else goes with the last.
TIERS = ("tests/tempest/", "tests/integration/", "tests/functional/")
SHARED_SCOPES = frozenset({"class", "module", "package"})


@dataclass(frozen=True)
class Collected:
    """What the schedule needs of one collected test."""

    nodeid: str
    group: str | None  # its xdist_group, if the test names one
    scopes: frozenset[str]  # the scopes of the fixtures it uses

    @property
    def module(self) -> str:
        return self.nodeid.split("::", 1)[0]


def group_of(test: Collected) -> str | None:
    """The test's own group, else its module's when it shares a fixture with its module."""
    if test.group is not None:
        return test.group
    return test.module if test.scopes & SHARED_SCOPES else None


def rank(test: Collected) -> int:
    """0 for the suite's serial groups, then one rank per tier in TIERS, the rest last."""
    if test.group is not None:
        return 0
    for index, tier in enumerate(TIERS, 1):
        if test.nodeid.startswith(tier):
            return index
    return len(TIERS) + 1


def order(tests: Sequence[Collected]) -> list[int]:
    """Indexes of ``tests`` in sending order: by rank, else as collected (a stable sort)."""
    return sorted(range(len(tests)), key=lambda index: rank(tests[index]))


def scopes(defs: Iterable[Sequence[object]]) -> frozenset[str]:
    """The scopes of fixture definitions (pytest's name2fixturedefs values)."""
    return frozenset(str(getattr(found, "scope", "function")) for each in defs for found in each)


def _described(item: pytest.Item) -> Collected:
    mark = item.get_closest_marker("xdist_group")
    group = None if mark is None else str(mark.kwargs.get("name", (*mark.args, "default")[0]))
    info = getattr(item, "_fixtureinfo", None)  # pytest's FuncFixtureInfo (Function items)
    defs = [] if info is None else info.name2fixturedefs.values()
    return Collected(item.nodeid, group, scopes(defs))


def arrange(items: list[pytest.Item]) -> None:
    """Group the modules that share a fixture and put ``items`` in sending order, in place."""
    tests = [_described(item) for item in items]
    for item, test in zip(items, tests, strict=True):
        group = group_of(test)
        if group is not None and test.group is None:
            item.add_marker(pytest.mark.xdist_group(name=group))
    items[:] = [items[index] for index in order(tests)]
