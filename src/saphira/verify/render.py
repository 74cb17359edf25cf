"""A report as text for people, or JSON for tools."""

from __future__ import annotations

import json
from collections.abc import Sequence

from saphira.verify.cloud import Health
from saphira.verify.fixes import FIXES
from saphira.verify.model import TITLES, Outcome, Report

MARKS = {Outcome.PASSED: "ok", Outcome.FAILED: "FAILED", Outcome.NEEDS_ADMIN: "--",
         Outcome.NOT_CHECKED: "--"}  # fmt: skip


def report_text(report: Report) -> str:
    lines = [f"verify {report.subject}"]
    for result in report.results:
        note = f"{result.outcome.value}: " if result.outcome is not Outcome.PASSED else ""
        lines.append(f"  {MARKS[result.outcome]:6} {TITLES[result.layer]}: {note}{result.seen}")
    failed = report.failed
    if failed is None:
        lines.append("every layer checked passed")
    else:
        lines.append(f"failed layer: {failed.layer.value}")
        lines.append(f"fix: {FIXES[failed.layer]}")
    return "\n".join(lines)


def report_json(report: Report) -> str:
    failed = report.failed
    return json.dumps({
        "subject": report.subject,
        "layers": [{"layer": r.layer.value, "outcome": r.outcome.value, "seen": r.seen}
                   for r in report.results],
        "failed": failed.layer.value if failed else None,
        "fix": FIXES[failed.layer] if failed else None,
    }, indent=2)  # fmt: skip


def health_text(found: Sequence[Health]) -> str:
    lines = []
    for item in found:
        lines.append(f"{'up' if item.up else 'DOWN':5} {item.kind:10} {item.name} on "
                     f"{item.host}: {item.seen}")  # fmt: skip
        if item.fix:
            lines.append(f"      fix: {item.fix}")
    down = sum(not item.up for item in found)
    lines.append(f"{len(found) - down} up, {down} down")
    return "\n".join(lines)


def health_json(found: Sequence[Health]) -> str:
    return json.dumps([{"kind": h.kind, "name": h.name, "host": h.host, "up": h.up,
                        "seen": h.seen, "fix": h.fix} for h in found], indent=2)  # fmt: skip
