"""Starting libvirt's daemons, on a pretend machine: no daemon is really started."""

from __future__ import annotations

import grp
import importlib.util
import os
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from saphira.virt.errors import VirtError
from saphira.virt.libvirt import daemons
from saphira.virt.libvirt.daemons import Layout
from saphira.virt.libvirt.machine import Completed, DaemonError, Host, fix_kvm, run_command

MONOLITHIC = ("virtlogd", "virtlockd", "libvirtd")


@dataclass
class Machine:
    """A tmp directory tree standing for /usr/sbin, /run and /proc, plus fake programs.

    ``execute`` records each command; starting the main daemon (or
    ``systemctl``) makes the connection answer, unless ``start_fails``.
    """

    root: Path
    commands: list[list[str]] = field(default_factory=list)
    answering: bool = False
    start_fails: dict[str, Completed] = field(default_factory=dict)
    now: float = 0.0

    def host(self, euid: Callable[[], int] = lambda: 0) -> Host:
        return Host(
            sbin=self.root / "sbin", run_dir=self.root / "run", proc=self.root / "proc",
            conf_dir=self.root / "conf",
            unit_dirs=(self.root / "units",), kvm=self.root / "kvm", execute=self.execute,
            connect=self.connect, euid=euid, sleep=self.sleep, clock=lambda: self.now,
        )  # fmt: skip

    def install(self, *names: str) -> None:
        sbin = self.root / "sbin"
        sbin.mkdir(parents=True, exist_ok=True)
        for name in names:
            (sbin / name).write_text("#!/bin/sh\n")
            (sbin / name).chmod(0o755)

    def running(self, daemon: str, pid: int, comm: str | None = None, state: str = "S") -> None:
        (self.root / "run").mkdir(exist_ok=True)
        (self.root / "run" / f"{daemon}.pid").write_text(f"{pid}\n")
        (self.root / "proc" / str(pid)).mkdir(parents=True)
        (self.root / "proc" / str(pid) / "stat").write_text(f"{pid} ({comm or daemon}) {state} 1\n")

    def execute(self, argv: Sequence[str]) -> Completed:
        self.commands.append(list(argv))
        name = Path(argv[0]).name
        if name in self.start_fails:
            return self.start_fails[name]
        if name in ("libvirtd", "virtqemud", "systemctl"):
            self.answering = True
        return Completed(0, "")

    def connect(self, uri: str) -> int:
        if not self.answering:
            raise DaemonError(f"cannot connect to {uri}: Failed to connect socket")
        return 9_000_000

    def sleep(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def machine(tmp_path: Path) -> Machine:
    return Machine(tmp_path)


def test_monolithic_layout_starts_virtlogd_before_libvirtd(machine: Machine) -> None:
    machine.install(*MONOLITHIC)
    assert daemons.detect_layout(machine.host()) == Layout("monolithic", ("virtlogd", "libvirtd"))


def test_modular_layout_wins_and_skips_daemons_not_installed(machine: Machine) -> None:
    machine.install("virtlogd", "virtqemud", "virtsecretd", "libvirtd")
    layout = daemons.detect_layout(machine.host())
    assert layout == Layout("modular", ("virtlogd", "virtqemud", "virtsecretd"))
    assert layout.main == "virtqemud"


def test_no_daemon_installed_is_named(machine: Machine) -> None:
    machine.install("virtlogd")
    with pytest.raises(DaemonError, match="neither virtqemud nor libvirtd"):
        daemons.detect_layout(machine.host())
    assert "no libvirt daemon is installed" in str(daemons.unavailable_reason(machine.host()))
    assert not daemons.available(machine.host())


def test_a_non_executable_file_is_not_a_daemon(machine: Machine) -> None:
    machine.install("virtlogd", "libvirtd")
    (machine.root / "sbin" / "libvirtd").chmod(0o644)
    assert daemons.unavailable_reason(machine.host()) is not None


def test_available_needs_libvirt_python_too(
    machine: Machine, monkeypatch: pytest.MonkeyPatch
) -> None:
    machine.install(*MONOLITHIC)
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "libvirt" else real(name, *a)
    )
    assert daemons.unavailable_reason(machine.host()) == "libvirt-python is not installed"


def test_already_running_starts_nothing(machine: Machine) -> None:
    machine.install(*MONOLITHIC)
    machine.answering = True
    report = daemons.ensure_running(host=machine.host())
    assert machine.commands == []
    assert report.started == []
    assert report.lines() == ["libvirtd 9.0.0 at qemu:///system: already running"]


def test_without_systemd_each_daemon_is_daemonized_in_order(machine: Machine) -> None:
    machine.install(*MONOLITHIC)
    sbin = machine.root / "sbin"
    report = daemons.ensure_running("qemu:///system", host=machine.host())
    conf = machine.root / "conf" / "libvirtd.conf"
    assert machine.commands == [
        [f"{sbin}/virtlogd", "-d"],
        [f"{sbin}/libvirtd", "-d", "-f", str(conf)],
    ]
    assert report.started == ["virtlogd", "libvirtd"]
    assert report.version == "9.0.0"


def test_a_daemon_it_starts_lets_the_libvirt_group_in_without_polkit(machine: Machine) -> None:
    machine.install("virtlogd", "virtqemud")
    daemons.ensure_running(host=machine.host())
    conf = machine.root / "conf" / "virtqemud.conf"
    assert machine.commands[1][-2:] == ["-f", str(conf)]
    settings = dict(
        line.split(" = ") for line in conf.read_text().splitlines() if not line.startswith("#")
    )
    assert settings == {
        "unix_sock_group": '"libvirt"',
        "unix_sock_rw_perms": '"0770"',
        "unix_sock_ro_perms": '"0777"',
        "auth_unix_rw": '"none"',
        "auth_unix_ro": '"none"',
    }
    assert stat.S_IMODE(conf.stat().st_mode) == 0o644


def test_a_live_pidfile_prevents_a_second_start(machine: Machine) -> None:
    machine.install(*MONOLITHIC)
    machine.running("virtlogd", 4242)
    daemons.ensure_running(host=machine.host())
    assert [Path(argv[0]).name for argv in machine.commands] == ["libvirtd"]


def test_a_stale_pidfile_does_not(machine: Machine) -> None:
    machine.install(*MONOLITHIC)
    machine.running("virtlogd", 4242, comm="bash")  # the pid was reused by another program
    (machine.root / "run" / "libvirtd.pid").write_text("999999\n")  # no such process
    daemons.ensure_running(host=machine.host())
    assert [Path(argv[0]).name for argv in machine.commands] == ["virtlogd", "libvirtd"]


def test_a_killed_daemon_not_yet_reaped_is_started_again(machine: Machine) -> None:
    machine.install(*MONOLITHIC)
    machine.running("virtlogd", 4242)
    machine.running("libvirtd", 4343, state="Z")  # SIGKILLed: a zombie keeps its name
    daemons.ensure_running(host=machine.host())
    assert [Path(argv[0]).name for argv in machine.commands] == ["libvirtd"]


def test_modular_daemons_start_in_their_order(machine: Machine) -> None:
    machine.install("virtlogd", "virtqemud", "virtnodedevd", "virtsecretd")
    report = daemons.ensure_running(host=machine.host())
    assert report.started == ["virtlogd", "virtqemud", "virtnodedevd", "virtsecretd"]
    assert report.daemon == "virtqemud"


def test_a_failed_start_names_status_and_stderr_and_stops_there(machine: Machine) -> None:
    machine.install(*MONOLITHIC)
    machine.start_fails["virtlogd"] = Completed(6, "error: Unable to bind to socket")
    with pytest.raises(VirtError, match=r"virtlogd -d exited with status 6: error: Unable to bind"):
        daemons.ensure_running(host=machine.host())
    assert len(machine.commands) == 1


def test_a_daemon_that_never_answers_times_out(machine: Machine) -> None:
    machine.install(*MONOLITHIC)
    machine.start_fails["libvirtd"] = Completed(0, "")  # starts, but never answers
    with pytest.raises(DaemonError) as caught:
        daemons.ensure_running(timeout=2, host=machine.host())
    message = caught.value.message
    assert "started virtlogd, libvirtd, but qemu:///system did not answer within 2 s" in message
    assert "Failed to connect socket" in message
    assert 2 <= machine.now < 2.5


def test_with_systemd_the_packaged_units_are_started(machine: Machine) -> None:
    machine.install(*MONOLITHIC)
    (machine.root / "run" / "systemd" / "system").mkdir(parents=True)
    (machine.root / "units").mkdir()
    (machine.root / "units" / "libvirtd.socket").write_text("[Socket]\n")
    report = daemons.ensure_running(host=machine.host())
    units = ["virtlogd.service", "libvirtd.socket", "libvirtd.service"]
    assert machine.commands == [["systemctl", "start", *units]]
    assert report.started == units


def test_a_failing_systemctl_is_reported(machine: Machine) -> None:
    machine.install(*MONOLITHIC)
    (machine.root / "run" / "systemd" / "system").mkdir(parents=True)
    machine.start_fails["systemctl"] = Completed(5, "Unit libvirtd.service not found.")
    with pytest.raises(DaemonError, match=r"status 5: Unit libvirtd.service not found"):
        daemons.ensure_running(host=machine.host())


def test_only_root_starts_daemons(machine: Machine) -> None:
    machine.install(*MONOLITHIC)
    with pytest.raises(DaemonError, match="starting libvirtd needs root"):
        daemons.ensure_running(host=machine.host(euid=lambda: 1000))
    assert machine.commands == []


def test_execute_keeps_exit_status_and_stderr(tmp_path: Path) -> None:
    done = run_command(["sh", "-c", "echo out; echo 'cannot start' >&2; exit 3"])
    assert done == Completed(3, "cannot start")
    missing = run_command([str(tmp_path / "absent"), "-d"])
    assert missing.returncode != 0 and "absent" in missing.output


def test_kvm_that_is_fine_is_left_alone(tmp_path: Path) -> None:
    device = tmp_path / "kvm"
    device.write_bytes(b"")
    device.chmod(0o660)
    assert fix_kvm(device) is None
    assert fix_kvm(tmp_path / "absent") is None
    assert stat.S_IMODE(device.stat().st_mode) == 0o660


def _some_group() -> str:
    """A group other than root's: stands for kvm, which a test host may lack."""
    return next(g.gr_name for g in grp.getgrall() if g.gr_gid != 0)


def _root_only_device(path: Path) -> Path:
    path.write_bytes(b"")
    path.chmod(0o600)
    os.chown(path, 0, 0)
    return path


@pytest.mark.skipif(os.geteuid() != 0, reason="changing a file's group to any group needs root")
def test_root_only_kvm_gets_the_kvm_group(tmp_path: Path) -> None:
    device = _root_only_device(tmp_path / "kvm")
    group = _some_group()
    note = fix_kvm(device, group)
    assert note is not None and "0660" in note
    assert stat.S_IMODE(device.stat().st_mode) == 0o660
    assert device.stat().st_gid == grp.getgrnam(group).gr_gid


def _has_kvm_group() -> bool:
    return any(g.gr_name == "kvm" for g in grp.getgrall())


@pytest.mark.skipif(os.geteuid() != 0 or not _has_kvm_group(), reason="needs root and a kvm group")
def test_ensure_running_fixes_kvm_on_its_way(machine: Machine) -> None:
    machine.install(*MONOLITHIC)
    _root_only_device(machine.root / "kvm")
    machine.answering = True
    report = daemons.ensure_running(host=machine.host())
    assert report.lines()[0].startswith(f"{machine.root / 'kvm'}: now root:kvm 0660")


def test_cli_prints_what_it_did(machine: Machine, capsys: pytest.CaptureFixture[str]) -> None:
    machine.install(*MONOLITHIC)
    assert daemons.main(["--uri", "qemu:///system"], host=machine.host()) == 0
    assert capsys.readouterr().out.splitlines() == [
        "libvirt: libvirtd 9.0.0 at qemu:///system: started virtlogd, libvirtd"
    ]


def test_cli_failure_exits_1_with_the_reason(
    machine: Machine, capsys: pytest.CaptureFixture[str]
) -> None:
    machine.install("virtlogd")
    assert daemons.main([], host=machine.host()) == 1
    assert "neither virtqemud nor libvirtd" in capsys.readouterr().err
