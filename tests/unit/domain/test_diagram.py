"""docs/states.md is the transition table rendered, never a copy that drifts."""

from __future__ import annotations

from pathlib import Path

from saphira.domain import diagram
from saphira.domain.states import VmState
from saphira.domain.table import SAME, SYSTEM, TABLE, Event

PAGE = Path(__file__).resolve().parents[3] / "docs" / "states.md"


def _edges() -> dict[tuple[str, str], str]:
    found: dict[tuple[str, str], str] = {}
    for line in diagram.mermaid():
        if "-->" in line:
            pair, _, labels = line.strip().partition(":")
            start, end = (part.strip() for part in pair.split("-->"))
            found[(start, end)] = labels.strip()
    return found


def test_docs_states_md_is_the_table_rendered() -> None:
    regenerate = "python -m saphira.domain.diagram docs/states.md"
    assert PAGE.read_text(encoding="utf-8") == diagram.render(), f"run: {regenerate}"


def test_the_command_writes_the_page(tmp_path: Path) -> None:
    target = tmp_path / "states.md"
    assert diagram.main([str(target)]) == 0
    assert target.read_text(encoding="utf-8") == diagram.render()
    assert diagram.main([]) == 2


def test_every_move_between_reachable_states_is_an_edge() -> None:
    edges = _edges()
    reached = {state for pair in edges for state in pair}
    for event in SYSTEM.values():
        for start in event.vm_states:
            end = start if event.vm_state is SAME else event.vm_state
            if start != end and start.value in reached:
                assert f"({event.event})" in edges[(start.value, end.value)], (event, start)
    for rule in TABLE.values():
        for start, target in rule.success.items():
            if isinstance(target, VmState) and start != target and start.value in reached:
                assert str(rule.action) in edges[(start.value, target.value)], rule.action


def test_the_page_shows_each_system_event_once_in_its_table() -> None:
    page = diagram.render()
    for event in Event:
        assert sum(line.startswith(f"| {event} |") for line in page.splitlines()) == 1
    assert "soft-delete" not in "".join(diagram.mermaid())  # no action reaches it here
