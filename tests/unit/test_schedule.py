"""The suite's schedule under xdist: modules sharing a fixture are one unit, the
serial groups and long tiers are sent first, a module keeps its order."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.schedule import Collected, group_of, order, rank

ROOT = Path(__file__).resolve().parents[2]

CONFTEST = f"""
import sys
sys.path.insert(0, {str(ROOT)!r})
import pytest
from tests import schedule

@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    schedule.arrange(items)
"""

# Each test of the shared module records which worker ran it and how many times
# its module fixture was set up there; the singles keep the other worker busy.
SHARED = """
import os
import time
from pathlib import Path

import pytest

SETUPS = []

@pytest.fixture(scope="module")
def shared():
    SETUPS.append(1)
    return None

@pytest.mark.parametrize("n", range(8))
def test_shared(shared, n):
    time.sleep(0.05)
    out = Path(os.environ["SCHEDULE_OUT"])
    with out.open("a") as f:
        f.write(f"{os.environ['PYTEST_XDIST_WORKER']} {len(SETUPS)} {n}\\n")
"""

SINGLES = """
import time

import pytest

@pytest.mark.parametrize("n", range(8))
def test_single(n):
    time.sleep(0.05)
"""


def _test(nodeid: str, group: str | None = None, *scopes: str) -> Collected:
    return Collected(nodeid, group, frozenset(scopes or {"function"}))


def test_a_module_sharing_a_fixture_is_one_unit_and_others_stay_single() -> None:
    assert group_of(_test("tests/unit/a.py::t", None, "module")) == "tests/unit/a.py"
    assert group_of(_test("tests/unit/a.py::t[1]", None, "class")) == "tests/unit/a.py"
    assert group_of(_test("tests/unit/a.py::t", None, "session", "function")) is None
    assert group_of(_test("tests/unit/a.py::t", "libvirt", "module")) == "libvirt"


def test_serial_groups_then_tempest_integration_functional_and_unit_last() -> None:
    tests = [
        _test("tests/unit/u.py::a"),
        _test("tests/functional/f.py::a", None, "module"),
        _test("tests/functional/f.py::b", None, "module"),
        _test("tests/integration/i.py::a"),
        _test("tests/functional/g.py::a", "libvirt"),
        _test("tests/tempest/test_tempest.py::t"),
        _test("tests/functional/f.py::c", None, "module"),
    ]
    assert [rank(test) for test in tests] == [4, 3, 3, 2, 0, 1, 3]
    assert order(tests) == [4, 5, 3, 1, 2, 6, 0]


def test_under_xdist_a_shared_module_runs_on_one_worker_with_one_setup(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_a_singles.py").write_text(SINGLES)
    (tmp_path / "test_b_shared.py").write_text(SHARED)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")  # not this repository's settings
    out = tmp_path / "ran.txt"
    argv = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-c", "pytest.ini",
            "-n", "2", "--dist", "loadgroup", "--no-loadscope-reorder",
            "--rootdir", ".", "."]  # fmt: skip
    env = {"PATH": "/usr/bin:/bin", "SCHEDULE_OUT": str(out)}
    done = subprocess.run(argv, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    assert done.returncode == pytest.ExitCode.OK, done.stdout + done.stderr
    ran = [line.split() for line in out.read_text().splitlines()]
    assert len(ran) == 8
    assert len({worker for worker, _, _ in ran}) == 1, ran
    assert {setups for _, setups, _ in ran} == {"1"}, ran
    assert [int(n) for _, _, n in ran] == list(range(8))
