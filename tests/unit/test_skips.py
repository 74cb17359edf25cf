"""The expected-skips ledger: parsing, matching, and a real session under xdist."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.skips import LIST, Expected, parse

ROOT = Path(__file__).resolve().parents[2]

CONFTEST = f"""
import sys
from pathlib import Path
sys.path.insert(0, {str(ROOT)!r})
from tests import skips

def pytest_configure(config):
    skips.register(config, Path(__file__).with_name("expected.txt"))
"""

TESTS = """
import pytest

def test_listed():
    pytest.skip("no such feature here")

def test_listed_but_runs():
    pass

@pytest.mark.parametrize("n", [1, 2])
def test_param(n):
    pass
"""


def test_the_suite_list_parses() -> None:
    assert parse(LIST.read_text())


def test_a_pattern_matches_node_ids_literally_but_for_stars() -> None:
    entry = Expected("tests/a.py::test_x[*]", "kernel", 1)
    assert entry.matches("tests/a.py::test_x[postgresql]")
    assert not entry.matches("tests/a.py::test_y[postgresql]")
    assert not Expected("tests/a.py::test_[xy]", "kernel", 1).matches("tests/a.py::test_x")
    assert entry.explains("tests/a.py::test_x[1]", "this kernel has no 802.1Q")
    assert entry.matches("tests/a.py::test_x[postgresql]@tests/a.py")  # xdist's loadgroup
    assert not entry.matches("tests/a.py::test_y[postgresql]@tests/a.py")
    assert not entry.explains("tests/a.py::test_x[1]", "SAPHIRA_TEST_RABBIT is not set")


def test_a_line_without_a_reason_or_with_another_mark_is_refused() -> None:
    with pytest.raises(ValueError, match=r"expected-skips\.txt:2"):
        parse("# comment\ntests/a.py::test_x\n")
    with pytest.raises(ValueError, match=r"expected-skips\.txt:1"):
        parse("tests/a.py::test_x | kernel | sometimes\n")
    assert parse("tests/a.py::test_x | kernel | host\n")[0].host


def _session(tmp_path: Path, listed: str, tests: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "expected.txt").write_text(listed)
    (tmp_path / "test_inner.py").write_text(tests)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")  # not this repository's settings
    argv = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "2", "-q",
            "-c", "pytest.ini", "--rootdir", ".", "."]  # fmt: skip
    return subprocess.run(argv, capture_output=True, text=True, cwd=tmp_path, timeout=120)


def test_under_xdist_an_unlisted_skip_fails_the_session_naming_it(tmp_path: Path) -> None:
    done = _session(tmp_path, "", TESTS)
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, done.stdout
    assert "unexpected skips" in done.stdout
    assert "test_inner.py::test_listed: no such feature here" in done.stdout


def test_a_listed_skip_passes_and_a_host_entry_that_ran_is_printed(tmp_path: Path) -> None:
    listed = "test_inner.py::test_listed* | no such feature | host\n"
    done = _session(tmp_path, listed, TESTS)
    assert done.returncode == pytest.ExitCode.OK, done.stdout
    assert "expected skips not needed on this host" in done.stdout
    assert "expected.txt:1 (no such feature) ran: test_inner.py::test_listed_but_runs" in (
        done.stdout
    )


def test_an_unmarked_entry_whose_test_ran_fails_the_session(tmp_path: Path) -> None:
    listed = "test_inner.py::test_listed | no such feature\n"
    listed += "test_inner.py::test_param[*] | no such feature\n"
    done = _session(tmp_path, listed, TESTS)
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, done.stdout
    assert "expected skips that no longer happen" in done.stdout
    assert "expected.txt:2 (no such feature) ran: test_inner.py::test_param[1], " in done.stdout


def test_a_listed_test_skipping_for_another_reason_fails(tmp_path: Path) -> None:
    done = _session(tmp_path, "test_inner.py::test_listed | another reason\n", TESTS)
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, done.stdout
