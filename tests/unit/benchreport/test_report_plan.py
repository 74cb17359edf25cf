"""bench/report.py's data: every row names a bench it runs, every bench has rows, and a
failed bench still gets its rows and its line in the written report."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from saphira.devtools.benchreport.figures import Figure
from saphira.devtools.benchreport.table import Measured, Outcome

SCRIPT = Path(__file__).resolve().parents[3] / "bench" / "report.py"


@pytest.fixture(scope="module")
def report() -> Iterator[ModuleType]:
    # bench/ is a directory of scripts, not a package: load the script by its path
    # (registered while loaded: its dataclasses look their module up by name).
    spec = importlib.util.spec_from_file_location("bench_report", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules[spec.name]


def test_every_row_names_a_bench_the_report_runs_and_every_bench_has_rows(
    report: ModuleType,
) -> None:
    benches = {bench.key for bench in report.BENCHES}
    rows = {row.bench for row in report.ROWS}
    assert rows == benches
    assert all((SCRIPT.parent / bench.script).is_file() for bench in report.BENCHES)


def test_a_floor_a_row_compares_with_comes_from_the_same_bench(report: ModuleType) -> None:
    for row in report.ROWS:
        if isinstance(row.reference, Measured):
            assert row.reference.key.split(".")[0] == row.key.split(".")[0], row


def test_the_report_of_a_run_with_a_failed_bench_is_still_written(report: ModuleType) -> None:
    args = argparse.Namespace(quick=True, note="a smoke report")
    outcomes = [Outcome("scheduler", 5.0), Outcome("tokens", 61.0, "exit 1: not ready")]
    found = {"scheduler.p99": Figure("scheduler.p99", "scheduler decision, p99", 8.8, "ms")}
    text = report.document(args, "- CPU: test", outcomes, found, 66.0)
    assert text.startswith("# Benchmark report\n\na smoke report\n")
    assert "2 benches, 1 failed, 1.1 min in all" in text
    row = "| scheduler decision, p99 (issue 4) | 8.80 ms | 20 ms (issue 4 goal) | 0.44 | yes |"
    assert row in text
    assert "| `tokens.password_p50` (issue 2) | tokens failed" in text
    assert "| tokens | 61 | failed: exit 1: not ready |" in text
    assert "control_plane" not in text  # only the benches run have rows


def test_a_bench_whose_servers_are_not_named_is_counted_as_not_run(
    report: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SAPHIRA_TEST_RABBIT", raising=False)
    (bench,) = [bench for bench in report.BENCHES if bench.key == "testbed_cloud"]
    outcome = report.run_bench(bench, True, tmp_path / "figures.jsonl", tmp_path)
    assert outcome.failure is not None
    assert "SAPHIRA_TEST_RABBIT unset" in outcome.failure
    assert list(tmp_path.iterdir()) == []  # nothing was started
