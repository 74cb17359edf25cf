"""The transition table as a page: a mermaid state diagram of the vm_states and
a table per kind of row (API actions, system events).

``python -m saphira.domain.diagram docs/states.md`` writes it; a unit test
renders it again and fails when the file differs, so the page cannot drift
from ``saphira.domain.table``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

from saphira.domain.states import TaskState, VmState
from saphira.domain.table import OBSERVED, PRIOR, SAME, SYSTEM, TABLE, Action, Prior, Rule
from saphira.domain.transitions import INITIAL_VM_STATE

START = "[*]"
_PRIORS = (VmState.ACTIVE, VmState.STOPPED)  # where a resize may have started from

HEADER = """# Instance states

Generated from `saphira.domain.table` by `python -m saphira.domain.diagram
docs/states.md`; `tests/unit/domain/test_diagram.py` fails when this page
differs from the table, so edit the table, not the page.

Every change of an instance's `vm_state`, `task_state` or `power_state` is a
row below: an API action (the API checks and starts it, the agent walks its
steps, the conductor finishes or fails it) or a system event (what the
services do on their own). Each is one compare-and-swap
(`saphira.db.cell.instances.apply`); `tests/unit/domain/test_state_writes.py`
keeps the code to that. The diagram shows the vm_states an instance can reach
from its creation; an edge in parentheses is a system event, and an action
that leaves the vm_state where it was is only in the tables.
"""


def _id(state: VmState) -> str:
    return state.value.replace("-", "_")


def _edges() -> dict[tuple[str, str], list[str]]:
    edges: dict[tuple[str, str], list[str]] = {}

    def add(start: str, end: str, label: str) -> None:
        if start != end and label not in edges.setdefault((start, end), []):
            edges[(start, end)].append(label)

    add(START, _id(INITIAL_VM_STATE), TABLE[Action.BUILD].recorded_as)
    for rule in TABLE.values():
        starts = rule.vm_states or {INITIAL_VM_STATE}
        for start in sorted(starts):
            target = rule.success.get(start, start)
            for end in _PRIORS if target is PRIOR else (target,):
                assert isinstance(end, VmState)
                add(_id(start), _id(end), str(rule.action))
            if rule.failure is not SAME:
                add(_id(start), _id(rule.failure), f"{rule.action} fails")
    for event in SYSTEM.values():
        for start in sorted(event.vm_states):
            end = start if event.vm_state is SAME else event.vm_state
            add(_id(start), _id(end), f"({event.event})")
    return edges


def _reachable(edges: Iterable[tuple[str, str]]) -> set[str]:
    seen, todo = {START}, [START]
    pairs = list(edges)
    while todo:
        here = todo.pop()
        for start, end in pairs:
            if start == here and end not in seen:
                seen.add(end)
                todo.append(end)
    return seen


def mermaid() -> Iterator[str]:
    edges = _edges()
    reached = _reachable(edges)
    yield "```mermaid"
    yield "stateDiagram-v2"
    for state in VmState:
        if _id(state) in reached and _id(state) != state.value:
            yield f'    state "{state.value}" as {_id(state)}'
    for (start, end), labels in edges.items():
        if start in reached:
            yield f"    {start} --> {end}: {', '.join(labels)}"
    yield f"    {_id(VmState.DELETED)} --> {START}"
    yield "```"


_ANY_VM = frozenset(VmState) - {VmState.DELETED}
_ANY_TASK = frozenset({None, *TaskState})


def _states(states: Iterable[VmState | TaskState | None]) -> str:
    given = frozenset(states)
    if given in (_ANY_VM, _ANY_TASK):
        return "any"
    names = sorted("(none)" if state is None else state.value for state in given)
    return ", ".join(names) if names else "—"


def _success(rule: Rule) -> str:
    def name(target: VmState | Prior) -> str:
        return "the prior vm_state" if target is PRIOR else target.value

    landings = set(rule.success.values())
    if len(landings) == 1:
        return name(landings.pop())
    moved = [f"{start.value} → {name(end)}" for start, end in rule.success.items() if end != start]
    return ", ".join([*moved, "others unchanged"]) if moved else "unchanged"


def actions() -> Iterator[str]:
    yield "| action | recorded as | from vm_state | from task_state | steps | success | failure |"
    yield "|---|---|---|---|---|---|---|"
    for rule in TABLE.values():
        failure = "unchanged" if rule.failure is SAME else rule.failure.value
        starts = _states(rule.vm_states) if rule.vm_states else "(new row)"
        tasks = _states(rule.task_states) if rule.vm_states else "—"
        steps = " → ".join(step.value for step in rule.steps) or "—"
        yield (
            f"| {rule.action} | {rule.recorded_as} | {starts} | {tasks} | {steps} "
            f"| {_success(rule)} | {failure} |"
        )


def events() -> Iterator[str]:
    yield "| event | raised by | from vm_state | from task_state | vm_state | task_state | power |"
    yield "|---|---|---|---|---|---|---|"
    for row in SYSTEM.values():
        vm = "unchanged" if row.vm_state is SAME else row.vm_state.value
        task = "(none)" if row.task_state is None else row.task_state.value
        power = (
            "unchanged" if row.power is None
            else "as reported" if row.power is OBSERVED else row.power.name.lower()
        )  # fmt: skip
        yield (
            f"| {row.event} | {row.by} | {_states(row.vm_states)} "
            f"| {_states(row.task_states)} | {vm} | {task} | {power} |"
        )


def render() -> str:
    parts = [HEADER, *mermaid(), "", "## API actions", "", *actions(), "",
             "## System events", "", *events()]  # fmt: skip
    return "\n".join(parts) + "\n"


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m saphira.domain.diagram docs/states.md", file=sys.stderr)
        return 2
    Path(argv[0]).write_text(render(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
