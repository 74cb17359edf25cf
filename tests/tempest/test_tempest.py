"""tempest, from PyPI, against `saphira up` with pre-provisioned credentials.

The tests run are those of include-list.txt minus pending.txt; the test fails
on any failure, on a test that never ran, and on a skip its list line does
not explain. Counts and every skip and pending test are printed (pytest -s,
or in the failure report) and written to ``$SAPHIRA_TEST_RESULTS/tempest.txt``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.functional.clients import sdk
from tests.functional.cloud import Cloud, start_cloud
from tests.tempest import lists, provision, report, runner, workspace

pytestmark = pytest.mark.functional


@pytest.fixture(scope="module")
def cloud(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cloud]:
    running = start_cloud(str(tmp_path_factory.mktemp("cloud")))
    yield running
    if running.proc is not None and running.proc.poll() is None:
        assert running.stop() == 0, running.log()


def run_tempest(cloud: Cloud, workdir: Path) -> tuple[report.Verdict, runner.RunResult]:
    """Provision, write the workspace, run; the verdict on the repo's lists."""
    tests = lists.load()
    done = provision.provision(sdk(cloud.clouds_yaml, "admin"))
    conf = workspace.write(workdir, cloud.url("identity"), done, tests.include_regexes())
    result = runner.run(workdir, conf)
    return report.judge(tests, result), result


def test_tempest(cloud: Cloud, tmp_path: Path) -> None:
    """One tempest run of the whole set (compute, network, identity, image): the APIs
    share the accounts and the cloud, and one run keeps tempest's start-up cost single."""
    verdict, result = run_tempest(cloud, tmp_path / "tempest")
    title = "tempest against saphira up (fake driver)"
    report.write_results(report.RESULTS / "tempest.txt", verdict, result, title)
    print("\n".join(verdict.lines))
    print(report.summary(verdict))
    assert verdict.counts["passed"] > 0, result.output[-4000:]
    assert set(verdict.passed_by_api) >= {"compute", "network", "identity", "image"}
    assert not verdict.problems, "\n".join([report.summary(verdict), *verdict.problems])
