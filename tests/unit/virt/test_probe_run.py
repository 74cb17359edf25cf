"""The probe runner against stand-in "QEMU" scripts: marker, early exit, timeout."""

from __future__ import annotations

import sys
from pathlib import Path

from saphira.virt.probe_run import run_qemu


def _script(tmp_path: Path, body: str) -> list[str]:
    path = tmp_path / "fake_qemu.py"
    path.write_text(f"import os, sys, time\nserial = sys.argv[1]\n{body}\n")
    return [sys.executable, str(path)]


def test_marker_on_the_serial_console_means_booted(tmp_path: Path) -> None:
    serial = tmp_path / "serial.log"
    argv = _script(tmp_path, "open(serial, 'w').write('x MARK y')\ntime.sleep(30)")
    run = run_qemu([*argv, str(serial)], serial, 10, "MARK")
    assert run.booted


def test_early_exit_is_reported_with_status_and_stderr(tmp_path: Path) -> None:
    serial = tmp_path / "serial.log"
    argv = _script(tmp_path, "sys.stderr.write('KVM internal error\\n')\nsys.exit(3)")
    run = run_qemu([*argv, str(serial)], serial, 10, "MARK")
    assert not run.booted
    assert "exited with status 3" in run.detail
    assert "KVM internal error" in run.detail


def test_a_hung_guest_is_killed_at_the_timeout(tmp_path: Path) -> None:
    serial = tmp_path / "serial.log"
    pidfile = tmp_path / "pid"
    body = f"open({str(pidfile)!r}, 'w').write(str(os.getpid()))\nopen(serial, 'w').write('boot')"
    argv = _script(tmp_path, body + "\ntime.sleep(60)")
    run = run_qemu([*argv, str(serial)], serial, 1.0, "MARK")
    assert not run.booted
    assert "no marker on the serial console within 1 s" in run.detail
    assert "console: boot" in run.detail
    pid = int(pidfile.read_text())
    assert not Path(f"/proc/{pid}").exists()  # killed and reaped


def test_a_missing_binary_is_reported(tmp_path: Path) -> None:
    run = run_qemu([str(tmp_path / "nope")], tmp_path / "s", 1, "MARK")
    assert not run.booted
    assert "cannot start" in run.detail
