"""Service definitions where systemd runs: the agents' units with their --config-file
flags, the targeted virtqemud drop-in only where virtqemud exists, and their start."""

from __future__ import annotations

from pathlib import Path

from saphira.clients.fake import FakeTransport
from saphira.join import plan, steps, units, writer
from saphira.join import services as svc
from tests.unit.join import fakes


def _services() -> tuple[svc.Service, ...]:
    conf = Path("/etc/saphira")
    return svc.node_services(conf, conf / "network-agent.conf", "saphira")


def test_units_run_the_agents_with_both_configuration_files() -> None:
    compute, agent = (units.unit(s) for s in _services())
    assert "ExecStart=" in compute and "--config-file /etc/saphira/saphira.conf\n" in compute
    assert "User=saphira" in compute and "NoNewPrivileges=yes" in compute
    assert ("--config-file /etc/saphira/saphira.conf --config-file "
            "/etc/saphira/network-agent.conf\n") in agent  # fmt: skip
    assert "NoNewPrivileges" not in agent.replace("no NoNewPrivileges", "")  # sudo for the helper


def test_the_virtqemud_dropin_only_where_virtqemud_exists() -> None:
    modular = {str(p.path): p.text for p in units.planned(_services(), modular_libvirt=True)}
    dropin = "/etc/systemd/system/virtqemud.service.d/saphira-cgroups.conf"
    assert "[Service]\nProtectControlGroups=no\n" in modular[dropin]
    assert "/etc/systemd/system/saphira-network-agent.service" in modular
    monolithic = [str(p.path) for p in units.planned(_services(), modular_libvirt=False)]
    assert dropin not in monolithic


def test_under_systemd_the_units_are_enabled_and_started(tmp_path: Path) -> None:
    host = fakes.FakeHost()
    machine = fakes.machine(host, FakeTransport(), fakes.Supervisor())
    options = steps.Options(plan.Layout(tmp_path, Path("/etc/saphira"), Path("/var/lib/s")))
    lines = steps.start_services(_services(), [], options, machine, systemd=True)
    assert host.ran[-2:] == [
        ("systemctl", "daemon-reload"),
        ("systemctl", "enable", "--now", "saphira-compute.service",
         "saphira-network-agent.service"),
    ]  # fmt: skip
    assert lines == ["systemd: enabled and started saphira-compute.service, "
                     "saphira-network-agent.service"]  # fmt: skip


def test_a_new_virtqemud_dropin_is_loaded_before_libvirt_starts(tmp_path: Path) -> None:
    host = fakes.FakeHost()
    machine = fakes.machine(host, FakeTransport(), fakes.Supervisor())
    dropin = tmp_path / "etc/systemd/system/virtqemud.service.d/saphira-cgroups.conf"
    new = [writer.Outcome(dropin, "written")]
    assert "virtqemud restarted" in steps.reload_units(machine, new, tmp_path)[0]
    assert host.ran[-2:] == [("systemctl", "daemon-reload"),
                             ("systemctl", "try-restart", "virtqemud.service")]  # fmt: skip
    host.ran.clear()
    assert steps.reload_units(machine, [writer.Outcome(dropin, "unchanged")], tmp_path) == [
        "systemd: reloaded"
    ]
    assert host.ran == [("systemctl", "daemon-reload")]
