"""Judge a tempest run against the lists: what passed, what failed, what is owed."""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from tests.tempest.lists import TestLists
from tests.tempest.runner import Outcome, RunResult

PASSED = ("success", "xfail")
# Where the runs write their verdicts for notes to quote (ignored by git).
RESULTS = Path(os.environ.get("SAPHIRA_TEST_RESULTS", Path(__file__).parents[2] / "test-results"))


@dataclass
class Verdict:
    counts: Counter[str] = field(default_factory=Counter)
    passed_by_api: Counter[str] = field(default_factory=Counter)  # compute, identity, ...
    problems: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)


def _api(test: str) -> str:
    """tempest.api.<api>.…: the API a test exercises."""
    parts = test.split(".")
    return parts[2] if len(parts) > 3 and parts[1] == "api" else "other"


def judge(lists: TestLists, result: RunResult) -> Verdict:
    """Every run test passed, or skipped where its list line allows; counts for the report."""
    verdict = Verdict()
    for test in lists.to_run:
        klass = test.rsplit(".", 1)[0]
        outcome = result.outcomes.get(test)
        if outcome is None and klass in result.class_skips:
            outcome = Outcome("skip", result.class_skips[klass])
        if outcome is None:
            verdict.counts["missing"] += 1
            why = result.class_errors.get(klass) or "not run (no such test, or tempest crashed)"
            verdict.problems.append(f"MISSING {test}: {why}")
        elif outcome.status in PASSED:
            verdict.counts["passed"] += 1
            verdict.passed_by_api[_api(test)] += 1
        elif outcome.status == "skip":
            verdict.counts["skipped"] += 1
            allowed = lists.may_skip.get(test)
            verdict.lines.append(f"skipped {test}: {outcome.reason or '?'}")
            if allowed is None:
                verdict.problems.append(f"SKIPPED without a listed reason {test}: {outcome.reason}")
        else:
            verdict.counts["failed"] += 1
            verdict.problems.append(f"FAILED {test}:\n{outcome.reason}")
    by_reason: dict[str, list[str]] = {}
    for test, reason in lists.pending.items():
        by_reason.setdefault(reason, []).append(test)
    for reason, tests in by_reason.items():
        verdict.lines.append(f"pending ({len(tests)}): {reason}")
        verdict.lines.extend(f"    {test}" for test in tests)
    verdict.counts["pending"] = len(lists.pending)
    return verdict


def summary(verdict: Verdict) -> str:
    c = verdict.counts
    apis = ", ".join(f"{api} {n}" for api, n in sorted(verdict.passed_by_api.items()))
    return (
        f"tempest: {c['passed']} passed ({apis}), {c['failed']} failed, {c['skipped']} skipped, "
        f"{c['missing']} missing, {c['pending']} pending (not run yet)"
    )


def write_results(path: Path, verdict: Verdict, result: RunResult, title: str) -> None:
    """The run's verdict as a text file a note can quote: the summary, each listed
    test's outcome, every skip and pending reason and every problem."""
    lines = [f"# {title}", summary(verdict), ""]
    lines += [f"{outcome.status:8} {test}" for test, outcome in sorted(result.outcomes.items())]
    lines += ["", *verdict.lines, "", *verdict.problems]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines).rstrip() + "\n", encoding="utf-8")
