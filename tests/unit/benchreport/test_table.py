"""The report's table: ratio and met, the references, a failed bench's rows, the rendering."""

from __future__ import annotations

import pytest

from saphira.devtools.benchreport.figures import Figure
from saphira.devtools.benchreport.table import (
    Goal,
    Line,
    Measured,
    Outcome,
    Row,
    is_met,
    line,
    outcomes_table,
    ratio,
    render,
)

SINGLE = Figure("control_plane.single_none_p50", "create->ACTIVE, p50", 75.0, "ms")
MARKER = Figure("guests.marker_p50", "create->boot marker, p50", 6.3, "s")
FLOOR = Figure("guests.floor_p50", "bare QEMU to the marker, p50", 5.9, "s")
UPLOAD = Figure("image.upload", "image upload", 300.0, "MiB/s", "higher")
CP = Figure("image.cp", "cp + fsync", 1200.0, "MiB/s", "higher")
FIGURES = {figure.key: figure for figure in (SINGLE, MARKER, FLOOR, UPLOAD, CP)}
OK = {name: Outcome(name, 10.0) for name in ("control_plane", "guests", "image")}


@pytest.mark.parametrize(
    ("ours", "reference", "better", "slack", "met"),
    [
        (75.0, 50.0, "lower", 0.0, False),
        (50.0, 50.0, "lower", 0.0, True),
        (6.3, 5.9, "lower", 0.5, True),
        (6.5, 5.9, "lower", 0.5, False),
        (300.0, 200.0, "higher", 0.0, True),
        (150.0, 200.0, "higher", 0.0, False),
        (190.0, 200.0, "higher", 20.0, True),
    ],
)
def test_met_follows_the_better_direction_and_the_slack(
    ours: float, reference: float, better: str, slack: float, met: bool
) -> None:
    assert is_met(ours, reference, "lower" if better == "lower" else "higher", slack) is met


def test_ratio_is_ours_over_the_reference_and_none_against_zero() -> None:
    assert ratio(75.0, 50.0) == 1.5
    assert ratio(3.0, 0.0) is None


def test_a_goal_row_shows_ours_the_goal_with_its_source_the_ratio_and_met() -> None:
    row = Row(11, "control_plane", SINGLE.key, Goal(50, "issue 11 goal"))
    assert line(row, FIGURES, OK) == Line(
        "create->ACTIVE, p50 (issue 11)", "75 ms", "50 ms (issue 11 goal)", "1.50", "no"
    )
    peer = Row(11, "control_plane", SINGLE.key, Goal(836, "real Nova 34 stack"))
    assert line(peer, FIGURES, OK).met == "yes"


def test_a_floor_of_the_same_run_with_a_slack_decides_met() -> None:
    row = Row(5, "guests", MARKER.key, Measured(FLOOR.key, "bare QEMU floor", slack=0.5))
    cells = line(row, FIGURES, OK)
    assert (cells.reference, cells.ratio, cells.met) == (
        "5.90 s (bare QEMU floor + 0.5)",
        "1.07",
        "yes",
    )


def test_a_ceiling_shown_for_scale_has_a_ratio_but_no_met() -> None:
    row = Row(3, "image", UPLOAD.key, Measured(CP.key, "cp + fsync", judged=False))
    cells = line(row, FIGURES, OK)
    assert (cells.ours, cells.ratio, cells.met) == ("300 MiB/s", "0.25", "—")


def test_a_reference_the_run_did_not_measure_is_named_as_missing() -> None:
    row = Row(5, "guests", MARKER.key, Measured("guests.absent", "bare QEMU floor"))
    cells = line(row, FIGURES, OK)
    assert (cells.reference, cells.met) == ("bare QEMU floor: not measured", "—")


def test_a_failed_bench_row_says_it_failed() -> None:
    failed = {"network": Outcome("network", 42.0, "exit 1: OVS is not running")}
    cells = line(Row(6, "network", "network.lease_p50"), FIGURES, failed)
    assert "network failed" in cells.ours
    assert "network failed" in cells.met
    assert cells.ratio == "—"


def test_a_figure_stated_before_its_bench_failed_is_shown_but_not_judged() -> None:
    failed = {"control_plane": Outcome("control_plane", 42.0, "exit 1")}
    row = Row(11, "control_plane", SINGLE.key, Goal(100, "issue 11 goal"))
    cells = line(row, FIGURES, failed)
    assert cells.ours == "75 ms"
    assert "control_plane failed" in cells.met


def test_a_figure_an_ok_bench_did_not_state_or_a_bench_not_run() -> None:
    row = Row(6, "network", "network.lease_p50")
    assert line(row, FIGURES, {"network": Outcome("network", 1.0)}).ours == (
        "not stated by the bench"
    )
    assert line(row, FIGURES, {}).ours == "not run"


def test_render_writes_a_header_and_one_line_per_row() -> None:
    rows = [
        Row(11, "control_plane", SINGLE.key, Goal(50, "issue 11 goal")),
        Row(6, "network", "network.lease_p50"),
    ]
    failed = {**OK, "network": Outcome("network", 3.0, "exit 1")}
    table = render(rows, FIGURES, failed).splitlines()
    assert table[0] == "| figure | ours | goal, floor or peer | ratio | met? |"
    assert table[2] == (
        "| create->ACTIVE, p50 (issue 11) | 75 ms | 50 ms (issue 11 goal) | 1.50 | no |"
    )
    assert table[3].startswith("| `network.lease_p50` (issue 6) | network failed")
    assert len(table) == 4


def test_the_benches_table_counts_a_failure_as_failed() -> None:
    table = outcomes_table([Outcome("tokens", 61.0, "exit 1: not ready"), Outcome("scheduler", 5)])
    assert table.splitlines()[2:] == [
        "| tokens | 61 | failed: exit 1: not ready |",
        "| scheduler | 5 | ok |",
    ]
