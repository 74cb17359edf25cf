"""Contract: in the compute agent, only ``compute/tracked.py`` opens, closes or
fails an action event or records a fault.

This test reads every module of ``saphira.compute`` (ast, no import) and names
each call of a conductor method that does one of those (an event opened or
closed, an action finished or failed with its event, a fault written, a system
event given a fault or a failed event) outside ``tracked.py``. The build keeps
its own three reports (``build.py``: the conductor's build conversation,
which closes its event with its finish or failure), so only those two of its
calls are allowed there.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

import saphira.compute

COMPUTE = Path(saphira.compute.__file__).parent
REPORTS = frozenset({
    "action_event_start", "action_event_finish", "instance_fail", "instance_finish",
    "instance_fault_create", "build_failed",
})  # fmt: skip
TRACKED = "tracked.py"
ALLOWED = {"build.py": frozenset({"instance_finish", "build_failed"})}


def _reports(tree: ast.AST) -> Iterator[tuple[int, str]]:
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        name = node.func.attr
        if name in REPORTS:
            yield node.lineno, name
        keywords = {keyword.arg for keyword in node.keywords}
        if name == "instance_event" and keywords & {"fault", "failed_event"}:
            yield node.lineno, "instance_event with a fault"


def escapes(source: str, module: str) -> list[str]:
    """Each report ``source`` (compute/``module``) makes outside the tracked action."""
    if module == TRACKED:
        return []
    allowed = ALLOWED.get(module, frozenset())
    found = _reports(ast.parse(source, filename=module))
    return [f"compute/{module}:{line}: {name}" for line, name in found if name not in allowed]


def test_only_the_tracked_action_records_failures_and_events() -> None:
    found: list[str] = []
    for path in sorted(COMPUTE.rglob("*.py")):
        found += escapes(path.read_text(encoding="utf-8"), path.relative_to(COMPUTE).as_posix())
    assert found == [], "\n".join(found)


@pytest.mark.parametrize(
    ("source", "module", "expected"),
    [
        # The copies this contract replaced, as they were.
        ("self.conductor.action_event_start(ctxt, uuid, event, self.host)", "manager.py", 1),
        ("self.conductor.instance_fail(ctxt, uuid, action, fault, event=event)", "resize.py", 1),
        ("self.conductor.instance_event(c, u, Event.MOVE_ERROR, s, fault=f, failed_event=e)",
         "resize.py", 1),
        ("self.conductor.action_event_finish(c, u, e, 'Error', details=r)", "interfaces.py", 1),
        ("self.conductor.instance_finish(c, u, a, {}, event=e)", "resize.py", 1),
        ("self.conductor.build_failed(ctxt, fault)", "manager.py", 1),
        # What stays allowed: the tracked action, the build's reports, a power event.
        ("self.conductor.instance_fail(c, u, a, f, event=e)", "tracked.py", 0),
        ("self.conductor.build_failed(ctxt, fault)", "build.py", 0),
        ("self.conductor.action_event_start(ctxt, uuid, event, self.host)", "build.py", 1),
        ("m.conductor.instance_event(c, u, decision.event, vm, power=p)", "reconcile.py", 0),
    ],
)  # fmt: skip
def test_each_kind_of_report_is_caught(source: str, module: str, expected: int) -> None:
    assert len(escapes(source, module)) == expected
