"""Contract: an instance's vm_state, task_state and power_state change only
through the transition table.

The one door is ``saphira.db.cell.instances.apply(session, uuid, transition)``
with a ``Transition`` made by ``saphira.domain.transitions`` from a row of
``domain.table`` (an API action or a system event); ``instances.update``
refuses the state columns at run time. This test reads every module of
``saphira`` (ast, no import) and names each line that goes around the door:

* a call of ``save_state`` (the raw compare-and-swap) outside its module;
* a ``Transition(...)`` built outside ``domain/transitions.py``;
* a state keyword (``vm_state=``, ``task_state=``, ``power_state=``) whose value
  is not copied from an attribute of the same name (``move.vm_state``) or the
  table's birth state (``transitions.INITIAL_*``): a literal state decided
  on the spot;
* an assignment to an attribute named like a state column;
* a "vm_state" or "task_state" string key in a dict display or a subscript
  store (an RPC ``updates`` dict carrying a state);
* an SQL ``update()`` of the instances table outside its repository;
* a parameter named ``expected_vm_states``/``expected_task_states`` (a
  caller-chosen compare-and-swap) outside the repository.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

import saphira

SRC = Path(saphira.__file__).parent
STATES = frozenset({"vm_state", "task_state", "power_state"})
# Where a state is legitimately named without being written around the table.
EXEMPT = {
    # The table, its transitions and the rules that decide states.
    "domain/": "the table itself",
    # Row <-> object mapping of the instances repository (reads and the insert).
    "db/cell/instance_rows.py": "row mapping",
    # A fake hypervisor's own record of its guest's power, not the instance's.
    "virt/fake/": "the fake hypervisor's guest",
    # What the dashboard shows of a server the API returned: a client's display, which
    # can write nothing (import-linter keeps it off the databases and the services).
    "dashboard/": "a client's view of the API's answer",
}
READ_ONLY_KEYS = {
    # GET /servers sort keys: column names to read, never to write.
    "api/compute/server_listing.py",
}


def _exempt(relative: str) -> bool:
    return any(relative.startswith(prefix) for prefix in EXEMPT)


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _copied(keyword: str, value: ast.expr) -> bool:
    """``vm_state=move.vm_state`` copies; ``vm_state=transitions.INITIAL_VM_STATE`` is birth."""
    if isinstance(value, ast.Attribute) and value.attr == keyword:
        return True
    return _name(value).startswith("INITIAL_")


def _call_escapes(node: ast.Call, relative: str) -> Iterator[str]:
    called = _name(node.func)
    repository = relative == "db/cell/instances.py"
    if called == "save_state" and not repository:
        yield "calls the raw save_state"
    if called == "Transition" and relative != "domain/transitions.py":
        yield "builds a Transition outside domain/transitions.py"
    updates_instances = called == "update" and node.args and _name(node.args[0]) == "Instance"
    if updates_instances and not repository:
        yield "UPDATEs the instances table outside its repository"
    for keyword in node.keywords:
        if keyword.arg in STATES and not _copied(keyword.arg, keyword.value):
            yield f"passes {keyword.arg}= a state it decided itself"


def _key_escapes(node: ast.AST) -> Iterator[str]:
    keys: list[ast.expr | None] = []
    if isinstance(node, ast.Dict):
        keys = list(node.keys)
    elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
        keys = [node.slice]
    for key in keys:
        if isinstance(key, ast.Constant) and key.value in ("vm_state", "task_state"):
            yield f'carries a "{key.value}" key'


def _other_escapes(node: ast.AST, relative: str) -> Iterator[str]:
    stored = isinstance(getattr(node, "ctx", None), ast.Store)
    if isinstance(node, ast.Attribute) and stored and node.attr in STATES:
        yield f"assigns .{node.attr}"
    if not isinstance(node, ast.arg) or relative == "db/cell/instances.py":
        return
    if node.arg.startswith("expected_") and node.arg[9:].removesuffix("s") in STATES:
        yield f"takes a caller-chosen {node.arg}"


def _escapes_in(tree: ast.AST, relative: str) -> Iterator[tuple[int, str]]:
    for node in ast.walk(tree):
        found = list(_other_escapes(node, relative))
        if isinstance(node, ast.Call):
            found += _call_escapes(node, relative)
        if relative not in READ_ONLY_KEYS:
            found += _key_escapes(node)
        yield from ((getattr(node, "lineno", 0), text) for text in found)


def escapes(source: str, relative: str) -> list[str]:
    """Every way ``source`` (the module at ``relative`` under saphira/) goes around the table."""
    if _exempt(relative):
        return []
    tree = ast.parse(source, filename=relative)
    found = sorted(_escapes_in(tree, relative))
    return [f"saphira/{relative}:{line}: {text}" for line, text in found]


def test_no_module_writes_a_state_around_the_table() -> None:
    found: list[str] = []
    for path in sorted(SRC.rglob("*.py")):
        relative = path.relative_to(SRC).as_posix()
        found += escapes(path.read_text(encoding="utf-8"), relative)
    assert found == [], "\n".join(found)


@pytest.mark.parametrize(
    ("source", "relative", "expected"),
    [
        # The escapes this contract was written against (as they were before).
        ("instances.save_state(s, u, VmState.BUILDING, steps, vm_state=VmState.ERROR)",
         "conductor/watchdog.py", ["raw save_state", "vm_state= a state"]),
        ("conductor.instance_save_state(c, u, ['active'], [None], {'vm_state': 'error'})",
         "compute/reconcile.py", ['"vm_state" key']),
        ("updates['task_state'] = None", "compute/resize.py", ['"task_state" key']),
        ("failed = dataclasses.replace(instance, vm_state=VmState.ERROR, task_state=None)",
         "conductor/build.py", ["vm_state= a state", "task_state= a state"]),
        ("row.vm_state = 'error'", "api/compute/servers.py", ["assigns .vm_state"]),
        ("Transition(frozenset(), frozenset(), VmState.ERROR, None)", "conductor/records.py",
         ["builds a Transition"]),
        ("s.execute(sa.update(models.Instance).values(power_state=0))", "conductor/x.py",
         ["UPDATEs the instances table", "power_state= a state"]),
        ("def raw(expected_vm_states: list[str]) -> None: ...", "rpc/rpcapi/conductor.py",
         ["caller-chosen expected_vm_states"]),
        # What the table path looks like: no escape.
        ("instances.apply(s, u, transitions.system(Event.HOST_DOWN, vm), method='x')",
         "conductor/watchdog.py", []),
        ("dataclasses.replace(i, vm_state=move.vm_state, task_state=move.task_state)",
         "conductor/build.py", []),
        ("dataclasses.replace(i, vm_state=transitions.INITIAL_VM_STATE)", "conductor/build.py",
         []),
        ("updates['power_state'] = int(power)", "compute/manager.py", []),
        ("guest.power_state = power", "virt/fake/driver.py", []),
    ],
)  # fmt: skip
def test_each_kind_of_escape_is_caught(source: str, relative: str, expected: list[str]) -> None:
    found = escapes(source, relative)
    assert len(found) == len(expected), found
    assert all(any(wanted in text for text in found) for wanted in expected), found
