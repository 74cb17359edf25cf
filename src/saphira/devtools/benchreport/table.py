"""The report's table: each row a figure, ours beside its goal, floor or peer.

A row's reference is either a number written down in an issue (:class:`Goal`:
a goal, or a peer's published or measured figure) or another figure of the
same run (:class:`Measured`: the bare QEMU floor, ``cp`` + fsync), optionally
with a slack ("within 0.5 s of the floor"). Ratio is ours / reference; met
compares ours with reference + slack in the figure's better direction. A row
whose bench failed, or whose bench did not state the figure, says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from saphira.devtools.benchreport.figures import Better, Figure


@dataclass(frozen=True)
class Goal:
    """A fixed number from an issue, in the figure's unit."""

    value: float
    source: str  # "issue 11 goal", "Horizon's published 39 s"
    judged: bool = True  # False: shown for scale (a ceiling), never "met" or not


@dataclass(frozen=True)
class Measured:
    """Another figure of the same run, plus an allowed slack in the figure's unit."""

    key: str
    source: str  # "bare QEMU floor", "cp + fsync"
    slack: float = 0.0
    judged: bool = True


Reference = Goal | Measured


@dataclass(frozen=True)
class Row:
    """One line of the report, as data: which figure, from which issue, against what."""

    issue: int
    bench: str
    key: str
    reference: Reference | None = None


@dataclass(frozen=True)
class Outcome:
    """How a bench's run ended: ``failure`` is None when it exited 0."""

    bench: str
    seconds: float
    failure: str | None = None


@dataclass(frozen=True)
class Line:
    """A rendered row's cells."""

    figure: str
    ours: str
    reference: str
    ratio: str
    met: str


def ratio(ours: float, reference: float) -> float | None:
    return ours / reference if reference else None


def is_met(ours: float, reference: float, better: Better, slack: float = 0.0) -> bool:
    if better == "lower":
        return ours <= reference + slack
    return ours >= reference - slack


def number(value: float, unit: str) -> str:
    if abs(value) >= 100 or value == int(value):
        text = f"{value:,.0f}"
    elif abs(value) >= 10:
        text = f"{value:.1f}"
    else:
        text = f"{value:.2f}"
    return f"{text} {unit}".strip()


def line(row: Row, figures: Mapping[str, Figure], outcomes: Mapping[str, Outcome]) -> Line:
    """The cells of one row from this run's figures and how its bench ended."""
    outcome = outcomes.get(row.bench)
    figure = figures.get(row.key)
    if figure is None:
        why = _missing(row.bench, outcome)
        return Line(f"`{row.key}` (issue {row.issue})", why, _source(row.reference), "—", why)
    title = f"{figure.title} (issue {row.issue})"
    ours = number(figure.value, figure.unit)
    if outcome is not None and outcome.failure is not None:
        failed = _missing(row.bench, outcome)
        return Line(title, ours, _source(row.reference), "—", failed)
    if row.reference is None:
        return Line(title, ours, "—", "—", "—")
    value, slack = _reference(row.reference, figures)
    if value is None:
        return Line(title, ours, f"{_source(row.reference)}: not measured", "—", "—")
    shown = f"{number(value, figure.unit)} ({_source(row.reference)})"
    quotient = ratio(figure.value, value)
    met = "yes" if is_met(figure.value, value, figure.better, slack) else "no"
    shown_ratio = "—" if quotient is None else f"{quotient:.2f}"
    return Line(title, ours, shown, shown_ratio, met if row.reference.judged else "—")


def _missing(bench: str, outcome: Outcome | None) -> str:
    if outcome is None:
        return "not run"
    if outcome.failure is not None:
        return f"{outcome.bench} failed (see the benches below)"
    return "not stated by the bench"


def _source(reference: Reference | None) -> str:
    if reference is None:
        return "—"
    if isinstance(reference, Measured) and reference.slack:
        return f"{reference.source} + {reference.slack:g}"
    return reference.source


def _reference(reference: Reference, figures: Mapping[str, Figure]) -> tuple[float | None, float]:
    if isinstance(reference, Goal):
        return reference.value, 0.0
    measured = figures.get(reference.key)
    return (None if measured is None else measured.value), reference.slack


def render(
    rows: Iterable[Row], figures: Mapping[str, Figure], outcomes: Mapping[str, Outcome]
) -> str:
    """The Markdown table of every row."""
    out = [
        "| figure | ours | goal, floor or peer | ratio | met? |",
        "|---|---|---|---|---|",
    ]
    for row in rows:
        cells = line(row, figures, outcomes)
        out.append(
            f"| {cells.figure} | {cells.ours} | {cells.reference} | {cells.ratio} | {cells.met} |"
        )
    return "\n".join(out)


def outcomes_table(outcomes: Iterable[Outcome]) -> str:
    """Each bench run: how long it took and how it ended."""
    out = ["| bench | seconds | result |", "|---|---|---|"]
    for outcome in outcomes:
        result = "ok" if outcome.failure is None else f"failed: {outcome.failure}"
        out.append(f"| {outcome.bench} | {outcome.seconds:.0f} | {result} |")
    return "\n".join(out)
