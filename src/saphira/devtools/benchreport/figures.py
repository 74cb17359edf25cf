"""A figure a bench states: typed, written as one JSON line when asked.

A bench prints its figures in its own words, as it always did, and beside
each one it calls :func:`emit`. When ``SAPHIRA_BENCH_FIGURES`` names a file
(``bench/report.py`` sets it), each figure is appended there as one JSON line;
otherwise nothing more happens. Stdlib only, so a bench run by a bare
``python3`` (``bench/startup.py``) can use it too.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

ENV = "SAPHIRA_BENCH_FIGURES"
Better = Literal["lower", "higher"]
BETTER: tuple[Better, ...] = ("lower", "higher")


class FigureError(ValueError):
    """A figure line that is not a figure."""


@dataclass(frozen=True)
class Figure:
    """One measured figure: ``key`` is ``<bench>.<name>``, stable across runs."""

    key: str
    title: str
    value: float
    unit: str
    better: Better = "lower"

    def __post_init__(self) -> None:
        if not self.key or "." not in self.key:
            raise FigureError(f"figure key {self.key!r} is not <bench>.<name>")
        if self.better not in BETTER:
            raise FigureError(f"figure {self.key}: better must be lower or higher")
        if not math.isfinite(self.value):
            raise FigureError(f"figure {self.key}: value {self.value!r} is not a number")

    def line(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def parse(cls, line: str) -> Figure:
        try:
            data = json.loads(line)
            return cls(
                key=str(data["key"]),
                title=str(data["title"]),
                value=float(data["value"]),
                unit=str(data["unit"]),
                better=data.get("better", "lower"),
            )
        except (ValueError, KeyError, TypeError) as error:
            raise FigureError(f"not a figure: {line!r} ({error})") from error


def emit(*figures: Figure) -> None:
    """Append each figure to the file ``SAPHIRA_BENCH_FIGURES`` names, if it names one."""
    path = os.environ.get(ENV)
    if not path:
        return
    with open(path, "a", encoding="utf-8") as out:
        for figure in figures:
            out.write(figure.line() + "\n")


def read(path: Path) -> dict[str, Figure]:
    """The figures of a file by key (a key written twice: the last one counts)."""
    if not path.exists():
        return {}
    return by_key(Figure.parse(line) for line in path.read_text().splitlines() if line.strip())


def by_key(figures: Iterable[Figure]) -> dict[str, Figure]:
    return {figure.key: figure for figure in figures}
