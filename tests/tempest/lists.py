"""The test lists kept in the repo: which tempest tests run, which may skip, which wait.

include-list.txt names every test of the acceptance set; a ``# skip: reason``
comment on a line is the only way a test may be skipped. pending.txt names
tests of that set that cannot pass yet, each with its reason; they are left
out of the run (and printed) until their line is removed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).parent
INCLUDE_LIST = HERE / "include-list.txt"
PENDING_LIST = HERE / "pending.txt"
SKIP_MARK = "# skip:"


@dataclass
class TestLists:
    """Listed test ids in file order, the allowed skip reasons and the pending reasons."""

    listed: list[str] = field(default_factory=list)
    may_skip: dict[str, str] = field(default_factory=dict)
    pending: dict[str, str] = field(default_factory=dict)

    @property
    def to_run(self) -> list[str]:
        return [test for test in self.listed if test not in self.pending]

    def include_regexes(self) -> list[str]:
        """stestr filters for the run: each id exactly, with or without tempest's [attrs]."""
        return [f"^{re.escape(test)}(\\[.*\\])?$" for test in self.to_run]


def _entries(path: Path) -> list[tuple[str, str]]:
    """(test id, comment text) for every non-comment line."""
    entries = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        test, _, comment = line.partition("#")
        entries.append((test.strip(), comment.strip()))
    return entries


def load(include: Path = INCLUDE_LIST, pending: Path = PENDING_LIST) -> TestLists:
    """Both files parsed; ValueError for a duplicate, a reasonless entry or a stray pending id."""
    lists = TestLists()
    for test, comment in _entries(include):
        if test in lists.listed:
            raise ValueError(f"{include.name}: {test} is listed twice")
        lists.listed.append(test)
        if comment.startswith(SKIP_MARK[2:]):
            reason = comment[len(SKIP_MARK) - 2 :].strip()
            if not reason:
                raise ValueError(f"{include.name}: {test} may skip but says not why")
            lists.may_skip[test] = reason
    for test, reason in _entries(pending):
        if test not in lists.listed:
            raise ValueError(f"{pending.name}: {test} is not in {include.name}")
        if not reason:
            raise ValueError(f"{pending.name}: {test} has no reason")
        lists.pending[test] = reason
    return lists
