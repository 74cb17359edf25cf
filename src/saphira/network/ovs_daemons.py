"""Start Open vSwitch (ovsdb-server and ovs-vswitchd), with or without systemd.

Debian's package starts both through ``ovs-ctl`` from its systemd units, and
apt starts nothing where PID 1 is not systemd (containers, this project's
CI). ``ovs-ctl`` cannot stand in there: it insists on loading the kernel
module, which such hosts lack (the userspace datapath needs none). So the
steps are done here as ``ovs-ctl`` does them: the database created (or its
schema converted) if needed, ``ovsdb-server``, ``ovs-vsctl --no-wait init``,
then ``ovs-vswitchd``; each daemon only if its pidfile shows it is not
running, so a second call starts nothing. Where systemd runs, its unit is
started instead. Either way the call returns once both daemons answer.

``python -m saphira.network.ovs_daemons`` does the same from a shell
(``tools/run-tests`` uses it) and exits 1 with the reason on failure.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from saphira.exception import SaphiraError
from saphira.privsep import context as privileged
from saphira.privsep import ovs
from saphira.privsep.errors import PrivsepError

LOG = logging.getLogger(__name__)
UNIT_DIRS = (
    Path("/etc/systemd/system"),
    Path("/lib/systemd/system"),
    Path("/usr/lib/systemd/system"),
)
UNITS = ovs.UNITS
POLL = 0.1


class OvsDaemonError(SaphiraError):
    msg_fmt = "Open vSwitch is not available: %(detail)s"


@dataclass(frozen=True)
class OvsPaths:
    """Where the packaged daemons keep their files; tests point these at a directory.

    ``rundir`` must stay the one OVS was built with on a real host: its tools
    find the daemons' control sockets (``<name>.<pid>.ctl``) only there.
    """

    db: Path = Path("/etc/openvswitch/conf.db")
    schema: Path = Path("/usr/share/openvswitch/vswitch.ovsschema")
    rundir: Path = Path("/var/run/openvswitch")
    logdir: Path = Path("/var/log/openvswitch")
    proc: Path = Path("/proc")
    systemd_dir: Path = Path("/run/systemd/system")
    unit_dirs: tuple[Path, ...] = UNIT_DIRS

    def running(self, daemon: str) -> int | None:
        """The pid in ``<rundir>/<daemon>.pid`` if that process is still this daemon."""
        try:
            pid = int((self.rundir / f"{daemon}.pid").read_text().strip())
            comm = (self.proc / str(pid) / "comm").read_text().strip()
        except (OSError, ValueError):
            return None
        return pid if comm == daemon[:15] else None

    def systemd(self) -> bool:
        return self.systemd_dir.is_dir()

    def unit(self) -> str:
        for unit in UNITS:
            if any((directory / unit).exists() for directory in self.unit_dirs):
                return unit
        return UNITS[0]


@dataclass
class OvsReport:
    version: str = ""
    started: list[str] = field(default_factory=list)  # daemons, or the unit under systemd
    notes: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        done = f"started {', '.join(self.started)}" if self.started else "already running"
        return [*self.notes, f"{self.version or 'ovs-vswitchd'}: {done}"]


def _answer(paths: OvsPaths) -> tuple[str | None, str]:
    """(ovs-vswitchd's version, "") once both daemons answer, else (None, why not)."""
    why = ovs.db_answers(str(paths.rundir))
    if why is not None:
        return None, f"ovsdb-server: {why}"
    pid = paths.running("ovs-vswitchd")
    if pid is None:
        return None, "ovs-vswitchd is not running"
    version = ovs.vswitchd_version(f"{paths.rundir}/ovs-vswitchd.{pid}.ctl")
    return (version, "") if version else (None, "ovs-vswitchd does not answer")


def _prepare_db(paths: OvsPaths, report: OvsReport) -> None:
    """Create the database, or bring an older one to the installed schema, as ovs-ctl does."""
    db, schema = str(paths.db), str(paths.schema)
    if not paths.db.exists():  # also true for Debian's dangling /etc symlink into /var/lib
        paths.db.resolve().parent.mkdir(parents=True, exist_ok=True)
        ovs.create_db(db, schema)
        report.notes.append(f"created {db}")
    elif ovs.db_needs_conversion(db, schema):
        ovs.convert_db(db, schema)
        report.notes.append(f"converted {db} to {schema}")


def _start_daemons(paths: OvsPaths, report: OvsReport) -> None:
    for directory in (paths.rundir, paths.logdir):
        directory.mkdir(parents=True, exist_ok=True)
    rundir, logdir = str(paths.rundir), str(paths.logdir)
    if paths.running("ovsdb-server") is None:
        _prepare_db(paths, report)
        ovs.start_ovsdb_server(str(paths.db), rundir, logdir)
        report.started.append("ovsdb-server")
    ovs.init_db(rundir)
    if paths.running("ovs-vswitchd") is None:
        ovs.start_vswitchd(rundir, logdir)
        report.started.append("ovs-vswitchd")


def _wait(
    paths: OvsPaths, timeout: float, sleep: Callable[[float], None], clock: Callable[[], float]
) -> str:
    deadline = clock() + timeout
    while True:
        version, why = _answer(paths)
        if version is not None:
            return version
        if clock() >= deadline:
            raise OvsDaemonError(detail=f"{why} {timeout:g} s after the start")
        sleep(POLL)


def ensure_running(
    paths: OvsPaths | None = None,
    timeout: float = 15.0,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> OvsReport:
    """Make both daemons answer: nothing to do if they already do, else start them.

    Raises OvsDaemonError naming the command that failed (with its stderr) or
    the daemon that never answered.
    """
    paths = paths or OvsPaths()
    report = OvsReport()
    version, why = _answer(paths)
    if version is not None:
        report.version = version
        return report
    cannot = privileged.unavailable_reason()
    if cannot is not None:
        raise OvsDaemonError(detail=f"{why}; starting it needs root: {cannot}")
    try:
        if paths.systemd():
            ovs.systemctl_start(paths.unit())
            report.started.append(paths.unit())
        else:
            _start_daemons(paths, report)
    except PrivsepError as error:
        raise OvsDaemonError(detail=error.message) from None
    for line in report.lines()[:-1]:
        LOG.info("%s", line)
    LOG.info("started %s", ", ".join(report.started))
    report.version = _wait(paths, timeout, sleep, clock)
    return report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m saphira.network.ovs_daemons",
        description="Start ovsdb-server and ovs-vswitchd unless they already run.",
    )
    parser.add_argument("--timeout", type=float, default=15.0, help="seconds to wait for them")
    args = parser.parse_args(argv)
    try:
        report = ensure_running(timeout=args.timeout)
    except OvsDaemonError as error:
        print(f"openvswitch: {error.message}", file=sys.stderr)
        return 1
    for line in report.lines():
        print(f"openvswitch: {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
