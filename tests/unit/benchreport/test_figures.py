"""The figure a bench states: its JSON line, the file it goes to, what is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from saphira.devtools.benchreport import figures
from saphira.devtools.benchreport.figures import Figure, FigureError


def test_emit_appends_one_json_line_per_figure_and_read_gives_them_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "figures.jsonl"
    monkeypatch.setenv(figures.ENV, str(out))
    made = Figure("tokens.password_p50", "token issue (password), p50", 43.5, "ms")
    rate = Figure("tokens.password_rate", "token issue (password), rate", 23.0, "/s", "higher")
    figures.emit(made)
    figures.emit(rate)
    assert len(out.read_text().splitlines()) == 2
    assert figures.read(out) == {made.key: made, rate.key: rate}


def test_a_key_stated_twice_keeps_the_last(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "figures.jsonl"
    monkeypatch.setenv(figures.ENV, str(out))
    figures.emit(Figure("guests.floor_p50", "floor", 6.0, "s"))
    figures.emit(Figure("guests.floor_p50", "floor", 5.5, "s"))
    assert figures.read(out)["guests.floor_p50"].value == 5.5


def test_without_the_variable_emit_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(figures.ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    figures.emit(Figure("scheduler.p99", "scheduler decision, p99", 8.8, "ms"))
    assert list(tmp_path.iterdir()) == []


def test_reading_a_file_no_bench_wrote_gives_no_figures(tmp_path: Path) -> None:
    assert figures.read(tmp_path / "absent.jsonl") == {}


@pytest.mark.parametrize(
    "line",
    [
        '{"key": "a.b", "title": "t", "unit": "s"}',
        '{"key": "a.b", "title": "t", "value": "fast", "unit": "s"}',
        '{"key": "a.b", "title": "t", "value": 1, "unit": "s", "better": "sideways"}',
        '{"key": "nodot", "title": "t", "value": 1, "unit": "s"}',
        '{"key": "a.b", "title": "t", "value": NaN, "unit": "s"}',
        "not json",
    ],
)
def test_a_line_that_is_not_a_figure_is_refused(line: str) -> None:
    with pytest.raises(FigureError):
        Figure.parse(line)
