"""The Open vSwitch starter's decisions, against pretend daemons in a directory tree."""

from __future__ import annotations

from pathlib import Path

import pytest

from saphira.network import ovs_daemons
from saphira.network.ovs_daemons import OvsDaemonError, OvsPaths, ensure_running, main
from saphira.privsep import context as privileged
from saphira.privsep import ovs
from saphira.privsep.runner import PrivsepError

VERSION = "ovs-vswitchd (Open vSwitch) 3.1.0"


class FakeHost:
    """Pidfiles and /proc/<pid>/comm under tmp_path; the privsep calls recorded."""

    def __init__(self, root: Path) -> None:
        self.paths = OvsPaths(
            db=root / "etc" / "conf.db",
            schema=root / "schema",
            rundir=root / "run",
            logdir=root / "log",
            proc=root / "proc",
            systemd_dir=root / "systemd",
            unit_dirs=(root / "units",),
        )
        self.calls: list[str] = []
        self.old_schema = False
        self.failing: str | None = None
        self.answers = True

    def pretend_running(self, daemon: str, pid: int) -> None:
        self.paths.rundir.mkdir(parents=True, exist_ok=True)
        (self.paths.rundir / f"{daemon}.pid").write_text(f"{pid}\n")
        (self.paths.proc / str(pid)).mkdir(parents=True, exist_ok=True)
        (self.paths.proc / str(pid) / "comm").write_text(f"{daemon}\n")

    def call(self, name: str) -> None:
        self.calls.append(name)
        if name == self.failing:
            raise PrivsepError(command=name, status=1, detail="it broke")

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(privileged, "unavailable_reason", lambda: None)
        monkeypatch.setattr(ovs, "db_answers", self.db_answers)
        monkeypatch.setattr(ovs, "vswitchd_version", self.vswitchd_version)
        monkeypatch.setattr(ovs, "create_db", lambda db, schema: self.create(Path(db)))
        monkeypatch.setattr(ovs, "db_needs_conversion", lambda db, schema: self.old_schema)
        monkeypatch.setattr(ovs, "convert_db", lambda db, schema: self.call("convert_db"))
        monkeypatch.setattr(
            ovs, "start_ovsdb_server", lambda db, run, log: self.start("ovsdb-server", 41)
        )
        monkeypatch.setattr(ovs, "init_db", lambda run: self.call("init_db"))
        monkeypatch.setattr(ovs, "start_vswitchd", lambda run, log: self.start("ovs-vswitchd", 42))
        monkeypatch.setattr(ovs, "systemctl_start", self.systemctl)

    def create(self, db: Path) -> None:
        self.call("create_db")
        db.write_text("db")

    def start(self, daemon: str, pid: int) -> None:
        self.call(daemon)
        self.pretend_running(daemon, pid)

    def systemctl(self, unit: str) -> None:
        self.call(f"systemctl start {unit}")
        self.pretend_running("ovsdb-server", 41)
        self.pretend_running("ovs-vswitchd", 42)

    def db_answers(self, rundir: str) -> str | None:
        running = self.paths.running("ovsdb-server") is not None
        return None if running else "database connection failed (No such file or directory)"

    def vswitchd_version(self, socket: str) -> str | None:
        assert socket == f"{self.paths.rundir}/ovs-vswitchd.42.ctl"
        return VERSION if self.answers else None


@pytest.fixture
def host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeHost:
    made = FakeHost(tmp_path)
    made.install(monkeypatch)
    return made


def test_running_daemons_are_left_alone(host: FakeHost) -> None:
    host.pretend_running("ovsdb-server", 41)
    host.pretend_running("ovs-vswitchd", 42)
    report = ensure_running(host.paths)
    assert (report.started, report.version, host.calls) == ([], VERSION, [])
    assert report.lines() == [f"{VERSION}: already running"]


def test_a_bare_host_gets_a_database_and_both_daemons(host: FakeHost) -> None:
    report = ensure_running(host.paths)
    assert host.calls == ["create_db", "ovsdb-server", "init_db", "ovs-vswitchd"]
    assert report.started == ["ovsdb-server", "ovs-vswitchd"]
    assert report.lines() == [
        f"created {host.paths.db}",
        f"{VERSION}: started ovsdb-server, ovs-vswitchd",
    ]


def test_an_old_database_is_converted_before_the_server_starts(host: FakeHost) -> None:
    host.paths.db.parent.mkdir(parents=True)
    host.paths.db.write_text("db")
    host.old_schema = True
    ensure_running(host.paths)
    assert host.calls == ["convert_db", "ovsdb-server", "init_db", "ovs-vswitchd"]


def test_only_the_missing_daemon_starts(host: FakeHost) -> None:
    host.pretend_running("ovsdb-server", 41)
    host.old_schema = True  # in use by the running server: not touched
    assert ensure_running(host.paths).started == ["ovs-vswitchd"]
    assert host.calls == ["init_db", "ovs-vswitchd"]


def test_systemd_starts_the_packaged_unit(host: FakeHost) -> None:
    host.paths.systemd_dir.mkdir()
    (host.paths.unit_dirs[0]).mkdir()
    (host.paths.unit_dirs[0] / "openvswitch.service").write_text("")
    assert ensure_running(host.paths).started == ["openvswitch.service"]
    assert host.calls == ["systemctl start openvswitch.service"]


def test_a_failed_start_names_the_command(host: FakeHost) -> None:
    host.failing = "ovs-vswitchd"
    with pytest.raises(OvsDaemonError, match=r"ovs-vswitchd failed \(exit status 1\): it broke"):
        ensure_running(host.paths)


def test_a_daemon_that_never_answers_times_out(host: FakeHost) -> None:
    host.answers = False
    now = [0.0]
    with pytest.raises(OvsDaemonError, match="ovs-vswitchd does not answer 2 s after the start"):
        ensure_running(
            host.paths,
            timeout=2,
            sleep=lambda s: now.__setitem__(0, now[0] + s),
            clock=lambda: now[0],
        )


def test_starting_needs_root(host: FakeHost, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(privileged, "unavailable_reason", lambda: "no sudoers rule")
    with pytest.raises(
        OvsDaemonError, match=r"ovsdb-server: database connection failed .* root: no sudoers rule"
    ):
        ensure_running(host.paths)
    assert host.calls == []


def test_main_prints_and_exits(
    host: FakeHost, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(ovs_daemons, "OvsPaths", lambda: host.paths)
    assert main([]) == 0
    assert (
        capsys.readouterr().out.splitlines()[-1]
        == f"openvswitch: {VERSION}: started ovsdb-server, ovs-vswitchd"
    )
    host.answers = False
    assert main(["--timeout", "0"]) == 1
    assert "openvswitch: Open vSwitch is not available" in capsys.readouterr().err
