"""The supervisor's restart back-off and its service records (pure parts)."""

from __future__ import annotations

from pathlib import Path

from saphira.join import services as svc
from saphira.join.supervisor import FIRST_BACKOFF, MAX_BACKOFF, STABLE, backoff


def test_backoff_doubles_up_to_its_cap_and_starts_over_after_a_stable_run() -> None:
    waits, current = [], FIRST_BACKOFF
    for _ in range(8):
        wait, current = backoff(current, ran_for=0.5)
        waits.append(wait)
    assert waits == [1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0, 30.0]
    assert backoff(MAX_BACKOFF, ran_for=STABLE) == (FIRST_BACKOFF, 2 * FIRST_BACKOFF)


def test_services_file_round_trips_and_a_dead_record_is_not_running(tmp_path: Path) -> None:
    services = svc.node_services(tmp_path, tmp_path / "network-agent.conf", "saphira",
                                 {svc.COMPUTE: "/bin/true"})  # fmt: skip
    assert svc.loads(svc.dumps(services)) == services
    assert services[0].argv == ("/bin/true", "--config-file", str(tmp_path / "saphira.conf"))
    proc = tmp_path / "proc"
    (proc / "41").mkdir(parents=True)
    (proc / "41/stat").write_text("41 (saphira-comput) S 1 41 41 0 -1\n")
    (proc / "42").mkdir()
    (proc / "42/stat").write_text("42 (sh) Z 1 42 42 0 -1\n")
    record = svc.pid_file(tmp_path, svc.COMPUTE)
    record.parent.mkdir()
    record.write_text("41\n")
    assert svc.running(tmp_path, svc.COMPUTE, proc) == 41
    record.write_text("42\n")  # a zombie
    assert svc.running(tmp_path, svc.COMPUTE, proc) is None
    record.write_text("43\n")  # gone
    assert svc.running(tmp_path, svc.COMPUTE, proc) is None
