"""The repo's tempest lists parse, and the parser refuses what would hide a test."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.tempest import lists


def test_repo_lists_are_consistent() -> None:
    loaded = lists.load()
    assert loaded.to_run, "nothing would run"
    assert set(loaded.pending) <= set(loaded.listed)
    for regex, test in zip(loaded.include_regexes(), loaded.to_run, strict=True):
        assert re.match(regex, f"{test}[id-0,smoke]")
        assert not re.match(regex, f"{test}_more[id-0]")


def _write(tmp_path: Path, include: str, pending: str = "") -> lists.TestLists:
    (tmp_path / "i.txt").write_text(include)
    (tmp_path / "p.txt").write_text(pending)
    return lists.load(tmp_path / "i.txt", tmp_path / "p.txt")


def test_skip_reasons_and_pending(tmp_path: Path) -> None:
    loaded = _write(tmp_path, "a.B.test_x  # skip: no SSH\na.B.test_y\n", "a.B.test_y  # later\n")
    assert loaded.may_skip == {"a.B.test_x": "no SSH"}
    assert loaded.to_run == ["a.B.test_x"]


@pytest.mark.parametrize(
    ("include", "pending"),
    [("a.B.t\na.B.t\n", ""), ("a.B.t  # skip:\n", ""), ("a.B.t\n", "a.B.u  # why\n"),
     ("a.B.t\n", "a.B.t\n")],
)  # fmt: skip
def test_refuses_duplicates_and_unexplained_entries(
    tmp_path: Path, include: str, pending: str
) -> None:
    with pytest.raises(ValueError):
        _write(tmp_path, include, pending)
